package drive

import "github.com/lookout-go/lookout/recorder"

// SetResultMedia gives the call's result, about to be passed to End, the
// parts a multimodal tool returned: its text and its images and audio,
// in order. The tool_ended record then keeps them (the recorder keeps
// media inline up to its limit, by hash beyond it), so that exports show
// what the tool returned, not only its text. Parts without media are
// ignored: the result's text says it all. It does nothing on the zero
// Call.
func (c *Call) SetResultMedia(parts []recorder.Part) {
	if c == nil || c.run == nil {
		return
	}
	for _, p := range parts {
		if p.Media != nil {
			c.parts = parts
			return
		}
	}
}
