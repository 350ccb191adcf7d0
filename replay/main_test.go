package replay_test

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

// update is the -update flag of golden-file tests, which replay.Update
// reads: `go test ./replay -update` records cassettes again.
var _ = flag.Bool("update", false, "record the cassettes again")

// The recorders and agents the tests run stop their goroutines.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
