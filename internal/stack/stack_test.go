package stack

import (
	"testing"
	"unsafe"
)

// depth calls itself n times, each call with a frame of some 100 bytes.
//
//go:noinline
func depth(n int) byte {
	var pad [64]byte
	pad[n%64] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return depth(n-1) + pad[n%64]
}

// moved reports whether a new goroutine's stack is copied while it goes
// some 1.5 KiB deep, after grow: a copy moves its locals.
func moved(grow func()) bool {
	done := make(chan bool)
	go func() {
		grow()
		var here byte
		before := uintptr(unsafe.Pointer(&here))
		depth(12)
		done <- uintptr(unsafe.Pointer(&here)) != before
	}()
	return <-done
}

func TestGrowLeavesRoomForTheFramesToCome(t *testing.T) {
	if !moved(func() {}) {
		t.Fatal("without Grow, the goroutine's stack did not move: the test proves nothing")
	}
	if moved(Grow[[1536]byte]) {
		t.Fatal("after Grow, the goroutine's stack moved as it went deeper")
	}
}
