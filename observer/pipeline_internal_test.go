package observer

import (
	"context"
	"strconv"
	"strings"
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
	// panicIn names the method that panics: "should_run" or "observe".
	panicIn string
}

func (o *probe) Name() string { return o.name }
func (o *probe) ShouldRun(context.Context, *Context) bool {
	if o.panicIn == "should_run" {
		panic("in ShouldRun")
	}
	return !o.quiet
}
func (o *probe) Observe(_ context.Context, oc *Context) (Assessment, error) {
	if o.meddle != nil {
		o.meddle()
	}
	if o.panicIn == "observe" {
		panic("in Observe")
	}
	return Assessment{Summary: o.name + " after " + strconv.FormatInt(oc.CallIndex, 10)}, nil
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

// The observers of a call share one recovery: each panic stands in for
// its observer's assessment, and the observers after it still run, in
// order; those that do not run leave no gap. The assessments are written
// where the pipeline keeps them, and a later call leaves those of an
// earlier one as they were.
func TestPanickingObserversLeaveTheOthersRunning(t *testing.T) {
	p, _ := newProbed(t,
		&probe{name: "a", panicIn: "should_run"}, &probe{name: "b", quiet: true}, &probe{name: "c"},
		&probe{name: "d", panicIn: "observe"}, &probe{name: "e", panicIn: "observe"}, &probe{name: "f"})
	var reported []string
	p.onError = func(_ context.Context, err error) { reported = append(reported, err.Error()) }
	var currents []*CurrentAssessment
	for range 40 { // more than an array of assessments holds
		_, current := p.AfterToolCall(context.Background(), ToolCallRecord{ToolName: "t", Success: true})
		currents = append(currents, current)
	}
	for n, current := range currents {
		var got []string
		for _, a := range current.Assessments {
			got = append(got, a.Observer+": "+a.Summary)
		}
		failed := ": This observer failed; its view of the run is missing from this assessment."
		after := " after " + strconv.Itoa(n+1)
		want := []string{"a" + failed, "c: c" + after, "d" + failed, "e" + failed, "f: f" + after}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("call %d: got %q, want %q", n+1, got, want)
		}
	}
	if len(reported) != 3*40 || !strings.Contains(reported[0], `observer "a": should_run: observer panicked`) ||
		!strings.Contains(reported[1], `observer "d": observe: observer panicked`) || !strings.Contains(reported[2], `observer "e": observe: observer panicked`) {
		t.Errorf("reported %d errors, the first %q", len(reported), reported[:min(3, len(reported))])
	}
}

// judging is a probe that suggests something and judges its assessments
// undecided until final, noting the tallies it judged at.
type judging struct {
	probe
	tallies []Tally
}

func (o *judging) Observe(ctx context.Context, oc *Context) (Assessment, error) {
	a, err := o.probe.Observe(ctx, oc)
	a.Suggestions = []string{"stop"}
	return a, err
}

func (o *judging) Judge(_ context.Context, oc *Context, _ Shown, final bool) (followed, decided bool) {
	o.tallies = append(o.tallies, oc.Tally)
	return false, final
}

// After its own changes of the Efficacy value the pipeline keeps whether
// an assessment is pending, and does not read the value back on the next
// call; a change from outside is read. A judge after a call sees the
// tally the call made.
func TestPipelineKeepsWhetherAnAssessmentIsPending(t *testing.T) {
	o := &judging{probe: probe{name: "j"}}
	p, _ := newProbed(t, o)
	eff := session.ValueOf[Efficacy](p.store)
	ctx := context.Background()
	_, current := p.AfterToolCall(ctx, ToolCallRecord{ToolName: "t", Success: true})
	p.Injected(ctx, *current)
	if p.efficacyRead.stale() || !p.isPending {
		t.Fatalf("after the pipeline showed an assessment: stale %v, pending %v", p.efficacyRead.stale(), p.isPending)
	}
	p.AfterToolCall(ctx, ToolCallRecord{ToolName: "t", Success: false})
	if p.efficacyRead.stale() || !p.isPending {
		t.Fatalf("after a call judged undecided: stale %v, pending %v", p.efficacyRead.stale(), p.isPending)
	}
	if want := (Tally{Calls: 2, Failures: 1, ConsecutiveErrors: 1}); len(o.tallies) != 1 || o.tallies[0] != want {
		t.Errorf("judged at tallies %+v, want %+v", o.tallies, want)
	}
	p.ModelResponded(ctx, 0)
	if p.efficacyRead.stale() || p.isPending {
		t.Fatalf("after the agent wrapped up: stale %v, pending %v", p.efficacyRead.stale(), p.isPending)
	}

	// From outside: an assessment pending again.
	eff.Change(func(e *Efficacy, _ bool) {
		e.Pending = &PendingReaction{AssessmentCallIndex: 2, Observers: []Rating{{Observer: "j"}}}
	})
	p.AfterToolCall(ctx, ToolCallRecord{ToolName: "t", Success: true})
	if len(o.tallies) != 2 {
		t.Errorf("the pending assessment set from outside was judged %d times, want once", len(o.tallies)-1)
	}
}

// The observers that catch up on the same call share one read of it: the
// very entry the log holds, read again when the log was restored since.
func TestCallAtSharesOneReadUntilTheLogChanges(t *testing.T) {
	p, _ := newProbed(t, &probe{name: "a"})
	ctx := context.Background()
	p.AfterToolCall(ctx, ToolCallRecord{ToolName: "first", Success: true})
	snap, err := p.store.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	p.AfterToolCall(ctx, ToolCallRecord{ToolName: "second", Success: true})
	entry := func(pos int64) *ToolCallRecord {
		for _, r := range p.calls.Range(pos, pos+1) {
			return r
		}
		return nil
	}
	epoch := p.calls.Epoch()
	if got := p.callAt(1, epoch); got != entry(1) || got.ToolName != "second" {
		t.Fatalf("callAt(1) = %+v, want the log's entry", got)
	}
	if got := p.callAt(1, epoch); got != entry(1) {
		t.Fatal("callAt(1) read again is not the log's entry")
	}
	if got := p.callAt(2, epoch); got != nil {
		t.Fatalf("callAt(2) = %+v, want nil past the end", got)
	}
	if err := p.store.Restore(snap); err != nil {
		t.Fatal(err)
	}
	p.AfterToolCall(ctx, ToolCallRecord{ToolName: "restored", Success: true})
	epoch = p.calls.Epoch()
	if got := p.callAt(1, epoch); got != entry(1) || got.ToolName != "restored" {
		t.Fatalf("callAt(1) after a restore = %+v, want the restored log's entry", got)
	}
}

// The pending reaction names the log's latest call, as Log.Latest returns
// it, also when the log was restored since the pipeline last read it.
func TestPendingForNamesTheLatestCall(t *testing.T) {
	p, _ := newProbed(t, &probe{name: "a"})
	ctx := context.Background()
	current := &CurrentAssessment{CallIndex: 1, Assessments: []Assessment{{Observer: "a"}}}
	if pend := p.pendingFor(current); pend.LastTool != "" {
		t.Fatalf("LastTool with no call = %q, want none", pend.LastTool)
	}
	p.AfterToolCall(ctx, ToolCallRecord{ToolName: "first", Arguments: `{"a":1}`, Success: true})
	snap, err := p.store.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	p.AfterToolCall(ctx, ToolCallRecord{ToolName: "second", Success: true})
	for _, want := range []string{"second", "second"} {
		if pend := p.pendingFor(current); pend.LastTool != want {
			t.Fatalf("LastTool = %q, want %q", pend.LastTool, want)
		}
	}
	if err := p.store.Restore(snap); err != nil {
		t.Fatal(err)
	}
	last, _ := p.calls.Latest()
	if pend := p.pendingFor(current); pend.LastTool != last.ToolName || pend.LastArguments != last.Arguments {
		t.Fatalf("after a restore the pending reaction names %q %q, want %q %q", pend.LastTool, pend.LastArguments, last.ToolName, last.Arguments)
	}
}
