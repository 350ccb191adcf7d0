//go:build race

package observer_test

// raceEnabled reports whether the race detector is on: it makes a
// sync.Pool drop some of what is put in it, so the allocation gates of
// what is written into pooled buffers skip under it.
const raceEnabled = true
