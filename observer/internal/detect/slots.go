package detect

import (
	"fmt"
	"unsafe"
)

// SlotProblem checks what a maximum's doc comment states about memory: a
// slot of slot bytes, documented as want, kept max times within budget
// bytes. It returns what is wrong, or "" when the doc holds or the
// platform is not the 64-bit one the docs state sizes for.
func SlotProblem(slot, want uintptr, max int, budget uintptr) string {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		return ""
	}
	if slot != want {
		return fmt.Sprintf("the slot is %d bytes, the doc says %d: update the doc comment", slot, want)
	}
	if got := slot * uintptr(max); got > budget {
		return fmt.Sprintf("%d slots take %d bytes, more than the %d the doc states", max, got, budget)
	}
	return ""
}
