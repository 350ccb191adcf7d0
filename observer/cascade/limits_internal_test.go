package cascade

import (
	"testing"
	"unsafe"

	"github.com/lookout-go/lookout/observer/internal/detect"
)

// The maximum's doc comment states the memory a session takes at it; this
// keeps the slot size it is computed from honest.
func TestMaximumKeepsTheMemoryItsDocStates(t *testing.T) {
	if problem := detect.SlotProblem(unsafe.Sizeof(cascadeCall{})+unsafe.Sizeof(errorGroup{}), 208, MaxWindow, 1<<20); problem != "" {
		t.Error(problem)
	}
}
