package observer_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// The firing path of an observer runs every few calls of an agent's run:
// its texts and parts are taken from arrays shared by many assessments.

func TestResourceAssessWritesItsSummaryOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops what is put in a sync.Pool")
	}
	b := budget.New(budget.Limits{Timeout: time.Hour, MaxTokens: 50_000, MaxToolCalls: 100}, start)
	b.TokensUsed, b.ToolCalls = 20_000, 20
	r := resource.New()
	now := start.Add(10 * time.Minute)
	a := r.Assess(b, now)
	assert.Contains(t, a.Summary, "At this pace", "the budget is meant to need a pace statement")
	allocs := allocsPer(100, func() { r.Assess(b, now) })
	// The suggestions and the budget's list of shortfalls, which takes
	// two; the summary shares a buffer with the summaries that follow it.
	assert.LessOrEqual(t, allocs, 3.1)
}

func TestRenderSharesItsBufferAndAssessmentRenderAllocatesOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops what is put in a sync.Pool")
	}
	current := observer.CurrentAssessment{CallIndex: 1234, Assessments: []observer.Assessment{
		{Observer: "Resources", Severity: observer.Caution, Summary: "You have 5 minutes remaining before the deadline.",
			Suggestions: []string{"Be mindful of remaining resources when planning next steps."}},
		{Observer: "Errors", Severity: observer.Warning, Summary: "3 calls failed in a row.",
			Observations: []observer.Observation{{Category: "error_rate", Description: "All failed.", Evidence: "#1 run_tests\n#2 run_tests"}},
			Suggestions:  []string{"Read the error.", "Try another approach."}},
	}}
	want := current.Render()
	// A block shares a buffer with the blocks rendered after it.
	assert.LessOrEqual(t, allocsPer(100, func() { current.Render() }), 0.2)
	assert.Equal(t, 1.0, allocsPer(100, func() { current.Assessments[1].Render() }))
	assert.Equal(t, want, current.Render())
}

func TestModelRespondedWithOneCallLeavesThePendingReactionAlone(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, stall.New())
	read := readFile("go.mod", "module x")
	h.run(times(4, read)...)
	require.NotEmpty(t, h.p.Inject(ctx, 0))
	pending := h.p.Efficacy().Pending
	require.NotNil(t, pending)
	// The next call settles the reaction whether or not the model said it
	// would make one call: nothing is stored anew.
	assert.Zero(t, allocsPer(10, func() { h.p.ModelResponded(ctx, 1) }))
	assert.Same(t, pending, h.p.Efficacy().Pending)
	h.run(times(observer.DefaultEfficacyCalls, read)...)
	assert.Equal(t, []string{"Stall:carried_on@7"}, h.reactions())
}

func TestObserverStatesAreReplacedNotChanged(t *testing.T) {
	h := newHarness(t, resource.New())
	session.ValueOf[budget.Budget](h.store).Seed(budget.New(budget.Limits{Timeout: time.Hour}, start))
	read := readFile("go.mod", "module x")
	h.run(read)
	states := session.ValueOf[observer.ObserverStates](h.store)
	before, _ := states.Latest()
	require.Equal(t, int64(1), before["Resources"].TotalAssessments)

	h.run(read)
	after, _ := states.Latest()
	assert.Equal(t, int64(2), after["Resources"].TotalAssessments)
	assert.Equal(t, int64(1), before["Resources"].TotalAssessments, "a map read before is left as it was")
	assert.Equal(t, int64(1), before["Resources"].LastAssessmentCallIndex)
}

func TestEfficacyCycleAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops what is put in a sync.Pool")
	}
	ctx := context.Background()
	c := &clock{t: start}
	var last observer.EfficacyEvent
	events := 0
	store := session.New(&session.StoreOptions{Now: c.Now})
	// Nearly spent: the Resource observer speaks at warning, and makes
	// suggestions to follow.
	b := budget.New(budget.Limits{Timeout: time.Hour}, start.Add(-55*time.Minute))
	session.ValueOf[budget.Budget](store).Seed(b)
	p, err := observer.NewPipeline(store,
		[]observer.Spec{{Observer: resource.New(), Trigger: observer.Trigger{OnEveryCall: true}}},
		&observer.PipelineOptions{OnEfficacy: func(_ context.Context, e observer.EfficacyEvent) { last, events = e, events+1 }})
	require.NoError(t, err)
	rec := succeeded("read_file", `{"path":"go.mod"}`, "module x")
	_, current := p.AfterToolCall(ctx, rec)
	allocs := allocsPer(100, func() {
		p.Injected(ctx, *current)
		p.ModelResponded(ctx, 1)
		c.Advance(time.Second)
		_, current = p.AfterToolCall(ctx, rec)
	})
	require.Equal(t, 100, events, "each assessment is judged when the next is shown")
	assert.Equal(t, observer.CarriedOn, last.Reaction, "spending did not slow")
	// Per cycle: the suggestions of a warning. The assessment, its
	// summary and the pending reaction are taken from arrays shared by
	// several cycles. Arguments already in canonical form are not copied.
	assert.LessOrEqual(t, allocs, 1.5)
}

// A detector's quiet call, the one every tool call pays, allocates
// nothing of its own: the call log's chunk, shared by every 256 calls, is
// all that is left.
func TestDetectorsQuietCallsDoNotAllocate(t *testing.T) {
	for _, name := range []string{"Stall", "Errors", "Drift"} {
		t.Run(name, func(t *testing.T) {
			quiet, _ := benchTraces(name)
			store := session.New(&session.StoreOptions{Now: func() time.Time { return start }, Retention: 10_000})
			session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: "Fix the rounding in services/billing."})
			p, err := observer.NewPipeline(store, []observer.Spec{{Observer: benchDetector(name), Trigger: observer.Trigger{OnEveryCall: true}}}, nil)
			require.NoError(t, err)
			ctx := context.Background()
			for _, rec := range quiet[:100] {
				p.AfterToolCall(ctx, rec)
			}
			i := 100
			allocs := allocsPer(200, func() {
				_, current := p.AfterToolCall(ctx, quiet[i%len(quiet)])
				require.Nil(t, current)
				i++
			})
			assert.Less(t, allocs, 0.5)
		})
	}
}

func TestRenderWithoutASummaryEndsWithOneNewline(t *testing.T) {
	for name, a := range map[string]observer.Assessment{
		"nothing but a name": {Observer: "A"},
		"observations only":  {Observer: "A", Observations: []observer.Observation{{Category: "c", Description: "d"}}},
		"suggestions only":   {Observer: "A", Suggestions: []string{"s"}},
	} {
		current := observer.CurrentAssessment{CallIndex: 1, Assessments: []observer.Assessment{a}}
		got := current.Render()
		assert.True(t, strings.HasSuffix(got, "\n") && !strings.HasSuffix(got, "\n\n"), "%s: %q", name, got)
		assert.NotContains(t, got, "\n\n\n", name)
	}
	assert.Equal(t, "### A [info]\n\n**c**: d",
		observer.Assessment{Observer: "A", Observations: []observer.Observation{{Category: "c", Description: "d"}}}.Render())
}

// steady is an observer whose assessment takes no allocation of its own,
// and which leaves the agent's reaction to it undecided until the last
// call judged.
type steady struct {
	name  string
	quiet bool // declines to run
}

func (s *steady) Name() string                                      { return s.name }
func (s *steady) ShouldRun(context.Context, *observer.Context) bool { return !s.quiet }
func (s *steady) Observe(context.Context, *observer.Context) (observer.Assessment, error) {
	return observer.Assessment{Summary: "steady", Suggestions: steadySuggestions}, nil
}
func (s *steady) Judge(_ context.Context, _ *observer.Context, _ observer.Shown, final bool) (followed, decided bool) {
	return false, final
}

var steadySuggestions = []string{"Keep going."}

func TestANewAssessmentIsOneAllocationWhateverTheNumberOfObservers(t *testing.T) {
	for n := 1; n <= 4; n++ {
		specs := make([]observer.Spec, n)
		for i := range specs {
			specs[i] = observer.Spec{Observer: &steady{name: string(rune('A' + i))}, Trigger: observer.Trigger{OnEveryCall: true}}
		}
		p, _ := newPipeline(t, specs...)
		ctx := context.Background()
		p.AfterToolCall(ctx, ok())
		var current *observer.CurrentAssessment
		allocs := allocsPer(128, func() { _, current = p.AfterToolCall(ctx, ok()) })
		require.Len(t, current.Assessments, n)
		// The assessments come from arrays of several; what is left is
		// the call log's and the history's chunks, one per 64 entries each.
		assert.LessOrEqual(t, allocs, 0.3, "%d observers", n)
	}
}

func TestAReactionStillUndecidedIsStoredInOneAllocation(t *testing.T) {
	ctx := context.Background()
	o := &steady{name: "A"}
	c := &clock{t: start}
	p, err := observer.NewPipeline(session.New(&session.StoreOptions{Now: c.Now}),
		[]observer.Spec{{Observer: o, Trigger: observer.Trigger{OnEveryCall: true}}},
		&observer.PipelineOptions{EfficacyCalls: observer.MaxTriggerCalls})
	require.NoError(t, err)
	_, current := p.AfterToolCall(ctx, ok())
	p.Injected(ctx, *current)
	o.quiet = true
	calls, fired := 0, false
	allocs := allocsPer(128, func() {
		_, current := p.AfterToolCall(ctx, ok())
		fired = fired || current != nil
		calls++
	})
	require.False(t, fired)
	pending := p.Efficacy().Pending
	require.NotNil(t, pending, "the observer has not decided")
	assert.Equal(t, calls, pending.Calls)
	assert.Equal(t, []observer.Rating{{Observer: "A", Severity: observer.Info}}, pending.Observers)
	// The pending reaction counting one more call, taken from an array of
	// several, and the call log's chunk, one per 64 calls.
	assert.LessOrEqual(t, allocs, 0.2)
}

func TestAShownAssessmentsPendingReactionIsOneAllocationOverTheCallsJudged(t *testing.T) {
	ctx := context.Background()
	o := &steady{name: "A", quiet: true}
	p, _ := newPipeline(t, observer.Spec{Observer: o, Trigger: observer.Trigger{OnEveryCall: true}})
	shown := observer.CurrentAssessment{Assessments: []observer.Assessment{{Observer: "A", Summary: "steady", Suggestions: steadySuggestions}}}
	p.AfterToolCall(ctx, ok())
	efficacy := session.ValueOf[observer.Efficacy](p.Store())
	versions := make([]*observer.PendingReaction, 0, observer.DefaultEfficacyCalls)
	// Read, unlike Efficacy, copies nothing.
	pending := func(e observer.Efficacy, _ bool) { versions = append(versions, e.Pending) }
	allocs := allocsPer(128, func() {
		shown.CallIndex++
		p.Injected(ctx, shown)
		versions = versions[:0]
		efficacy.Read(pending)
		// The calls judged but the last leave the observer undecided:
		// each stores a new version of the pending reaction.
		for range observer.DefaultEfficacyCalls - 1 {
			p.AfterToolCall(ctx, ok())
			shown.CallIndex++
			efficacy.Read(pending)
		}
	})
	require.Len(t, versions, observer.DefaultEfficacyCalls)
	for i, v := range versions {
		require.NotNil(t, v)
		assert.Equal(t, i, v.Calls, "each version is one of its own, left as it was stored")
	}
	// The versions of the pending reaction, taken from arrays of several,
	// and the call log's chunk, one per 64 calls.
	assert.LessOrEqual(t, allocs, 0.5)
}

// A detector that speaks on a call allocates its assessment and nothing
// else: the block that holds it, its texts, and its observation with its
// suggestions, each taken from an array or buffer shared by several
// assessments, and the call log's and the history's chunks, one per 64
// entries each.
func TestDetectorsFiringCallsAllocateTheirAssessmentOnly(t *testing.T) {
	for _, name := range []string{"Stall", "Errors", "Drift"} {
		t.Run(name, func(t *testing.T) {
			_, firing := benchTraces(name)
			store := session.New(&session.StoreOptions{Now: func() time.Time { return start }, Retention: 10_000})
			session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: "Fix the rounding in services/billing."})
			p, err := observer.NewPipeline(store, []observer.Spec{{Observer: benchDetector(name), Trigger: observer.Trigger{OnEveryCall: true}}}, nil)
			require.NoError(t, err)
			ctx := context.Background()
			for _, rec := range firing[:100] {
				p.AfterToolCall(ctx, rec)
			}
			i, quiet := 100, 0
			allocs := allocsPer(200, func() {
				if _, current := p.AfterToolCall(ctx, firing[i%len(firing)]); current == nil {
					quiet++
				}
				i++
			})
			require.Zero(t, quiet, "the detector speaks on every call")
			assert.LessOrEqual(t, allocs, 0.4)
		})
	}
}

// The four built-in observers on every call, per iteration of an agent:
// on one that repeats a call, the assessment of Resources and Stall, the
// block holding them, and the reaction awaited once it is shown; on one
// that makes progress, the assessment of Resources and its block. Each is
// taken from an array or buffer shared by several iterations.
func TestBuiltinsOnEveryCallAllocateTheirAssessmentsOnly(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops what is put in a sync.Pool")
	}
	quiet, _ := benchTraces("Drift")
	for _, c := range []struct {
		name  string
		calls []observer.ToolCallRecord
		want  float64
	}{
		{"repeating", []observer.ToolCallRecord{{ToolName: "noop", ParamsSummary: "{}", Arguments: "{}", Result: "noop ok {}", Success: true}}, 0.6},
		{"progress", quiet, 0.2},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newBuiltinsAgent(t, c.calls)
			ctx := context.Background()
			for range 100 {
				a.iterate(ctx)
			}
			a.fired = 0
			allocs := allocsPer(200, func() { a.iterate(ctx) })
			require.Equal(t, 201, a.fired, "an observer speaks on every call")
			assert.LessOrEqual(t, allocs, c.want+0.05)
		})
	}
}

// A session's first check builds each detector's working state: a few
// allocations, its maps and its ring of calls, and none per resource key
// already folded, as the defaults are; the default rules for results and
// error messages are compiled once per process, not per session.
func TestDetectorsWorkingStateTakesAFewAllocations(t *testing.T) {
	for _, c := range []struct {
		d    observer.Incremental
		most float64
	}{{stall.New(), 7}, {cascade.New(), 3}, {drift.New(), 7}} {
		allocs := allocsPer(20, func() { c.d.NewCallState() })
		assert.LessOrEqual(t, allocs, c.most, c.d.Name())
	}
}

// allocsPer returns the allocations of a run of f, averaged over runs
// runs after a first one, as testing.AllocsPerRun does but without
// rounding down: a value taken from an array allocated for many runs
// counts as the fraction it is.
func allocsPer(runs int, f func()) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(runs)
}

// A pipeline is made with one allocation for its observers, however many
// there are: besides it, the pipeline itself, its scratch indices and its
// canonicalizer, and the eight session slices it opens on a new store.
// The store's clock is called directly, not kept as a method value.
func TestNewPipelineAllocatesItsObserversTogether(t *testing.T) {
	specs := []observer.Spec{
		{Observer: resource.New(), Trigger: observer.Trigger{OnEveryCall: true}},
		{Observer: stall.New(), Trigger: observer.Trigger{OnEveryCall: true}},
		{Observer: cascade.New(), Trigger: observer.Trigger{OnEveryCall: true}},
		{Observer: drift.New(), Trigger: observer.Trigger{OnEveryCall: true}},
	}
	const runs = 100
	stores := make([]*session.Store, runs+1)
	for i := range stores {
		stores[i] = session.New(nil)
	}
	next := 0
	allocs := allocsPer(runs, func() {
		if _, err := observer.NewPipeline(stores[next], specs, nil); err != nil {
			t.Fatal(err)
		}
		next++
	})
	// Now and then the runtime allocates for itself during the runs.
	assert.LessOrEqual(t, allocs, 12.5)
}
