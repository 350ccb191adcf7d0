package observer

import (
	"context"
	"testing"

	"github.com/lookout-go/lookout/session"
)

// probe is an observer that runs on every call, unless quiet; meddle,
// when set, runs in its Observe, between the pipeline's read of the
// states and its own change of them.
type probe struct {
	name   string
	quiet  bool
	meddle func()
}

func (o *probe) Name() string                             { return o.name }
func (o *probe) ShouldRun(context.Context, *Context) bool { return !o.quiet }
func (o *probe) Observe(context.Context, *Context) (Assessment, error) {
	if o.meddle != nil {
		o.meddle()
	}
	return Assessment{Summary: "ok"}, nil
}

func newProbed(t *testing.T, observers ...Observer) (*Pipeline, *session.Value[ObserverStates]) {
	t.Helper()
	store := session.New(nil)
	specs := make([]Spec, len(observers))
	for i, o := range observers {
		specs[i] = Spec{Observer: o, Trigger: Trigger{OnEveryCall: true}}
	}
	p, err := NewPipeline(store, specs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, session.ValueOf[ObserverStates](store)
}

// After its own runs the pipeline keeps the states it wrote, and does not
// read them back on the next call: they count as read at the version its
// change made, and equal what the session holds.
func TestPipelineKeepsTheStatesItWrote(t *testing.T) {
	p, states := newProbed(t, &probe{name: "a"}, &probe{name: "b"})
	for range 3 {
		p.AfterToolCall(context.Background(), ToolCallRecord{ToolName: "t", Success: true})
		if p.statesRead.stale() {
			t.Fatal("the states the pipeline wrote count as unread")
		}
		stored, _ := states.Latest()
		for _, m := range p.members {
			if m.state != stored[m.name] {
				t.Errorf("member %s keeps %+v, the session holds %+v", m.name, m.state, stored[m.name])
			}
		}
	}
	if st := p.members[1].state; st.TotalAssessments != 3 || st.LastAssessmentCallIndex != 3 {
		t.Errorf("member b's state is %+v after three runs", st)
	}
}

// A change from outside between the pipeline's read of the states and its
// own change leaves them unread, so the next call reads what the outside
// wrote: here the state of an observer that does not run.
func TestPipelineReadsStatesChangedWhileItRan(t *testing.T) {
	meddler := &probe{name: "a"}
	p, states := newProbed(t, meddler, &probe{name: "b"}, &probe{name: "c", quiet: true})
	p.AfterToolCall(context.Background(), ToolCallRecord{ToolName: "t", Success: true})
	meddler.meddle = func() {
		states.Change(func(s *ObserverStates, _ bool) { (*s)["c"] = ObserverState{TotalAssessments: 40} })
	}
	p.AfterToolCall(context.Background(), ToolCallRecord{ToolName: "t", Success: true})
	if !p.statesRead.stale() {
		t.Fatal("states changed from outside count as read")
	}
	meddler.meddle = nil
	p.AfterToolCall(context.Background(), ToolCallRecord{ToolName: "t", Success: true})
	stored, _ := states.Latest()
	for _, m := range p.members {
		if m.state != stored[m.name] {
			t.Errorf("member %s keeps %+v, the session holds %+v", m.name, m.state, stored[m.name])
		}
	}
	if got := p.members[2].state.TotalAssessments; got != 40 {
		t.Errorf("c's state counts %d assessments, want the 40 written from outside", got)
	}
}
