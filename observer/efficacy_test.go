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

func TestStallEfficacyIsWhetherTheRepeatsStop(t *testing.T) {
	ctx := context.Background()
	read := readFile("go.mod", "module x")
	t.Run("repeating through the calls judged is not following", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(times(4, read)...)
		require.NotEmpty(t, h.p.Inject(ctx, 0))
		h.run(times(observer.DefaultEfficacyCalls-1, read)...)
		assert.Empty(t, h.events, "undecided while calls remain to be judged")
		h.run(read)
		assert.Equal(t, []string{"Stall:carried_on@7"}, h.reactions())
	})
	t.Run("a call that breaks the pattern is following", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(times(4, read)...)
		h.p.Inject(ctx, 0)
		h.run(read, readFile("go.sum", "x"))
		assert.Equal(t, []string{"Stall:changed_course@6"}, h.reactions())
	})
	t.Run("an assessment replaced before it is decided is judged on what came", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(times(4, read)...)
		h.p.Inject(ctx, 0)
		h.run(read)
		h.p.Inject(ctx, 0)
		assert.Equal(t, []string{"Stall:carried_on@0"}, h.reactions())
	})
	t.Run("answering without a tool call is wrapping up", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(times(4, read)...)
		h.p.Inject(ctx, 0)
		h.p.ModelResponded(ctx, 0)
		assert.Equal(t, []string{"Stall:wrapped_up@0"}, h.reactions())
		assert.Equal(t, int64(1), h.p.Efficacy().ByObserver["Stall"].Followed())
	})
}

func TestErrorsEfficacyIsWhetherTheFailingCallIsRetriedUnchanged(t *testing.T) {
	ctx := context.Background()
	fail := failed("write_file", `{"path":"/etc/x"}`, "permission denied: /etc/x")
	t.Run("an unchanged retry is not following", func(t *testing.T) {
		h := newHarness(t, cascade.New())
		h.run(times(3, fail)...)
		require.NotEmpty(t, h.p.Inject(ctx, 0))
		// A volatile field changed is still the same call.
		h.run(failed("write_file", `{"path":"/etc/x","request_id":"r-2"}`, "permission denied: /etc/x"))
		assert.Equal(t, []string{"Errors:carried_on@4"}, h.reactions())
	})
	t.Run("changed calls, even failing ones, are following", func(t *testing.T) {
		h := newHarness(t, cascade.New())
		h.run(times(3, fail)...)
		h.p.Inject(ctx, 0)
		h.run(failed("write_file", `{"path":"/tmp/x"}`, "disk full"), readFile("a.go", "1"), readFile("b.go", "2"))
		assert.Equal(t, []string{"Errors:changed_course@4"}, h.reactions())
	})
	t.Run("rerunning the call after changing something is following", func(t *testing.T) {
		h := newHarness(t, cascade.New())
		h.run(times(3, fail)...)
		h.p.Inject(ctx, 0)
		h.run(succeeded("chmod", `{"path":"/etc/x"}`, "ok"), fail)
		assert.Equal(t, []string{"Errors:changed_course@4"}, h.reactions())
	})
}

func TestAnObserverThatIsNoJudgeIsFollowedWhenTheNextCallDiffers(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, noteAt(1))
	h.run(readFile("a.go", "1"))
	h.p.Inject(ctx, 0)
	h.run(readFile("a.go", "1"))
	assert.Equal(t, []string{"Note:carried_on@2"}, h.reactions())
}

func TestEfficacyCountsLiveInTheSession(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, stall.New(), cascade.New())
	h.run(times(4, readFile("go.mod", "x"))...)
	h.p.Inject(ctx, 0)
	h.run(readFile("go.sum", "y"))
	fail := failed("write_file", `{"path":"/etc/x"}`, "permission denied: /etc/x")
	h.run(times(3, fail)...)
	h.p.Inject(ctx, 0)
	h.p.ModelResponded(ctx, 0)
	eff := h.p.Efficacy()
	// Three identical failures are a stall too.
	assert.Equal(t, observer.EfficacyCounts{Shown: 2, ChangedCourse: 1, WrappedUp: 1}, eff.ByObserver["Stall"])
	assert.Equal(t, observer.EfficacyCounts{Shown: 1, WrappedUp: 1}, eff.ByObserver["Errors"])
	assert.Zero(t, eff.ByObserver["Stall"].Unclassified())
	assert.Nil(t, eff.Pending)
	last := h.events[len(h.events)-1]
	assert.Equal(t, int64(8), last.AssessmentCallIndex)
	assert.Equal(t, eff.ByObserver["Errors"], last.Counts)
	stored, _ := session.ValueOf[observer.Efficacy](h.store).Latest()
	assert.Equal(t, eff, stored)
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
	resumed.run(times(observer.DefaultEfficacyCalls, read)...)
	assert.Equal(t, []string{"Stall:carried_on@7"}, resumed.reactions())
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
	var current *observer.CurrentAssessment
	for range observer.DefaultEfficacyCalls {
		_, current = p.AfterToolCall(ctx, readFile("go.mod", "x"))
	}
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
	return observer.Assessment{Summary: "probing", Suggestions: []string{"Go on."}}, nil
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
	require.Equal(t, observer.EfficacyCounts{Shown: 1}, efficacyBefore.ByObserver["Stall"])

	h.p.Inject(ctx, 0)
	h.p.ModelResponded(ctx, 1)
	h.run(read)
	assert.Equal(t, int64(2), statesBefore["Stall"].TotalAssessments, "a value read earlier keeps its contents")
	assert.Equal(t, observer.EfficacyCounts{Shown: 1}, efficacyBefore.ByObserver["Stall"])
	statesAfter, _ := states.Latest()
	efficacyAfter, _ := efficacy.Latest()
	assert.Equal(t, int64(3), statesAfter["Stall"].TotalAssessments)
	assert.Equal(t, observer.EfficacyCounts{Shown: 2, CarriedOn: 1}, efficacyAfter.ByObserver["Stall"])

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

func TestAnAssessmentThatSuggestsNothingIsNotCounted(t *testing.T) {
	h := newHarness(t, &efficacyProbe{})
	h.run(readFile("a", "1"))
	h.p.Injected(context.Background(), observer.CurrentAssessment{CallIndex: 1,
		Assessments: []observer.Assessment{{Observer: "probe", Summary: "Nothing to do."}}})
	h.run(readFile("b", "2"))
	assert.Empty(t, h.p.Efficacy().ByObserver)
	assert.Empty(t, h.events)
}
