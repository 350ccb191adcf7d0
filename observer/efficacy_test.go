package observer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// reactions lists the efficacy events as "observer:reaction@call".
func (h *harness) reactions() []string {
	var out []string
	for _, e := range h.events {
		out = append(out, fmt.Sprintf("%s:%s@%d", e.Observer, e.Reaction, e.CallIndex))
	}
	return out
}

func TestEfficacyInAScriptedRun(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, stall.New(), cascade.New())
	read := readFile("go.mod", "module x")

	// Calls 1-4 repeat; Stall reports after call 4. The model is shown it,
	// answers with one call, and repeats itself: it carried on.
	h.run(times(4, read)...)
	require.NotEmpty(t, h.p.Inject(ctx, 0))
	h.p.ModelResponded(ctx, 1)
	h.run(read)
	assert.Equal(t, []string{"Stall:carried_on@5"}, h.reactions())

	// Stall reports again after call 5. This time the model changes course.
	require.NotEmpty(t, h.p.Inject(ctx, 0))
	h.p.ModelResponded(ctx, 1)
	h.run(readFile("go.sum", "x"))
	assert.Equal(t, "Stall:changed_course@6", h.reactions()[1])

	// The agent moved on: Stall's section was withdrawn, and nothing is
	// injected into the next model call.
	assert.Empty(t, h.p.Inject(ctx, 0))
	h.p.ModelResponded(ctx, 1)
	h.run(failed("write_file", `{"path":"/etc/x"}`, "permission denied: /etc/x"))
	h.run(times(2, failed("write_file", `{"path":"/etc/x"}`, "permission denied: /etc/x"))...)
	assert.Len(t, h.events, 2)

	// After call 9 both detectors report; the model answers without a
	// tool call: it wrapped up.
	require.NotEmpty(t, h.p.Inject(ctx, 0))
	h.p.ModelResponded(ctx, 0)
	assert.Equal(t, []string{"Stall:carried_on@5", "Stall:changed_course@6", "Stall:wrapped_up@0", "Errors:wrapped_up@0"}, h.reactions())

	eff := h.p.Efficacy()
	assert.Equal(t, observer.EfficacyCounts{Shown: 3, ChangedCourse: 1, WrappedUp: 1, CarriedOn: 1}, eff.ByObserver["Stall"])
	assert.Equal(t, observer.EfficacyCounts{Shown: 1, WrappedUp: 1}, eff.ByObserver["Errors"])
	assert.Equal(t, int64(2), eff.ByObserver["Stall"].Followed())
	assert.Equal(t, int64(0), eff.ByObserver["Stall"].Unclassified())
	assert.Nil(t, eff.Pending)

	last := h.events[3]
	assert.Equal(t, observer.Caution, last.Severity)
	assert.Equal(t, int64(9), last.AssessmentCallIndex)
	assert.Equal(t, eff.ByObserver["Errors"], last.Counts)

	stored, _ := session.ValueOf[observer.Efficacy](h.store).Latest()
	assert.Equal(t, eff, stored, "the counts live in the session")
}

func TestEfficacyWithoutModelRespondedUsesTheFirstCall(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, stall.New())
	h.run(times(4, readFile("go.mod", "x"))...)
	h.p.Inject(ctx, 0)
	// The same call, with a volatile field changed, is still the same call.
	h.run(succeeded("read_file", `{"path":"go.mod","request_id":"r-2"}`, "x"))
	assert.Equal(t, []string{"Stall:carried_on@5"}, h.reactions())
}

func TestEfficacyWaitsForAllCallsOfAResponse(t *testing.T) {
	ctx := context.Background()
	read := readFile("go.mod", "x")
	t.Run("any call repeating the last one means it carried on", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(times(4, read)...)
		h.p.Inject(ctx, 0)
		h.p.ModelResponded(ctx, 3)
		h.run(readFile("a.go", "1"), readFile("b.go", "2"))
		assert.Empty(t, h.events, "one call of the response is still running")
		h.run(read)
		assert.Equal(t, []string{"Stall:carried_on@7"}, h.reactions())
	})
	t.Run("all calls different means it changed course", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(times(4, read)...)
		h.p.Inject(ctx, 0)
		h.p.ModelResponded(ctx, 2)
		h.run(readFile("a.go", "1"), readFile("b.go", "2"))
		assert.Equal(t, []string{"Stall:changed_course@6"}, h.reactions())
	})
	t.Run("a response whose calls never all complete is settled by the next", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(times(4, read)...)
		h.p.Inject(ctx, 0)
		h.p.ModelResponded(ctx, 2)
		h.run(readFile("a.go", "1"))
		h.p.ModelResponded(ctx, 0)
		assert.Equal(t, []string{"Stall:changed_course@0"}, h.reactions())
	})
}

func TestEfficacyPendingSurvivesASnapshot(t *testing.T) {
	ctx := context.Background()
	read := readFile("go.mod", "x")
	h := newHarness(t, stall.New())
	h.run(times(4, read)...)
	h.p.Inject(ctx, 0)
	snap, err := h.store.Snapshot()
	require.NoError(t, err)

	resumed := newHarness(t, stall.New())
	require.NoError(t, resumed.store.Restore(snap))
	resumed.run(read)
	assert.Equal(t, []string{"Stall:carried_on@5"}, resumed.reactions())
	assert.Equal(t, observer.EfficacyCounts{Shown: 1, CarriedOn: 1}, resumed.p.Efficacy().ByObserver["Stall"])
}

func TestNothingIsCountedWhenNothingIsShown(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, &stall.Detector{Repeats: 2})
	h.run(times(2, readFile("go.mod", "x"))...)
	for i := range observer.DefaultMaxAgeCalls + 1 {
		h.run(readFile(fmt.Sprintf("f%d.go", i), "y"))
	}
	assert.Empty(t, h.p.Inject(ctx, 0), "the assessment of call 2 is stale")
	h.p.Injected(ctx, observer.CurrentAssessment{CallIndex: 99})
	h.p.ModelResponded(ctx, 0)
	h.p.ModelResponded(ctx, -1)
	assert.Empty(t, h.events)
	assert.Empty(t, h.p.Efficacy().ByObserver)
}

func TestInjectReturnsWhatBuildContextDoes(t *testing.T) {
	h := newHarness(t, stall.New())
	h.run(times(4, readFile("go.mod", "x"))...)
	assert.Equal(t, observer.BuildContext(h.store, 0), h.p.Inject(context.Background(), 0))
}

func TestAPanickingEfficacyHookIsIsolated(t *testing.T) {
	var reported []error
	store := session.New(&session.StoreOptions{Now: (&clock{t: start}).Now})
	p, err := observer.NewPipeline(store, []observer.Spec{{Observer: stall.New(), Trigger: observer.Trigger{OnEveryCall: true}}},
		&observer.PipelineOptions{
			OnError:    func(_ context.Context, err error) { reported = append(reported, err) },
			OnEfficacy: func(context.Context, observer.EfficacyEvent) { panic("sink closed") },
		})
	require.NoError(t, err)
	ctx := context.Background()
	for range 4 {
		p.AfterToolCall(ctx, readFile("go.mod", "x"))
	}
	p.Inject(ctx, 0)
	_, current := p.AfterToolCall(ctx, readFile("go.mod", "x"))
	assert.NotNil(t, current, "the observers still ran")
	require.Len(t, reported, 1)
	assert.ErrorIs(t, reported[0], observer.ErrPanicked)
	assert.Equal(t, int64(1), p.Efficacy().ByObserver["Stall"].CarriedOn, "the count was kept")
}

// efficacyProbe reads the efficacy counts from inside an observer.
type efficacyProbe struct{ seen []observer.EfficacyCounts }

func (e *efficacyProbe) Name() string                                      { return "probe" }
func (e *efficacyProbe) ShouldRun(context.Context, *observer.Context) bool { return true }
func (e *efficacyProbe) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	e.seen = append(e.seen, oc.Efficacy("probe"))
	return observer.Assessment{Summary: "probing"}, nil
}

func TestObserversSeeTheirEfficacy(t *testing.T) {
	probe := &efficacyProbe{}
	h := newHarness(t, probe)
	ctx := context.Background()
	h.run(readFile("a", "1"))
	h.p.Inject(ctx, 0)
	h.run(readFile("b", "2"))
	assert.Equal(t, observer.EfficacyCounts{Shown: 1, ChangedCourse: 1}, probe.seen[1], "the reaction is settled before the observers run")
}

func TestReactionText(t *testing.T) {
	for _, r := range []observer.Reaction{0, observer.ChangedCourse, observer.WrappedUp, observer.CarriedOn} {
		b, err := r.MarshalText()
		require.NoError(t, err)
		var back observer.Reaction
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, r, back)
	}
	_, err := observer.Reaction(7).MarshalText()
	assert.Error(t, err)
	assert.Equal(t, "reaction(7)", observer.Reaction(7).String())
	var r observer.Reaction
	assert.Error(t, r.UnmarshalText([]byte("ignored")))
}

func TestSessionReadersHoldCopiesThePipelineDoesNotChange(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, stall.New())
	states := session.ValueOf[observer.ObserverStates](h.p.Store())
	efficacy := session.ValueOf[observer.Efficacy](h.p.Store())
	read := readFile("go.mod", "module x")

	h.run(times(4, read)...)
	h.p.Inject(ctx, 0)
	h.p.ModelResponded(ctx, 1)
	h.run(read)
	statesBefore, _ := states.Latest()
	efficacyBefore, _ := efficacy.Latest()
	require.Equal(t, int64(2), statesBefore["Stall"].TotalAssessments)
	require.Equal(t, observer.EfficacyCounts{Shown: 1, CarriedOn: 1}, efficacyBefore.ByObserver["Stall"])

	h.p.Inject(ctx, 0)
	h.p.ModelResponded(ctx, 1)
	h.run(read)
	assert.Equal(t, int64(2), statesBefore["Stall"].TotalAssessments, "a value read earlier keeps its contents")
	assert.Equal(t, observer.EfficacyCounts{Shown: 1, CarriedOn: 1}, efficacyBefore.ByObserver["Stall"])
	statesAfter, _ := states.Latest()
	efficacyAfter, _ := efficacy.Latest()
	assert.Equal(t, int64(3), statesAfter["Stall"].TotalAssessments)
	assert.Equal(t, observer.EfficacyCounts{Shown: 2, CarriedOn: 2}, efficacyAfter.ByObserver["Stall"])

	// Readers on another goroutine iterate what they read while the
	// pipeline goes on updating the session; -race checks that they share
	// nothing.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			s, _ := states.Latest()
			e, _ := efficacy.Latest()
			for range s {
			}
			for range e.ByObserver {
			}
		}
	}()
	for range 200 {
		h.p.Inject(ctx, 0)
		h.p.ModelResponded(ctx, 1)
		h.run(read)
	}
	<-done
}
