package lookout

import (
	"context"
	"testing"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/summary"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The root writes the names the exports and analytics read; it cannot
// import those packages, so the names are kept in step here.
func TestRecordedNamesMatchTheirReaders(t *testing.T) {
	if efficacyExtension != summary.EfficacyExtension {
		t.Errorf("efficacy extension %q, summary reads %q", efficacyExtension, summary.EfficacyExtension)
	}
	if TagAssessment != recorder.InjectedAssessment || TagWrapUp != recorder.InjectedWrapUp {
		t.Errorf("injected kinds %q %q, the recorder names %q %q", TagAssessment, TagWrapUp, recorder.InjectedAssessment, recorder.InjectedWrapUp)
	}
	if parentToolCallKey != atif.ParentToolCallKey {
		t.Errorf("parent tool call key %q, atif reads %q", parentToolCallKey, atif.ParentToolCallKey)
	}
}

func TestRunStartedRecordsTheResourceObserversThresholds(t *testing.T) {
	started := func(t *testing.T, observers []observer.Spec) *recorder.RunStarted {
		t.Helper()
		l, sink, rec := recordedLookout(t, Config{Observers: observers})
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
