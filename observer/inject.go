package observer

import "github.com/lookout-go/lookout/session"

// DefaultMaxAgeCalls is how many tool calls an assessment stays fresh for
// when no other limit is given.
const DefaultMaxAgeCalls = 20

// BuildContext returns the assessment block to inject before the next model
// call, or "" when there is none or it is stale. Staleness is measured
// against the current tool-call index (the number of calls recorded so
// far), not against the index the assessment was made at. A non-positive
// maxAgeCalls means [DefaultMaxAgeCalls].
func BuildContext(store *session.Store, maxAgeCalls int) string {
	current, ok := session.ValueOf[CurrentAssessment](store).Latest()
	if !ok {
		return ""
	}
	if current.IsStale(session.LogOf[ToolCallRecord](store).Total(), maxAgeCalls) {
		return ""
	}
	return current.Render()
}
