package observer

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/lookout-go/lookout/session"
)

// The observers that run after each call are those whose trigger fires by
// Trigger.Fires, on the states the session holds before the call, whether
// the observers' runs wrote them or a change from outside did, including
// on the calls the pipeline finds quiet without asking the triggers; and
// between runs it knows the call and the failure streak at which the
// first trigger can fire.
func TestQuietCallsRunWhatTheTriggersSay(t *testing.T) {
	every10 := Trigger{EveryNCalls: 10, AfterConsecutiveErrors: 3}
	sets := [][]Trigger{
		{every10},
		{every10, {EveryNCalls: 4}},
		{{EveryNCalls: 4}, {AfterConsecutiveErrors: 2}},
		{every10, {EveryNCalls: 7, EveryInterval: time.Minute}},
		{{AfterConsecutiveErrors: 2}, {OnEveryCall: true}},
	}
	for n, triggers := range sets {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			checkQuietCalls(t, triggers, rand.New(rand.NewPCG(uint64(n), 7)))
		})
	}
}

func checkQuietCalls(t *testing.T, triggers []Trigger, rnd *rand.Rand) {
	begin := time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)
	store := session.New(nil)
	var ran []string
	specs := make([]Spec, len(triggers))
	for i, tr := range triggers {
		o := &probe{name: "o" + strconv.Itoa(i)}
		o.meddle = func() { ran = append(ran, o.name) }
		specs[i] = Spec{Observer: o, Trigger: tr}
	}
	p, err := NewPipeline(store, specs, &PipelineOptions{Now: func() time.Time { return begin }})
	if err != nil {
		t.Fatal(err)
	}
	states := session.ValueOf[ObserverStates](store)
	var tally Tally
	for call := int64(1); call <= 400; call++ {
		if call%23 == 0 {
			// From outside: an observer's last run moved.
			states.Change(func(s *ObserverStates, _ bool) {
				if *s == nil {
					*s = ObserverStates{}
				}
				(*s)["o0"] = ObserverState{LastAssessmentCallIndex: call - rnd.Int64N(12)}
			})
		}
		before, _ := states.Latest()
		rec := ToolCallRecord{ToolName: "t", Success: rnd.IntN(3) > 0, Timestamp: begin.Add(time.Duration(call) * 20 * time.Second)}
		tally.add(rec.Success)
		var want []string
		for _, s := range specs {
			if s.Trigger.Fires(before[s.Observer.Name()], call, tally.ConsecutiveErrors, rec.Timestamp, begin) {
				want = append(want, s.Observer.Name())
			}
		}
		ran = ran[:0]
		p.AfterToolCall(context.Background(), rec)
		if !slices.Equal(ran, want) {
			t.Fatalf("call %d ran %v, the triggers say %v", call, ran, want)
		}
		checkPlan(t, p, triggers, call)
	}
}

// checkPlan checks the call and the failure streak at which p, after
// the call at index call, knows that a trigger can fire next.
func checkPlan(t *testing.T, p *Pipeline, triggers []Trigger, call int64) {
	t.Helper()
	until, errs := int64(math.MaxInt64), int64(math.MaxInt64)
	for i, tr := range triggers {
		if tr.OnEveryCall || tr.EveryInterval > 0 {
			until, errs = 0, 0
			break
		}
		if tr.EveryNCalls > 0 {
			until = min(until, p.members[i].state.LastAssessmentCallIndex+int64(tr.EveryNCalls))
		}
		if tr.AfterConsecutiveErrors > 0 {
			errs = min(errs, int64(tr.AfterConsecutiveErrors))
		}
	}
	if !p.statesRead.stale() && (p.quietUntil != until || p.quietErrors != errs) {
		t.Fatalf("after call %d the pipeline waits for call %d or %d errors, want %d or %d", call, p.quietUntil, p.quietErrors, until, errs)
	}
}

// withdrawing is a probe whose section holds while holds is set.
type withdrawing struct {
	probe
	holds bool
}

func (o *withdrawing) Holds(context.Context, *Context) bool { return o.holds }

// everyFifth returns a pipeline that runs o every fifth call, and a
// function that makes a call and returns the new assessment.
func everyFifth(t *testing.T, o Observer) (*Pipeline, func() *CurrentAssessment) {
	t.Helper()
	p, err := NewPipeline(session.New(nil), []Spec{{Observer: o, Trigger: Trigger{EveryNCalls: 5}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, func() *CurrentAssessment {
		_, current := p.AfterToolCall(context.Background(), ToolCallRecord{ToolName: "t", Success: true})
		return current
	}
}

// On the calls between the runs of a sparse trigger the pipeline still
// judges an assessment pending, also one that a change from outside made
// pending.
func TestQuietCallsAreJudged(t *testing.T) {
	o := &judging{probe: probe{name: "j"}}
	p, call := everyFifth(t, o)
	ctx := context.Background()
	var current *CurrentAssessment
	for range 5 {
		current = call()
	}
	p.Injected(ctx, *current)
	call()
	if len(o.tallies) != 1 {
		t.Fatalf("the call after the assessment was shown was judged %d times, want once", len(o.tallies))
	}
	p.ModelResponded(ctx, 0)
	call()
	if len(o.tallies) != 1 {
		t.Fatalf("a call after the agent wrapped up was judged")
	}
	session.ValueOf[Efficacy](p.store).Change(func(e *Efficacy, _ bool) {
		e.Pending = &PendingReaction{AssessmentCallIndex: 5, Observers: []Rating{{Observer: "j", Severity: Caution}}}
	})
	call()
	if len(o.tallies) != 2 {
		t.Fatalf("an assessment made pending from outside was judged %d times, want once", len(o.tallies)-1)
	}
}

// On the calls between the runs of a sparse trigger the pipeline
// withdraws a section that no longer holds.
func TestQuietCallsAreWithdrawnFrom(t *testing.T) {
	o := &withdrawing{probe: probe{name: "w"}, holds: true}
	p, call := everyFifth(t, o)
	for range 6 {
		call()
	}
	current, _ := p.current.Latest()
	if len(current.Assessments) != 1 {
		t.Fatalf("the section is gone while it holds: %+v", current)
	}
	o.holds = false
	call()
	if current, _ := p.current.Latest(); len(current.Assessments) != 0 {
		t.Errorf("a section that no longer holds stays: %+v", current.Assessments)
	}
}

// A clock that panics while the pipeline stamps a call leaves it
// unlocked.
func TestAPanickingClockLeavesThePipelineUnlocked(t *testing.T) {
	broken := false
	begin := time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)
	clock := func() time.Time {
		if broken {
			panic("clock")
		}
		return begin
	}
	p, err := NewPipeline(session.New(nil), []Spec{{Observer: &probe{name: "a"}, Trigger: Trigger{EveryNCalls: 10}}}, &PipelineOptions{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	broken = true
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the clock's panic did not reach the caller")
			}
		}()
		p.AfterToolCall(context.Background(), ToolCallRecord{ToolName: "t"})
	}()
	if !p.mu.TryLock() {
		t.Fatal("the pipeline is left locked")
	}
	p.mu.Unlock()
}

// An assessment that suggests nothing is not counted as shown: Injected
// returns without waiting for the pipeline's lock.
func TestInjectingWhatSuggestsNothingTakesNoLock(t *testing.T) {
	p, _ := newProbed(t, &probe{name: "a"})
	ctx := context.Background()
	_, current := p.AfterToolCall(ctx, ToolCallRecord{ToolName: "t", Success: true})
	done := make(chan struct{})
	p.mu.Lock()
	go func() {
		p.Injected(ctx, *current)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("Injected waits for the pipeline's lock")
	}
	p.mu.Unlock()
	<-done
	if eff := p.Efficacy(); eff.LastShown != 0 || eff.Pending != nil {
		t.Errorf("an assessment that suggests nothing was counted: %+v", eff)
	}
}
