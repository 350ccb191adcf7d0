package observer_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// validate runs observer.Validate on o alone, with a trigger that fires.
func validate(o observer.Observer) error {
	return observer.Validate([]observer.Spec{{Observer: o, Trigger: observer.Trigger{OnEveryCall: true}}})
}

// requireConfigError asserts err is a ConfigError for the observer and
// field, wrapping ErrInvalidConfig.
func requireConfigError(t *testing.T, err error, name, field string) {
	t.Helper()
	require.ErrorIs(t, err, observer.ErrInvalidConfig)
	var ce *observer.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, name, ce.Observer)
	assert.Equal(t, field, ce.Field)
	assert.Contains(t, err.Error(), name)
	assert.Contains(t, err.Error(), field)
}

func TestValidateRejectsAHugeWindow(t *testing.T) {
	tests := []struct {
		name     string
		observer observer.Observer
		want     string
	}{
		{"a Stall window of 1<<28 calls is rejected", &stall.Detector{Window: 1 << 28}, "Stall"},
		{"an ErrorCascade window of 1<<28 calls is rejected", &cascade.Detector{Window: 1 << 28}, "Errors"},
		{"a Drift window of 1<<28 calls is rejected", &drift.Detector{Window: 1 << 28}, "Drift"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireConfigError(t, validate(tt.observer), tt.want, "Window")
		})
	}
}

func TestValidateAcceptsTheMaximum(t *testing.T) {
	tests := []struct {
		name     string
		observer observer.Observer
	}{
		{"a Stall at MaxStallWindow is accepted", &stall.Detector{Window: stall.MaxWindow, Repeats: stall.MaxWindow,
			FailedRepeats: stall.MaxWindow, Oscillation: stall.MaxWindow, WriteBack: stall.MaxWindow}},
		{"an ErrorCascade at MaxErrorWindow is accepted", &cascade.Detector{Window: cascade.MaxWindow,
			Consecutive: cascade.MaxWindow, WarningAfter: cascade.MaxWindow}},
		{"a Drift at MaxDriftWindow and MaxInitialCalls is accepted", &drift.Detector{Window: drift.MaxWindow,
			MinCalls: drift.MaxWindow, InitialCalls: drift.MaxInitialCalls}},
		{"a Resource observer at thresholds of 1 is accepted", &resource.Observer{CautionAt: 1, WarningAt: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NoError(t, validate(tt.observer))
		})
	}
}

func TestValidateRejectsCountsAboveTheMaximum(t *testing.T) {
	tests := []struct {
		name, observer, field string
		o                     observer.Observer
	}{
		{"Stall Repeats", "Stall", "Repeats", &stall.Detector{Repeats: stall.MaxWindow + 1}},
		{"Stall FailedRepeats", "Stall", "FailedRepeats", &stall.Detector{FailedRepeats: stall.MaxWindow + 1}},
		{"Stall Oscillation", "Stall", "Oscillation", &stall.Detector{Oscillation: stall.MaxWindow + 1}},
		{"Stall WriteBack", "Stall", "WriteBack", &stall.Detector{WriteBack: stall.MaxWindow + 1}},
		{"ErrorCascade Consecutive", "Errors", "Consecutive", &cascade.Detector{Consecutive: cascade.MaxWindow + 1}},
		{"ErrorCascade WarningAfter", "Errors", "WarningAfter", &cascade.Detector{WarningAfter: cascade.MaxWindow + 1}},
		{"Drift MinCalls", "Drift", "MinCalls", &drift.Detector{Window: drift.MaxWindow, MinCalls: drift.MaxWindow + 1}},
		{"Drift InitialCalls", "Drift", "InitialCalls", &drift.Detector{InitialCalls: drift.MaxInitialCalls + 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" one above its maximum is rejected", func(t *testing.T) {
			requireConfigError(t, validate(tt.o), tt.observer, tt.field)
		})
	}
}

func TestValidateRejectsNaNAndNegativeThresholds(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name, observer, field string
		o                     observer.Observer
	}{
		{"a NaN ErrorCascade Rate is rejected", "Errors", "Rate", &cascade.Detector{Rate: nan}},
		{"a NaN Drift Share is rejected", "Drift", "Share", &drift.Detector{Share: nan}},
		{"a negative Drift Share is rejected", "Drift", "Share", &drift.Detector{Share: -0.5}},
		{"a NaN Resource CautionAt is rejected", "Resources", "CautionAt", &resource.Observer{CautionAt: nan}},
		{"a negative Resource CautionAt is rejected", "Resources", "CautionAt", &resource.Observer{CautionAt: -0.1}},
		{"a NaN Resource WarningAt is rejected", "Resources", "WarningAt", &resource.Observer{WarningAt: nan}},
		{"a negative Resource WarningAt is rejected", "Resources", "WarningAt", &resource.Observer{WarningAt: -0.1}},
		{"a Resource WarningAt above 1 is rejected", "Resources", "WarningAt", &resource.Observer{WarningAt: 1.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireConfigError(t, validate(tt.o), tt.observer, tt.field)
		})
	}
}

func TestValidateRejectsATriggerCountAboveTheMaximum(t *testing.T) {
	for _, tr := range []observer.Trigger{
		{EveryNCalls: observer.MaxTriggerCalls + 1},
		{AfterConsecutiveErrors: observer.MaxTriggerCalls + 1},
	} {
		err := observer.Validate([]observer.Spec{{Observer: resource.New(), Trigger: tr}})
		require.ErrorIs(t, err, observer.ErrInvalidConfig)
		assert.Contains(t, err.Error(), "MaxTriggerCalls")
		assert.Contains(t, err.Error(), `"Resources"`)
	}
	assert.NoError(t, observer.Validate([]observer.Spec{{Observer: resource.New(),
		Trigger: observer.Trigger{EveryNCalls: observer.MaxTriggerCalls, AfterConsecutiveErrors: observer.MaxTriggerCalls}}}))
}

func TestNewPipelineRejectsAHistoryAboveTheMaximum(t *testing.T) {
	specs := []observer.Spec{{Observer: resource.New(), Trigger: observer.Trigger{OnEveryCall: true}}}
	_, err := observer.NewPipeline(session.New(nil), specs, &observer.PipelineOptions{HistorySize: observer.MaxHistorySize + 1})
	require.ErrorIs(t, err, observer.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "HistorySize")
	_, err = observer.NewPipeline(session.New(nil), specs, &observer.PipelineOptions{HistorySize: observer.MaxHistorySize})
	assert.NoError(t, err)
}

func TestConfigErrorUnwrapsToErrInvalidConfig(t *testing.T) {
	err := (&stall.Detector{Window: -1}).Validate()
	assert.True(t, errors.Is(err, observer.ErrInvalidConfig))
	assert.Equal(t, `observer: invalid config: observer "Stall": Window -1 is negative`, err.Error())
}

func TestEfficacyCallsIsBounded(t *testing.T) {
	for _, n := range []int{-1, observer.MaxTriggerCalls + 1} {
		_, err := observer.NewPipeline(session.New(nil), nil, &observer.PipelineOptions{EfficacyCalls: n})
		assert.ErrorIs(t, err, observer.ErrInvalidConfig, "EfficacyCalls %d", n)
	}
	_, err := observer.NewPipeline(session.New(nil), nil, &observer.PipelineOptions{EfficacyCalls: observer.MaxTriggerCalls})
	assert.NoError(t, err)
}

func TestDerivedMinCallsIsValidated(t *testing.T) {
	for _, d := range []*drift.Detector{{DerivedMinCalls: -1}, {DerivedMinCalls: drift.DefaultWindow + 1}, {Window: drift.MaxWindow, DerivedMinCalls: drift.MaxWindow + 1}} {
		requireConfigError(t, validate(d), "Drift", "DerivedMinCalls")
	}
	assert.NoError(t, validate(&drift.Detector{DerivedMinCalls: drift.DefaultWindow}))
}
