package observer

import (
	"testing"
	"unsafe"
)

// MaxHistorySize's doc comment states the memory a session's history takes
// at it; this keeps the entry size it is computed from honest.
func TestMaxHistorySizeKeepsTheMemoryItsDocStates(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the sizes are stated for 64-bit platforms")
	}
	if size := unsafe.Sizeof(PastAssessment{}); size != 56 || size*MaxHistorySize > 56_000 {
		t.Errorf("an entry is %d bytes, the doc says 56 and about 56 KB at MaxHistorySize: update the doc comment", size)
	}
}
