package cmdtest

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
)

// Build builds the lookout command, without the race detector, into a
// temporary directory of t, and returns its path.
func Build(t testing.TB, ctx context.Context) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lookout")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/lookout-go/lookout/cmd/lookout")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/lookout: %v\n%s", err, out)
	}
	return bin
}
