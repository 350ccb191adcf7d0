package lookout

import "github.com/cloudwego/eino/schema"

// Tag is the key Lookout sets in the Extra of every message it injects.
// Its value says what the message is: [TagAssessment] or [TagWrapUp].
const Tag = "lookout"

// The values of [Tag].
const (
	TagAssessment = "assessment"
	TagWrapUp     = "wrap_up"
)

// Injected reports whether msg was injected by Lookout, and what it is.
func Injected(msg *schema.Message) (kind string, ok bool) {
	if msg == nil || msg.Extra == nil {
		return "", false
	}
	kind, ok = msg.Extra[Tag].(string)
	return kind, ok
}
