package lookout_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/stall"
)

// A window no detector could allocate is rejected by Config.Check, naming the
// observer and the field (a lookout.ErrInvalidConfig and an
// observer.ErrInvalidConfig), before any tool
// call could try.
func TestCheckRejectsAHugeDetectorWindow(t *testing.T) {
	for _, o := range []observer.Observer{&stall.Detector{Window: 1 << 28}, &cascade.Detector{Window: 1 << 28}, &drift.Detector{Window: 1 << 28}} {
		t.Run(o.Name(), func(t *testing.T) {
			_, err := (&lookout.Config{Observers: []observer.Spec{{Observer: o, Trigger: observer.Trigger{OnEveryCall: true}}}}).Check()
			assert.ErrorIs(t, err, observer.ErrInvalidConfig)
			assert.ErrorIs(t, err, lookout.ErrInvalidConfig)
			assert.ErrorContains(t, err, o.Name())
			assert.ErrorContains(t, err, "Window")
		})
	}
}

func TestCheckRejectsANaNWrapUpAt(t *testing.T) {
	_, err := (&lookout.Config{WrapUpAt: math.NaN()}).Check()
	assert.ErrorIs(t, err, lookout.ErrInvalidConfig)
	assert.ErrorContains(t, err, "WrapUpAt")
}
