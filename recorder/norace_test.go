//go:build !race

package recorder_test

// raceEnabled reports whether the race detector is on: it changes how
// much the runtime allocates, so allocation gates skip under it.
const raceEnabled = false
