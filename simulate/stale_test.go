package simulate

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestABatchFolderHoldsOnlyTheBatchsJobs(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	var setups atomic.Int32
	three := []*Scenario{{Name: "a", Goal: "g", MaxTurns: 1}, {Name: "b", Goal: "g", MaxTurns: 1}, {Name: "c", Goal: "g", MaxTurns: 1}}
	b := &Batch{Scenarios: three, Repetitions: 2, OutDir: out, Setup: countingSetup(&setups), Progress: io.Discard}
	_, err := b.Run(ctx)
	require.NoError(t, err)

	// b is dropped: c's jobs take its job numbers.
	var notice bytes.Buffer
	b.Scenarios, b.Progress = []*Scenario{three[0], three[2]}, &notice
	rep, err := b.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"b-r0", "b-r1"}, rep.Stale)
	assert.Contains(t, notice.String(), "2 run folders in "+out+" belong to no job of this batch; moved to "+filepath.Join(out, StaleDir)+": b-r0, b-r1")
	assert.DirExists(t, filepath.Join(out, StaleDir, "b-r0"))
	assert.NoDirExists(t, filepath.Join(out, "b-r0"))
	assert.Equal(t, 2, rep.Skipped, "a's runs stand")
	assert.Equal(t, 2, rep.Ran, "c's runs, done as jobs 4 and 5, run again as jobs 2 and 3")

	var merged bytes.Buffer
	mrep, err := Merge(&merged, MergeOptions{}, out)
	require.NoError(t, err)
	assert.Equal(t, 4, mrep.Runs)
	assert.Empty(t, mrep.Unfinished)
	s, err := ReadBatch([]string{out}, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 4, s.Runs)

	// Dropped again after it came back, b's folders keep both copies.
	b.Scenarios = three
	_, err = b.Run(ctx)
	require.NoError(t, err)
	b.Scenarios = []*Scenario{three[0]}
	rep, err = b.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"b-r0", "b-r1", "c-r0", "c-r1"}, rep.Stale)
	assert.DirExists(t, filepath.Join(out, StaleDir, "b-r0.1"))
}

func TestShardsSharingAFolderOneAfterAnotherKeepEachOthersRuns(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	var setups atomic.Int32
	for shard := range 2 {
		b := &Batch{Scenarios: batchScenarios(), Repetitions: 2, Shard: shard, Shards: 2, OutDir: out, Setup: countingSetup(&setups), Progress: io.Discard}
		rep, err := b.Run(ctx)
		require.NoError(t, err)
		assert.Empty(t, rep.Stale)
	}
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	assert.Equal(t, []string{"refund-r0", "refund-r1", "trip-r0", "trip-r1"}, dirs)
}
