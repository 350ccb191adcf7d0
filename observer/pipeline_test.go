package observer_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/session"
)

// counting is an observer that records the calls it ran after.
type counting struct {
	name    string
	ranAt   []int64
	decline bool
}

func (c *counting) Name() string { return c.name }
func (c *counting) ShouldRun(context.Context, *observer.Context) bool {
	return !c.decline
}
func (c *counting) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	c.ranAt = append(c.ranAt, oc.CallIndex)
	return observer.Assessment{Summary: "seen"}, nil
}

type clock struct{ t time.Time }

func (c *clock) Now() time.Time          { return c.t }
func (c *clock) Advance(d time.Duration) { c.t = c.t.Add(d) }

func newPipeline(t *testing.T, configs ...observer.Spec) (*observer.Pipeline, *clock) {
	t.Helper()
	c := &clock{t: start}
	store := session.New(&session.StoreOptions{Now: c.Now})
	p, err := observer.NewPipeline(store, configs, &observer.PipelineOptions{
		OnError: func(context.Context, error) {},
	})
	require.NoError(t, err)
	return p, c
}

func ok() observer.ToolCallRecord { return observer.ToolCallRecord{ToolName: "read", Success: true} }
func fail() observer.ToolCallRecord {
	return observer.ToolCallRecord{ToolName: "write", ErrorMessage: "denied"}
}

func TestEachTriggerAloneAndOred(t *testing.T) {
	// Each case feeds a sequence of calls: 'o' succeeds, 'x' fails, and
	// '+' advances the clock a minute before the next call.
	tests := []struct {
		name    string
		trigger observer.Trigger
		calls   string
		want    []int64
	}{
		{"every 3 calls", observer.Trigger{EveryNCalls: 3}, "oooooooo", []int64{3, 6}},
		{"every call", observer.Trigger{OnEveryCall: true}, "oxo", []int64{1, 2, 3}},
		{"after 3 consecutive errors", observer.Trigger{AfterConsecutiveErrors: 3}, "xxoxxxo", []int64{6}},
		{"a long failure streak fires every N", observer.Trigger{AfterConsecutiveErrors: 2}, "xxxxxxx", []int64{2, 4, 6}},
		{"every interval", observer.Trigger{EveryInterval: 2 * time.Minute}, "o+o+o+o+oo", []int64{3, 5}},
		{"every 4 calls OR after 2 errors", observer.Trigger{EveryNCalls: 4, AfterConsecutiveErrors: 2}, "oxxoooooo", []int64{3, 7}},
		{"every 5 calls OR every 2 minutes", observer.Trigger{EveryNCalls: 5, EveryInterval: 2 * time.Minute}, "o+o+oooooo", []int64{3, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &counting{name: "probe"}
			p, c := newPipeline(t, observer.Spec{Observer: o, Trigger: tt.trigger})
			for _, ch := range tt.calls {
				switch ch {
				case '+':
					c.Advance(time.Minute)
				case 'o':
					p.AfterToolCall(context.Background(), ok())
				case 'x':
					p.AfterToolCall(context.Background(), fail())
				}
			}
			assert.Equal(t, tt.want, o.ranAt)
		})
	}
}

func TestTriggerStateIsPerObserver(t *testing.T) {
	every15 := &counting{name: "every-15"}
	every1 := &counting{name: "every-1"}
	p, _ := newPipeline(t,
		observer.Spec{Observer: every15, Trigger: observer.Trigger{EveryNCalls: 15}},
		observer.Spec{Observer: every1, Trigger: observer.Trigger{EveryNCalls: 1}},
	)
	for range 60 {
		p.AfterToolCall(context.Background(), ok())
	}
	assert.Equal(t, []int64{15, 30, 45, 60}, every15.ranAt)
	assert.Len(t, every1.ranAt, 60)
}

func TestTheCallsTimestampIsTheTimeTheObserversSee(t *testing.T) {
	every := &counting{name: "every"}
	p, c := newPipeline(t,
		observer.Spec{Observer: every, Trigger: observer.Trigger{EveryNCalls: 1}},
		observer.Spec{Observer: &counting{name: "hourly"}, Trigger: observer.Trigger{EveryInterval: time.Hour}},
	)
	ended := start.Add(2 * time.Hour)
	rec := ok()
	rec.Timestamp = ended
	got, current := p.AfterToolCall(context.Background(), rec)
	assert.Equal(t, ended, got.Timestamp)
	require.NotNil(t, current)
	assert.Equal(t, ended, current.GeneratedAt, "the observers ran as of the call's end, not the pipeline's clock")
	assert.Len(t, current.Assessments, 2, "an interval trigger measures from the call's end")

	got, current = p.AfterToolCall(context.Background(), ok())
	assert.Equal(t, c.Now(), got.Timestamp, "a zero timestamp is the pipeline's clock")
	assert.Equal(t, c.Now(), current.GeneratedAt)
}

func TestADecliningObserverIsAskedAgainNextCall(t *testing.T) {
	o := &counting{name: "shy", decline: true}
	p, _ := newPipeline(t, observer.Spec{Observer: o, Trigger: observer.Trigger{EveryNCalls: 2}})
	for range 3 {
		_, current := p.AfterToolCall(context.Background(), ok())
		assert.Nil(t, current)
	}
	o.decline = false
	p.AfterToolCall(context.Background(), ok())
	assert.Equal(t, []int64{4}, o.ranAt)
}

func TestAssessmentsOfOneCallAreMergedInConfigOrder(t *testing.T) {
	p, _ := newPipeline(t,
		observer.Spec{Observer: &counting{name: "first"}, Trigger: observer.Trigger{EveryNCalls: 2}},
		observer.Spec{Observer: &counting{name: "second"}, Trigger: observer.Trigger{OnEveryCall: true}},
	)
	_, current := p.AfterToolCall(context.Background(), ok())
	require.NotNil(t, current)
	assert.Equal(t, []string{"second"}, observerNames(current))
	_, current = p.AfterToolCall(context.Background(), ok())
	assert.Equal(t, []string{"first", "second"}, observerNames(current))
	assert.Equal(t, int64(2), current.CallIndex)

	latest, _ := session.ValueOf[observer.CurrentAssessment](p.Store()).Latest()
	assert.Equal(t, *current, latest, "the new assessment replaces the old in the session")
}

func observerNames(c *observer.CurrentAssessment) []string {
	var names []string
	for _, a := range c.Assessments {
		names = append(names, a.Observer)
	}
	return names
}

func TestStalenessIsMeasuredAgainstTheCurrentCallIndex(t *testing.T) {
	o := &counting{name: "once"}
	p, _ := newPipeline(t, observer.Spec{Observer: o, Trigger: observer.Trigger{EveryNCalls: 1000}})
	current := observer.CurrentAssessment{Assessments: []observer.Assessment{{Observer: "once", Summary: "hi"}}, CallIndex: 5}
	session.ValueOf[observer.CurrentAssessment](p.Store()).Seed(current)

	tests := []struct {
		name   string
		calls  int
		maxAge int
		fresh  bool
	}{
		{"fresh right after it was made", 5, 3, true},
		{"fresh at exactly max age", 8, 3, true},
		{"stale one call past max age", 9, 3, false},
		{"the default max age is 20 calls", 25, 0, true},
		{"stale past the default", 26, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for p.Store() != nil && session.LogOf[observer.ToolCallRecord](p.Store()).Total() < int64(tt.calls) {
				p.AfterToolCall(context.Background(), ok())
			}
			block := observer.BuildContext(p.Store(), tt.maxAge)
			assert.Equal(t, tt.fresh, block != "", "block: %q", block)
			assert.Equal(t, !tt.fresh, current.IsStale(int64(tt.calls), tt.maxAge))
		})
	}
}

type panicking struct{ in string }

func (p panicking) Name() string { return "Fragile" }
func (p panicking) ShouldRun(context.Context, *observer.Context) bool {
	if p.in == "should_run" {
		panic("nil map")
	}
	return true
}
func (p panicking) Observe(context.Context, *observer.Context) (observer.Assessment, error) {
	switch p.in {
	case "observe":
		panic("index out of range")
	case "error":
		return observer.Assessment{}, errors.New("database unavailable")
	}
	return observer.Assessment{}, nil
}

func TestAFailingObserverIsIsolated(t *testing.T) {
	for _, in := range []string{"should_run", "observe", "error"} {
		t.Run("it survives a failure in "+in, func(t *testing.T) {
			var reported []error
			store := session.New(&session.StoreOptions{Now: (&clock{t: start}).Now})
			healthy := &counting{name: "Healthy"}
			p, err := observer.NewPipeline(store, []observer.Spec{
				{Observer: panicking{in: in}, Trigger: observer.Trigger{OnEveryCall: true}},
				{Observer: healthy, Trigger: observer.Trigger{OnEveryCall: true}},
			}, &observer.PipelineOptions{OnError: func(_ context.Context, err error) { reported = append(reported, err) }})
			require.NoError(t, err)

			_, current := p.AfterToolCall(context.Background(), ok())
			require.NotNil(t, current)
			require.Len(t, current.Assessments, 2, "the other observer still ran")
			failed := current.Assessments[0]
			assert.Equal(t, "Fragile", failed.Observer)
			require.Len(t, failed.Observations, 1)
			assert.Equal(t, observer.CategoryObserverError, failed.Observations[0].Category)
			assert.Equal(t, []int64{1}, healthy.ranAt)

			require.Len(t, reported, 1)
			var oe *observer.Error
			require.ErrorAs(t, reported[0], &oe)
			assert.Equal(t, "Fragile", oe.Observer)
			if in != "error" {
				assert.ErrorIs(t, reported[0], observer.ErrPanicked)
			}
			assert.Contains(t, current.Render(), "**observer_error**: observer \"Fragile\"")
		})
	}
}

func TestConcurrentCallsGetDenseUniqueIndices(t *testing.T) {
	const goroutines, each = 64, 1_000
	o := &counting{name: "every-100"}
	p, _ := newPipeline(t, observer.Spec{Observer: o, Trigger: observer.Trigger{EveryNCalls: 100}})
	var wg sync.WaitGroup
	indices := make([][]int64, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				rec := ok()
				if i%7 == 0 {
					rec = fail()
				}
				got, _ := p.AfterToolCall(context.Background(), rec)
				indices[g] = append(indices[g], got.CallIndex)
			}
		}()
	}
	wg.Wait()
	seen := make([]bool, goroutines*each+1)
	for _, list := range indices {
		for _, idx := range list {
			require.True(t, idx >= 1 && idx <= goroutines*each, "index %d out of range", idx)
			require.False(t, seen[idx], "index %d assigned twice", idx)
			seen[idx] = true
		}
	}
	for idx := 1; idx <= goroutines*each; idx++ {
		require.True(t, seen[idx], "index %d missing", idx)
	}
	assert.Len(t, o.ranAt, goroutines*each/100)
	tally, _ := session.ValueOf[observer.Tally](p.Store()).Latest()
	assert.Equal(t, int64(goroutines*each), tally.Calls)
	assert.Equal(t, int64(goroutines*143), tally.Failures)
}

func TestNewPipelineRejectsBadConfigs(t *testing.T) {
	tests := []struct {
		name    string
		configs []observer.Spec
		msg     string
	}{
		{"a nil observer", []observer.Spec{{Trigger: observer.Trigger{OnEveryCall: true}}}, "nil observer"},
		{"a trigger that never fires", []observer.Spec{{Observer: &counting{name: "a"}}}, "never fires"},
		{"a negative trigger", []observer.Spec{{Observer: &counting{name: "a"}, Trigger: observer.Trigger{EveryNCalls: -1}}}, "negative"},
		{"an empty name", []observer.Spec{{Observer: &counting{}, Trigger: observer.Trigger{OnEveryCall: true}}}, "empty name"},
		{"a duplicate name", []observer.Spec{
			{Observer: &counting{name: "a"}, Trigger: observer.Trigger{OnEveryCall: true}},
			{Observer: &counting{name: "a"}, Trigger: observer.Trigger{OnEveryCall: true}},
		}, "used twice"},
	}
	for _, tt := range tests {
		t.Run("it rejects "+tt.name, func(t *testing.T) {
			_, err := observer.NewPipeline(session.New(nil), tt.configs, nil)
			require.ErrorIs(t, err, observer.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
	_, err := observer.NewPipeline(nil, nil, nil)
	assert.ErrorIs(t, err, observer.ErrInvalidConfig)
}

func TestContextHelpers(t *testing.T) {
	var seen *observer.Context
	probe := observerFunc(func(oc *observer.Context) { seen = oc })
	p, c := newPipeline(t, observer.Spec{Observer: probe, Trigger: observer.Trigger{EveryNCalls: 6}})
	for i, ch := range "ooxoxx" {
		if i == 3 {
			c.Advance(time.Minute)
		}
		if ch == 'o' {
			p.AfterToolCall(context.Background(), ok())
		} else {
			p.AfterToolCall(context.Background(), fail())
		}
	}
	require.NotNil(t, seen)
	assert.Equal(t, int64(6), seen.CallIndex)
	assert.Equal(t, int64(2), seen.ConsecutiveErrors())
	assert.InDelta(t, 0.75, seen.ErrorRate(4), 1e-9)
	assert.InDelta(t, 0.5, seen.ErrorRate(100), 1e-9)
	assert.Len(t, seen.RecentCalls(2), 2)
	assert.Len(t, seen.CallsSince(start.Add(time.Minute)), 3)
	_, hasBudget := seen.Budget()
	assert.False(t, hasBudget)
}

type observerFunc func(*observer.Context)

func (f observerFunc) Name() string                                      { return "func" }
func (f observerFunc) ShouldRun(context.Context, *observer.Context) bool { return true }
func (f observerFunc) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	f(oc)
	return observer.Assessment{}, nil
}

func TestSeverityText(t *testing.T) {
	for _, s := range []observer.Severity{observer.Info, observer.Caution, observer.Warning} {
		b, err := s.MarshalText()
		require.NoError(t, err)
		var back observer.Severity
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, s, back)
	}
	assert.True(t, observer.Info < observer.Caution && observer.Caution < observer.Warning)
	_, err := observer.ParseSeverity("fatal")
	assert.Error(t, err)
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second:            "1 second",
		45 * time.Second:       "45 seconds",
		time.Minute:            "1 minute",
		59 * time.Minute:       "59 minutes",
		90 * time.Minute:       "1.5 hours",
		36 * time.Hour:         "1.5 days",
		500 * time.Millisecond: "0 seconds",
	} {
		assert.Equal(t, want, observer.FormatDuration(d))
	}
}

func TestFormatCount(t *testing.T) {
	for n, want := range map[int64]string{
		0:        "0",
		999:      "999",
		1000:     "1,000",
		50000:    "50,000",
		1234567:  "1,234,567",
		-4805:    "-4,805",
		1 << 40:  "1,099,511,627,776",
		-1000000: "-1,000,000",
		100000:   "100,000",
		12:       "12",
	} {
		assert.Equal(t, want, observer.FormatCount(n))
	}
}

func TestResourceExhaustedStatements(t *testing.T) {
	r := resource.New()
	now := start.Add(time.Hour)
	b := budgetAt(30*time.Minute, 1000, 10)
	b.TokensUsed, b.ToolCalls = 1000, 10
	a := r.Assess(b, now)
	assert.Equal(t, observer.Warning, a.Severity)
	assert.Equal(t, "You have reached the time deadline. You have exhausted your token budget. You have exhausted your tool call budget.", a.Summary)
	assert.True(t, strings.HasPrefix(a.Suggestions[0], "Prioritize"))
}

func TestResourceThresholdsAreConfigurable(t *testing.T) {
	b := budgetAt(0, 1000, 0)
	b.TokensUsed = 500
	assert.Equal(t, observer.Info, resource.New().Assess(b, start).Severity)
	assert.Equal(t, observer.Caution, (&resource.Observer{CautionAt: 0.5}).Assess(b, start).Severity)
	assert.Equal(t, observer.Warning, (&resource.Observer{WarningAt: 0.5}).Assess(b, start).Severity)
}

func TestPaceCanBeTurnedOff(t *testing.T) {
	b := budgetAt(time.Hour, 50_000, 0)
	b.TokensUsed, b.ToolCalls = 20_000, 20
	a := (&resource.Observer{MinPaceCalls: -1}).Assess(b, start.Add(10*time.Minute))
	assert.Equal(t, observer.Info, a.Severity)
	assert.NotContains(t, a.Summary, "pace")
}

func TestResourceSaysOneCallInTheSingular(t *testing.T) {
	b := budgetAt(0, 0, 10)
	b.ToolCalls = 9
	assert.Contains(t, resource.New().Assess(b, start).Summary, "You have made 9 of 10 allowed tool calls. 1 call remaining.")
}

// Rounding must not contradict the statement it is part of: tokens left
// are not "100% of budget" used, and time left is not "0 seconds".
func TestResourceNeverRoundsARemainderAway(t *testing.T) {
	b := budgetAt(30*time.Minute, 50_000, 0)
	b.TokensUsed = 49_800
	a := (&resource.Observer{MinPaceCalls: -1}).Assess(b, start.Add(30*time.Minute-400*time.Millisecond))
	assert.Equal(t, "You have less than a second remaining before the deadline. "+
		"You have used 49,800 of 50,000 tokens (99% of budget). 200 tokens remaining.", a.Summary)

	b.TokensUsed = 49_700
	assert.Contains(t, resource.New().Assess(b, start).Summary, "(99% of budget)", "99.4% rounds down as before")

	b = budgetAt(time.Hour, 0, 1000)
	b.ToolCalls = 999
	assert.Contains(t, resource.New().Assess(b, start.Add(10*time.Minute)).Summary,
		"At this pace tool calls run out in less than a second, before the deadline.")
}

// severe returns an assessment with the given severity, known or not.
type severe observer.Severity

func (severe) Name() string                                      { return "Severe" }
func (severe) ShouldRun(context.Context, *observer.Context) bool { return true }
func (s severe) Observe(context.Context, *observer.Context) (observer.Assessment, error) {
	return observer.Assessment{Summary: "odd", Severity: observer.Severity(s)}, nil
}

func TestAnUnknownSeverityBecomesTheNearestKnownOne(t *testing.T) {
	for _, c := range []struct {
		given, want observer.Severity
	}{{observer.Warning + 1, observer.Warning}, {observer.Info - 1, observer.Info}, {observer.Caution, observer.Caution}} {
		var reported []error
		store := session.New(nil)
		p, err := observer.NewPipeline(store, []observer.Spec{
			{Observer: severe(c.given), Trigger: observer.Trigger{OnEveryCall: true}},
		}, &observer.PipelineOptions{OnError: func(_ context.Context, err error) { reported = append(reported, err) }})
		require.NoError(t, err)

		_, current := p.AfterToolCall(context.Background(), ok())
		require.NotNil(t, current)
		assert.Equal(t, c.want, current.Assessments[0].Severity)
		_, err = store.Snapshot()
		assert.NoError(t, err, "the session can still be snapshotted")
		if c.given == c.want {
			assert.Empty(t, reported)
			continue
		}
		require.Len(t, reported, 1)
		var oe *observer.Error
		require.ErrorAs(t, reported[0], &oe)
		assert.Equal(t, "Severe", oe.Observer)
		assert.ErrorContains(t, oe, "unknown severity")
	}
}

// A clock set back further than the interval (a corrected wall clock, a
// session restored on another machine) leaves the observer's last run in
// the future; the trigger must not wait for the clock to catch up.
func TestIntervalTriggerFiresAgainAfterTheClockIsSetBack(t *testing.T) {
	o := &counting{name: "tick"}
	p, c := newPipeline(t, observer.Spec{Observer: o, Trigger: observer.Trigger{EveryInterval: 2 * time.Minute}})
	c.Advance(2 * time.Minute)
	p.AfterToolCall(context.Background(), ok()) // 1: runs
	c.Advance(-time.Hour)
	p.AfterToolCall(context.Background(), ok()) // 2: an hour before its last run
	for range 4 {
		c.Advance(time.Minute)
		p.AfterToolCall(context.Background(), ok()) // 3 to 6
	}
	assert.Equal(t, []int64{1, 2, 4, 6}, o.ranAt,
		"a step back of more than the interval counts as the interval passing")

	// Calls that end out of order, a few seconds apart, are no such step.
	o = &counting{name: "tick"}
	p, c = newPipeline(t, observer.Spec{Observer: o, Trigger: observer.Trigger{EveryInterval: 2 * time.Minute}})
	c.Advance(2 * time.Minute)
	p.AfterToolCall(context.Background(), ok())
	c.Advance(-3 * time.Second)
	p.AfterToolCall(context.Background(), ok())
	assert.Equal(t, []int64{1}, o.ranAt)
}

// failing is an observer whose Observe returns err.
type failing struct{ err error }

func (f failing) Name() string                                      { return "Index" }
func (f failing) ShouldRun(context.Context, *observer.Context) bool { return true }
func (f failing) Observe(context.Context, *observer.Context) (observer.Assessment, error) {
	return observer.Assessment{}, f.err
}

// An error of several lines (errors.Join writes one per error) must not
// spill out of the observation's line into the block's structure.
func TestAFailingObserversErrorStaysOnItsLine(t *testing.T) {
	p, _ := newPipeline(t, observer.Spec{
		Observer: failing{errors.Join(errors.New("shard 1 down"), errors.New("## shard 2\n```"))},
		Trigger:  observer.Trigger{OnEveryCall: true},
	})
	_, current := p.AfterToolCall(context.Background(), ok())
	require.NotNil(t, current)
	assert.Equal(t, "## Trajectory Assessment\n\n_Generated after tool call #1_\n\n### Index [info]\n\n"+
		"This observer failed; its view of the run is missing from this assessment.\n\n"+
		"**observer_error**: observer \"Index\": observe: shard 1 down ## shard 2 '''\n", current.Render())
}

// Evidence that holds a fence of its own (a code snippet, a diff) is put
// in a longer fence, so that it cannot close the block's fence early.
func TestRenderWritesEachSeverityInItsHeading(t *testing.T) {
	for sev, want := range map[observer.Severity]string{
		observer.Info:        "### A [info]\n\nx\n\n**c**: d\n```\n#1 e\n```",
		observer.Caution:     "### A [caution]\n\nx\n\n**c**: d\n```\n#1 e\n```",
		observer.Warning:     "### A [warning]\n\nx\n\n**c**: d\n```\n#1 e\n```",
		observer.Severity(7): "### A [severity(7)]\n\nx\n\n**c**: d\n```\n#1 e\n```",
	} {
		a := observer.Assessment{Observer: "A", Severity: sev, Summary: "x",
			Observations: []observer.Observation{{Category: "c", Description: "d", Evidence: "#1 e"}}}
		assert.Equal(t, want, a.Render())
		current := observer.CurrentAssessment{CallIndex: 1, Assessments: []observer.Assessment{a}}
		assert.Len(t, current.Render(), len("## Trajectory Assessment\n\n_Generated after tool call #1_\n\n")+len(want)+1)
	}
}

func TestRenderFencesEvidenceThatHoldsBackticks(t *testing.T) {
	a := observer.Assessment{Observer: "Lint", Severity: observer.Caution, Summary: "One finding.",
		Observations: []observer.Observation{{Category: "lint", Description: "Unchecked error.",
			Evidence: "```go\nf.Close()\n```"}},
		Suggestions: []string{"Check it."}}
	want := "### Lint [caution]\n\nOne finding.\n\n**lint**: Unchecked error.\n````\n```go\nf.Close()\n```\n````\n\n**Suggestions**:\n- Check it."
	assert.Equal(t, want, a.Render())
	current := observer.CurrentAssessment{CallIndex: 2, Assessments: []observer.Assessment{a}}
	assert.Equal(t, "## Trajectory Assessment\n\n_Generated after tool call #2_\n\n"+want+"\n", current.Render())

	a.Observations[0].Evidence = "x ````` y"
	assert.Contains(t, a.Render(), "\n``````\nx ````` y\n``````\n")
}

func TestValidateRejectsWhatNewPipelineRejects(t *testing.T) {
	assert.NoError(t, observer.Validate([]observer.Spec{{Observer: resource.New(), Trigger: observer.Trigger{EveryNCalls: 1}}}))
	err := observer.Validate([]observer.Spec{{Observer: nil}})
	assert.ErrorIs(t, err, observer.ErrInvalidConfig)
}

func TestResourceReportsTheModelCallLimit(t *testing.T) {
	b := budgetAt(0, 0, 0)
	b.MaxModelCalls, b.ModelCalls = 10, 9
	a := resource.New().Assess(b, start)
	assert.Equal(t, "You have made 9 of 10 allowed model calls. 1 call remaining.", a.Summary)
	assert.Equal(t, observer.Warning, a.Severity)
	b.ModelCalls = 10
	assert.Equal(t, "You have exhausted your model call budget.", resource.New().Assess(b, start).Summary)
}

// The members' trigger states are kept between calls while the session's
// ObserverStates stand, and read again when anything changes them: the
// pipeline's own runs, a change from outside, a restore, or a second
// pipeline on the same store.
func TestTriggersSeeObserverStatesChangedBetweenCalls(t *testing.T) {
	o := &counting{name: "probe"}
	p, _ := newPipeline(t, observer.Spec{Observer: o, Trigger: observer.Trigger{EveryNCalls: 3}})
	store := p.Store()
	states := session.ValueOf[observer.ObserverStates](store)
	call := func(n int) {
		for range n {
			p.AfterToolCall(context.Background(), ok())
		}
	}
	call(3)
	require.Equal(t, []int64{3}, o.ranAt)
	snap, err := store.Snapshot()
	require.NoError(t, err)

	// Changed from outside: the probe last ran at call 5, so it next
	// fires at call 8, not 6.
	call(1)
	states.Seed(observer.ObserverStates{"probe": {LastAssessmentCallIndex: 5, TotalAssessments: 1}})
	call(4)
	assert.Equal(t, []int64{3, 8}, o.ranAt)

	// Restored to the snapshot taken after call 3: the call log and the
	// states go back, and the probe fires again three calls on.
	require.NoError(t, store.Restore(snap))
	call(3)
	assert.Equal(t, []int64{3, 8, 6}, o.ranAt)

	// A second pipeline on the store runs the probe's namesake at call 7.
	other := &counting{name: "probe"}
	q, err := observer.NewPipeline(store, []observer.Spec{{Observer: other, Trigger: observer.Trigger{EveryNCalls: 1}}}, nil)
	require.NoError(t, err)
	q.AfterToolCall(context.Background(), ok())
	require.Equal(t, []int64{7}, other.ranAt)
	call(2)
	assert.Equal(t, []int64{3, 8, 6}, o.ranAt, "the probe's state says it ran at call 7")
	call(1)
	assert.Equal(t, []int64{3, 8, 6, 10}, o.ranAt)
}
