package atif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Content is a message or observation body, which ATIF allows to be either
// a plain string or a list of content parts (v1.6+). When Parts is non-nil
// the content is the list and Text is ignored; otherwise it is the string
// Text, possibly empty. The zero value is the empty string. Safe for
// concurrent reads.
type Content struct {
	Text  string
	Parts []ContentPart
}

// Text returns string content.
func Text(s string) Content { return Content{Text: s} }

// Parts returns list content. With no arguments it is an empty list, which
// is written as [].
func Parts(parts ...ContentPart) Content {
	if parts == nil {
		parts = []ContentPart{}
	}
	return Content{Parts: parts}
}

// IsParts reports whether c is the list form.
func (c Content) IsParts() bool { return c.Parts != nil }

// PlainText returns the text of c: the string itself, or the text parts
// joined by newlines with media parts left out.
func (c Content) PlainText() string {
	if c.Parts == nil {
		return c.Text
	}
	var texts []string
	for _, p := range c.Parts {
		if p.Type == PartText {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// MarshalJSON writes the string or the list.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return marshal(c.Parts)
	}
	return marshal(c.Text)
}

// UnmarshalJSON reads a string or a list of parts.
func (c *Content) UnmarshalJSON(data []byte) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var parts []ContentPart
		if err := json.Unmarshal(trimmed, &parts); err != nil {
			return err
		}
		*c = Parts(parts...)
		return nil
	}
	var s string
	if err := json.Unmarshal(trimmed, &s); err != nil {
		return fmt.Errorf("content must be a string or a list of parts: %w", err)
	}
	*c = Content{Text: s}
	return nil
}

// PartType is the kind of a ContentPart.
type PartType string

// The content part kinds. Audio arrived in ATIF-v1.8.
const (
	PartText  PartType = "text"
	PartImage PartType = "image"
	PartAudio PartType = "audio"
)

// ContentPart is one element of list content. A text part carries Text
// (possibly empty); an image or audio part carries a Source of the same
// kind and no text. Safe for concurrent reads.
type ContentPart struct {
	Type   PartType     `json:"type"`
	Text   string       `json:"text,omitempty"`
	Source *MediaSource `json:"source,omitempty"`
}

// MarshalJSON always writes text on a text part, even when empty, since
// ATIF requires it there.
func (p ContentPart) MarshalJSON() ([]byte, error) {
	type plain ContentPart
	if p.Type != PartText {
		return marshal(plain(p))
	}
	return marshal(struct {
		Type   PartType     `json:"type"`
		Text   string       `json:"text"`
		Source *MediaSource `json:"source,omitempty"`
	}{p.Type, p.Text, p.Source})
}

// MediaSource locates an image or audio file. Path may be relative to the
// trajectory's folder, absolute, or a URL. DurationSec applies to audio
// only. Safe for concurrent reads.
type MediaSource struct {
	MediaType   string   `json:"media_type"`
	Path        string   `json:"path"`
	DurationSec *float64 `json:"duration_sec,omitempty"`
}

// Media types ATIF accepts for each part kind.
var (
	imageMediaTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}
	audioMediaTypes = []string{
		"audio/wav", "audio/mpeg", "audio/mp4", "audio/aac",
		"audio/ogg", "audio/flac", "audio/webm", "audio/aiff",
	}
	// audioAliases are spellings producers emit for registered types; the
	// upstream model normalises them before checking.
	audioAliases = map[string]string{
		"audio/mp3":      "audio/mpeg",
		"audio/mpga":     "audio/mpeg",
		"audio/x-mpeg":   "audio/mpeg",
		"audio/x-wav":    "audio/wav",
		"audio/wave":     "audio/wav",
		"audio/vnd.wave": "audio/wav",
		"audio/x-m4a":    "audio/mp4",
		"audio/m4a":      "audio/mp4",
		"audio/x-aac":    "audio/aac",
		"audio/x-flac":   "audio/flac",
		"audio/x-aiff":   "audio/aiff",
	}
)

// normalizeAudioType maps an audio media type to its canonical spelling
// the way the upstream model does: trimmed, lower-cased, aliases resolved.
func normalizeAudioType(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if canonical, ok := audioAliases[s]; ok {
		return canonical
	}
	return s
}
