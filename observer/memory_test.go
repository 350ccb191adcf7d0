package observer_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// A detector at its maximum window allocates, when a session is first
// checked, no more than its doc comment states the window takes.
func TestADetectorAtItsMaximumAllocatesWhatItsDocStates(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	tests := []struct {
		name   string
		o      observer.Observer
		budget uint64 // bytes the doc comment states
	}{
		{"Stall at stall.MaxWindow: about 383 KiB", &stall.Detector{Window: stall.MaxWindow}, 383 << 10},
		{"Errors at cascade.MaxWindow: about 1 MB", &cascade.Detector{Window: cascade.MaxWindow}, 1 << 20},
		{"Drift at drift.MaxWindow: about 640 KB", &drift.Detector{Window: drift.MaxWindow}, 640_000},
	}
	// What a first call allocates with an observer that keeps nothing:
	// the call log's first chunk.
	baseline := firstCallAllocates(t, noteAt(0))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := firstCallAllocates(t, tt.o) - baseline
			t.Logf("the detector's state took %d bytes", got)
			// The window's slots, and a little for the state's maps and
			// buffers: a tenth more at most.
			assert.LessOrEqual(t, got, tt.budget+tt.budget/10)
		})
	}
}

// firstCallAllocates returns the bytes the first tool call of a session
// allocates with o on every call.
func firstCallAllocates(t *testing.T, o observer.Observer) uint64 {
	store := session.New(nil)
	p, err := observer.NewPipeline(store, []observer.Spec{{Observer: o, Trigger: observer.Trigger{OnEveryCall: true}}}, nil)
	require.NoError(t, err)
	rec := readFile("go.mod", "module x")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p.AfterToolCall(context.Background(), rec)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
