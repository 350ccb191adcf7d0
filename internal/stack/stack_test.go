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

// TestGoStartsWithRoomForTheFramesToCome checks that a goroutine started
// by Go goes some 2 KiB deep, more than a new goroutine has room for, without its stack being copied.
func TestGoStartsWithRoomForTheFramesToCome(t *testing.T) {
	deep := func(done chan bool) {
		var here byte
		before := uintptr(unsafe.Pointer(&here))
		depth(20)
		done <- uintptr(unsafe.Pointer(&here)) != before
	}
	done := make(chan bool)
	go deep(done)
	if !<-done {
		t.Fatal("on a goroutine of its own, the stack did not move: the test proves nothing")
	}
	Go(deep, done)
	if <-done {
		t.Fatal("on a goroutine started by Go, the stack moved as it went deeper")
	}
}
