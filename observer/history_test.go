package observer_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// graded is an observer that speaks on the calls listed in severities,
// with the given severity, and stays quiet otherwise.
type graded struct {
	name       string
	severities map[int64]observer.Severity
}

func (g *graded) Name() string { return g.name }
func (g *graded) ShouldRun(_ context.Context, oc *observer.Context) bool {
	_, ok := g.severities[oc.CallIndex]
	return ok
}
func (g *graded) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	return observer.Assessment{Summary: "graded", Severity: g.severities[oc.CallIndex]}, nil
}

// watcher records, on every call, what the context says about the past.
type watcher struct {
	of      string
	trends  []observer.Trend
	overall []observer.Trend
	history [][]int64
}

func (w *watcher) Name() string                                      { return "watcher" }
func (w *watcher) ShouldRun(context.Context, *observer.Context) bool { return true }
func (w *watcher) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	w.trends = append(w.trends, oc.Trend(w.of))
	w.overall = append(w.overall, oc.OverallTrend())
	var indices []int64
	for _, p := range oc.History(3) {
		indices = append(indices, p.CallIndex)
	}
	w.history = append(w.history, indices)
	return observer.Assessment{Summary: "watching"}, nil
}

func TestHistoryKeepsTheLastAssessments(t *testing.T) {
	for _, tt := range []struct {
		name  string
		size  int
		calls int
		want  int
	}{
		{"the default keeps 20", 0, 25, 20},
		{"a size of 3 keeps 3", 3, 5, 3},
		{"a negative size keeps none", -1, 5, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := session.New(&session.StoreOptions{Now: (&clock{t: start}).Now})
			p, err := observer.NewPipeline(store, []observer.Spec{{Observer: &counting{name: "c"}, Trigger: observer.Trigger{OnEveryCall: true}}},
				&observer.PipelineOptions{HistorySize: tt.size})
			require.NoError(t, err)
			for range tt.calls {
				p.AfterToolCall(context.Background(), ok())
			}
			history := session.LogOf[observer.PastAssessment](store)
			assert.Equal(t, tt.want, history.Len())
			if tt.want > 0 {
				last, _ := history.Latest()
				assert.Equal(t, int64(tt.calls), last.CallIndex)
				assert.Equal(t, "c", last.Assessments[0].Observer)
			}
		})
	}
}

func TestContextShowsHistoryAndTrends(t *testing.T) {
	g := &graded{name: "graded", severities: map[int64]observer.Severity{
		1: observer.Info, 2: observer.Caution, 3: observer.Caution, 4: observer.Warning, 6: observer.Info,
	}}
	w := &watcher{of: "graded"}
	p, _ := newPipeline(t,
		observer.Spec{Observer: g, Trigger: observer.Trigger{OnEveryCall: true}},
		observer.Spec{Observer: w, Trigger: observer.Trigger{OnEveryCall: true}},
	)
	for range 7 {
		p.AfterToolCall(context.Background(), ok())
	}
	// The watcher sees the assessments of earlier calls: at call k, the
	// history ends with call k-1.
	assert.Equal(t, []observer.Trend{
		observer.Steady,     // call 1: no history
		observer.Steady,     // call 2: one graded assessment
		observer.Escalating, // call 3: info, then caution
		observer.Steady,     // call 4: caution, caution
		observer.Escalating, // call 5: caution, then warning
		observer.Escalating, // call 6: graded was quiet at call 5, so still caution, then warning
		observer.Easing,     // call 7: warning, then info
	}, w.trends)
	// Overall, each assessment counts at its highest severity; the one of
	// call 5 holds only the watcher, at info.
	assert.Equal(t, []observer.Trend{
		observer.Steady, observer.Steady, observer.Escalating, observer.Steady,
		observer.Escalating, observer.Easing, observer.Steady,
	}, w.overall)
	assert.Equal(t, []int64{4, 5, 6}, w.history[6], "the last three, oldest first")
	assert.Nil(t, w.history[0])
}

func TestTrendOfAnObserverNeverHeardFromIsSteady(t *testing.T) {
	w := &watcher{of: "nobody"}
	p, _ := newPipeline(t, observer.Spec{Observer: w, Trigger: observer.Trigger{OnEveryCall: true}})
	for range 3 {
		p.AfterToolCall(context.Background(), ok())
	}
	assert.Equal(t, []observer.Trend{observer.Steady, observer.Steady, observer.Steady}, w.trends)
}

func TestHistorySurvivesASnapshot(t *testing.T) {
	h := newHarness(t, stall.New())
	h.run(times(6, readFile("go.mod", "x"))...)
	snap, err := h.store.Snapshot()
	require.NoError(t, err)

	resumed := newHarness(t, stall.New())
	require.NoError(t, resumed.store.Restore(snap))
	history := session.LogOf[observer.PastAssessment](resumed.store)
	require.Equal(t, 3, history.Len(), "calls 4, 5 and 6 produced assessments")
	latest, _ := history.Latest()
	assert.Equal(t, observer.Caution, latest.Severity())

	again, err := resumed.store.Snapshot()
	require.NoError(t, err)
	assert.Equal(t, string(snap), string(again), "the snapshot round-trips byte for byte")
}

func TestTrendText(t *testing.T) {
	for _, tr := range []observer.Trend{observer.Steady, observer.Escalating, observer.Easing} {
		b, err := tr.MarshalText()
		require.NoError(t, err)
		var back observer.Trend
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, tr, back)
	}
	_, err := observer.Trend(9).MarshalText()
	assert.Error(t, err)
	assert.Equal(t, "trend(9)", observer.Trend(9).String())
	var tr observer.Trend
	assert.Error(t, tr.UnmarshalText([]byte("sideways")))
}

func TestHistoryEntriesAreStampedWithTheirAssessmentsTime(t *testing.T) {
	c := &clock{t: start}
	store := session.New(&session.StoreOptions{Now: c.Now})
	p, err := observer.NewPipeline(store, []observer.Spec{{Observer: &counting{name: "c"}, Trigger: observer.Trigger{OnEveryCall: true}}}, nil)
	require.NoError(t, err)
	// The call ended a minute before the store's clock reads.
	rec := ok()
	rec.Timestamp = start
	c.Advance(time.Minute)
	_, current := p.AfterToolCall(context.Background(), rec)
	require.NotNil(t, current)
	require.Equal(t, start, current.GeneratedAt)

	history := session.LogOf[observer.PastAssessment](store)
	assert.Len(t, history.Since(start), 1)
	assert.Empty(t, history.Since(start.Add(time.Second)), "the entry is stamped when its assessment was made, not when it was stored")
}
