package drive

import (
	"sync"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
)

// assessmentMessage returns the message for the current assessment, or
// nil when there is none or it is stale, with a turn holding just that
// message. The message is made once per assessment and reused while the
// assessment stays current. report is false when the pipeline has already
// been told that this run shows it.
func (r *Run) assessmentMessage() (msg *schema.Message, turn []*schema.Message, report bool, current observer.CurrentAssessment) {
	current, ok := r.current.Latest()
	if !ok || len(current.Assessments) == 0 || current.IsStale(r.calls.Total(), r.cfg.MaxAgeCalls) {
		return nil, nil, false, current
	}
	// An assessment is known by its call index and time. Comparing times
	// costs more than comparing the address of its first Assessment,
	// which tells the usual case, the same assessment as before.
	first := &current.Assessments[0]
	r.mu.Lock()
	if !r.showing(&current) {
		// The block, its turn and room for its record in one allocation.
		b := &struct {
			msg    schema.Message
			turn   [1]*schema.Message
			record [1]recorder.InjectedMessage
		}{msg: schema.Message{Role: r.cfg.InjectAs, Content: r.render(&current), Extra: r.assessmentExtra()}}
		b.turn[0] = &b.msg
		r.block, r.blockTurn, r.blockRecord = &b.msg, b.turn[:], b.record[:0]
		r.blockIndex, r.blockTime, r.blockLen = current.CallIndex, current.GeneratedAt, len(current.Assessments)
	}
	r.blockOf = first
	msg, turn = r.block, r.blockTurn
	report = r.shown != msg
	r.shown = msg
	r.mu.Unlock()
	return msg, turn, report, current
}

// render returns a's markdown, rendered once for the assessment record
// and the block the model is shown: an assessment is known by the
// address of its first Assessment, which the session's copies share.
func (r *Run) render(a *observer.CurrentAssessment) string {
	if len(a.Assessments) == 0 {
		return a.Render()
	}
	first := &a.Assessments[0]
	md := &r.rendered
	md.mu.Lock()
	defer md.mu.Unlock()
	if md.of != first || md.n != len(a.Assessments) {
		md.of, md.n, md.text = first, len(a.Assessments), a.Render()
	}
	return md.text
}

// rendering is an assessment's markdown, and the assessment it is of.
type rendering struct {
	mu   sync.Mutex
	of   *observer.Assessment
	n    int
	text string
}

// showing reports whether the run's block is that of assessment a; r.mu
// is held.
func (r *Run) showing(a *observer.CurrentAssessment) bool {
	if r.block == nil || r.blockIndex != a.CallIndex || r.blockLen != len(a.Assessments) {
		return false
	}
	return &a.Assessments[0] == r.blockOf || r.blockTime.Equal(a.GeneratedAt)
}

func (r *Run) message(content, kind string) *schema.Message {
	m := r.injection(content, kind)
	return &m
}

// injection returns a message Lookout injects, tagged with its kind.
func (r *Run) injection(content, kind string) schema.Message {
	return schema.Message{Role: r.cfg.InjectAs, Content: content, Extra: map[string]any{lookout.Tag: kind}}
}

// assessmentExtra returns the Extra of the run's assessment blocks, made
// on first use: the blocks of a run share it, as an assessment is made
// after most tool calls. It is read-only: nothing of Lookout's writes into
// the Extra of a message it injected, and a block leaves the history when
// the next one comes in (see Reinject). r.mu is held.
func (r *Run) assessmentExtra() map[string]any {
	if r.blockExtra == nil {
		r.blockExtra = map[string]any{lookout.Tag: lookout.TagAssessment}
	}
	return r.blockExtra
}
