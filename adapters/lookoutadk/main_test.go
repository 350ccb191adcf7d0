package lookoutadk_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The middleware's run watcher reads each run's events on a goroutine that
// must end with the run.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
