package observer

import (
	"testing"
	"unsafe"
)

// The maxima's doc comments state the memory a detector takes at them;
// this keeps the slot sizes they are computed from honest.
func TestMaximaKeepTheMemoryTheirDocsState(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the sizes are stated for 64-bit platforms")
	}
	tests := []struct {
		name       string
		slot, want uintptr
		max        int
		budget     uintptr // bytes the doc comment states, rounded up
	}{
		{"a Stall slot is 336 bytes, about 330 KiB at MaxStallWindow", unsafe.Sizeof(stallCall{}), 336, MaxStallWindow, 340 << 10},
		{"an ErrorCascade slot and group are 192 bytes, about 1 MB at MaxErrorWindow", unsafe.Sizeof(cascadeCall{}) + unsafe.Sizeof(errorGroup{}), 192, MaxErrorWindow, 1 << 20},
		{"a Drift slot is 128 bytes, about 640 KB at MaxDriftWindow", unsafe.Sizeof(driftCall{}), 128, MaxDriftWindow, 640_000},
		{"a history entry is 56 bytes, about 56 KB at MaxHistorySize", unsafe.Sizeof(PastAssessment{}), 56, MaxHistorySize, 56_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.slot != tt.want {
				t.Errorf("the slot is %d bytes, the doc says %d: update the doc comment", tt.slot, tt.want)
			}
			if got := tt.slot * uintptr(tt.max); got > tt.budget {
				t.Errorf("%d slots take %d bytes, more than the %d the doc states", tt.max, got, tt.budget)
			}
		})
	}
}
