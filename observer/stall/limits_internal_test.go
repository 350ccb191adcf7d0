package stall

import (
	"testing"
	"unsafe"

	"github.com/lookout-go/lookout/observer/internal/detect"
)

// The maximum's doc comment states the memory a session takes at it; this
// keeps the slot size it is computed from honest.
func TestMaximumKeepsTheMemoryItsDocStates(t *testing.T) {
	if problem := detect.SlotProblem(unsafe.Sizeof(stallCall{}), 392, MaxWindow, 383<<10); problem != "" {
		t.Error(problem)
	}
}
