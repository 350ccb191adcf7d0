package sinktest_test

import (
	"fmt"
	"strings"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/sinktest"
)

// A sink that keeps what it is given passes every check.
func ExampleCheck() {
	err := sinktest.Check(func() (recorder.Sink, sinktest.ReadBack) {
		s := recorder.NewMemorySink()
		return s, func() ([]recorder.Record, error) { return s.Records(), nil }
	})
	fmt.Println("passes:", err == nil)
	// Output:
	// passes: true
}

// A sink that loses its newest record fails every check that reads the
// records back. The error has a line per failed check: its name, then what
// went wrong ("read back 299 records, want 300").
func ExampleCheck_lossy() {
	err := sinktest.Check(func() (recorder.Sink, sinktest.ReadBack) {
		s := recorder.NewMemorySink()
		return s, func() ([]recorder.Record, error) {
			recs := s.Records()
			return recs[:max(len(recs)-1, 0)], nil
		}
	})
	for _, line := range strings.Split(err.Error(), "\n") {
		name, _, _ := strings.Cut(line, ": ")
		fmt.Println(name)
	}
	// Output:
	// keeps write order
	// keeps every kind intact
	// keeps seq dense and ordered under 64 goroutines
	// keeps each run ordered when runs interleave
	// flush is idempotent
	// close is idempotent
}
