// Package stack grows a goroutine's stack ahead of need.
//
// A goroutine's stack starts at 2 KiB and is copied to one twice as large
// whenever a call runs out of room, which costs for every frame on it: a
// dozen frames deep, a copy costs some 12k instructions. A goroutine that
// will go deep grows its stack at its start, when it holds a frame or two,
// for a fraction of that.
package stack

// Go calls f(arg) on a new goroutine whose stack is 8 KiB from its
// start, for a goroutine that goes some 3 KiB deep: the goroutine's first
// function, which calls f, has a frame of 3.5 KiB it never uses, so that
// the runtime gives it an 8 KiB stack as it enters it, when no frame is
// on the stack but that of the runtime's goexit. Growing a stack costs
// for every frame on it, some 1.7k instructions a frame when they are
// few: growing it there costs half of what Grow, called first thing on
// the goroutine, does with its own frame and the goroutine's on the
// stack.
func Go[T any](f func(T), arg T) {
	go func() {
		if f == nil { // never: the room is in the frame, and left as it is
			var room [3584]byte
			keep(&room)
		}
		f(arg)
	}()
}

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
