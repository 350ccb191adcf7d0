// Package stack grows a goroutine's stack ahead of need.
//
// A goroutine's stack starts at 2 KiB and is copied to one twice as large
// whenever a call runs out of room, which costs for every frame on it: a
// dozen frames deep, a copy costs some 12k instructions. A goroutine that
// will go deep grows its stack at its start, when it holds a frame or two,
// for a fraction of that.
package stack

// Grow makes the calling goroutine's stack hold a frame of Room's size
// below the caller's, growing it now if it must. Room is a byte array:
// a frame of 1.5 KiB makes the runtime give a new goroutine a 4 KiB stack
// at once, one of 4 KiB an 8 KiB one.
//
//go:noinline
func Grow[Room any]() {
	var room Room
	keep(&room)
}

// keep is a use of room that the compiler cannot remove.
//
//go:noinline
func keep[Room any](*Room) {}
