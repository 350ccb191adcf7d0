package drive

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

// The root writes the names the exports and analytics read; it cannot
// import those packages, so the names are kept in step here.
func TestRecordedNamesMatchTheirReaders(t *testing.T) {
	if efficacyExtension != summary.EfficacyExtension {
		t.Errorf("efficacy extension %q, summary reads %q", efficacyExtension, summary.EfficacyExtension)
	}
	if lookout.TagAssessment != recorder.InjectedAssessment || lookout.TagWrapUp != recorder.InjectedWrapUp {
		t.Errorf("injected kinds %q %q, the recorder names %q %q", lookout.TagAssessment, lookout.TagWrapUp, recorder.InjectedAssessment, recorder.InjectedWrapUp)
	}
}

func TestRunStartedRecordsTheResourceObserversThresholds(t *testing.T) {
	started := func(t *testing.T, observers []observer.Spec) *recorder.RunStarted {
		t.Helper()
		l, sink, rec := recordedLookout(t, lookout.Config{Observers: observers})
		ctx := context.Background()
		_, r, err := l.Start(ctx, StartOptions{AgentName: "a"})
		require.NoError(t, err)
		r.End(ctx, nil)
		require.NoError(t, rec.Flush(ctx))
		s := startedOf(sink.Records())
		require.Len(t, s, 1)
		return s[0]
	}
	t.Run("the default observers", func(t *testing.T) {
		assert.Equal(t, &recorder.Thresholds{CautionAt: resource.DefaultCautionAt, WarningAt: resource.DefaultWarningAt}, started(t, nil).Thresholds)
	})
	t.Run("thresholds of its own, the unset one defaulted", func(t *testing.T) {
		o := &resource.Observer{CautionAt: 0.5}
		got := started(t, []observer.Spec{{Observer: cascade.New(), Trigger: observer.Trigger{OnEveryCall: true}}, {Observer: o, Trigger: observer.Trigger{OnEveryCall: true}}})
		assert.Equal(t, &recorder.Thresholds{CautionAt: 0.5, WarningAt: resource.DefaultWarningAt}, got.Thresholds)
	})
	t.Run("no Resource observer", func(t *testing.T) {
		assert.Nil(t, started(t, []observer.Spec{{Observer: cascade.New(), Trigger: observer.Trigger{OnEveryCall: true}}}).Thresholds)
	})
}

// gateSink's Write waits until the test opens its gate.
type gateSink struct {
	recorder.MemorySink
	gate chan struct{}
}

func (s *gateSink) Write(ctx context.Context, r *recorder.Record) error {
	<-s.gate
	return s.MemorySink.Write(ctx, r)
}

// A root run's end waits for its records to reach the sink, for
// Config.EndWait at most, and says so to OnError when they did not; with
// a negative EndWait it does not wait at all.
func TestTheEndOfARootWaitsForItsRecordsWithinEndWait(t *testing.T) {
	for _, wait := range []time.Duration{50 * time.Millisecond, -1} {
		sink := &gateSink{gate: make(chan struct{})}
		rec := recorder.New(sink, &recorder.Options{OnError: func(context.Context, error) {}})
		var reported []error
		l, err := New(&lookout.Config{Recorder: rec, EndWait: wait, OnError: func(_ context.Context, err error) { reported = append(reported, err) }})
		require.NoError(t, err)
		ctx, r, err := l.Start(context.Background(), StartOptions{AgentName: "a"})
		require.NoError(t, err)

		start := time.Now()
		r.End(ctx, nil)
		took := time.Since(start)
		close(sink.gate)
		require.NoError(t, rec.Close(context.Background()))
		assert.Len(t, sink.Records(), 2, "run_started and run_ended reach the sink")
		if wait < 0 {
			assert.Empty(t, reported, "no wait, nothing to report")
			assert.Less(t, took, 50*time.Millisecond)
			continue
		}
		assert.GreaterOrEqual(t, took, wait, "the end waited for the stuck sink")
		assert.Less(t, took, time.Second, "for EndWait at most")
		require.Len(t, reported, 1)
		assert.ErrorIs(t, reported[0], context.DeadlineExceeded)
	}
}
