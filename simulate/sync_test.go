package simulate

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watchSyncs records, for the test, every file and folder synced, by
// base name, in order.
func watchSyncs(t *testing.T) func() []string {
	var mu sync.Mutex
	var seen []string
	note := func(s string) {
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
	}
	file, dir := syncFile, syncDir
	syncFile = func(f *os.File) error {
		name := filepath.Base(f.Name())
		if strings.HasPrefix(name, "."+DoneFile) {
			name = DoneFile
		}
		note(name)
		return file(f)
	}
	syncDir = func(d string) error { note("dir " + filepath.Base(d)); return dir(d) }
	t.Cleanup(func() { syncFile, syncDir = file, dir })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// A job's artifacts, then its folder, reach the disk before its done.json,
// which reaches it before the job ends: a crash never leaves a done.json
// for artifacts that are not there.
func TestArtifactsAndTheMarkerAreSyncedInOrder(t *testing.T) {
	synced := watchSyncs(t)
	b := &Batch{Scenarios: []*Scenario{{Name: "s", Goal: "g", MaxTurns: 1}}, OutDir: t.TempDir(), Progress: io.Discard,
		Runner: &Runner{UserModel: stepUser()}, Target: echoTarget()}
	_, err := b.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{ConversationFile, TracesFile, MetaFile, "dir s-r0", DoneFile, "dir s-r0"}, synced())
}
