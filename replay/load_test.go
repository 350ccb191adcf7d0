package replay_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/replay"
)

func writeJSONL(t *testing.T, path string, records []recorder.Record) {
	t.Helper()
	var b []byte
	for i := range records {
		var err error
		b, err = records[i].AppendJSON(b)
		require.NoError(t, err)
		b = append(b, '\n')
	}
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

func TestLoadReadsATrajectoryFile(t *testing.T) {
	records, want := recordDeployer(t)
	path := filepath.Join(t.TempDir(), "deploy.jsonl")
	writeJSONL(t, path, records)
	c, err := replay.Load(path, nil)
	require.NoError(t, err)
	got := replayed(t, c, deployer(must("search", t), must("deploy", t), "You deploy services."), "deploy billing")
	d := divergence(t, got.err)
	assert.Equal(t, path, d.Path)
	assert.Equal(t, fmt.Sprintf("lookout inspect --run %s --seq %d %s", d.RunID, d.Seq, path), d.Inspect())
	assert.Contains(t, d.Error(), "Open the recording there: "+d.Inspect())
	assert.Contains(t, d.Error(), "seq ")

	c, err = replay.Load(path, nil)
	require.NoError(t, err)
	got = replayed(t, c, deployer(must("search", t), must("deploy", t), instruction), "deploy billing")
	require.NoError(t, got.err)
	assert.Equal(t, want.final, got.final)
}

func TestLoadReadsAnATIFFile(t *testing.T) {
	records, want := recordDeployer(t)
	traj, err := atif.FromRecords(records, nil)
	require.NoError(t, err)
	path, err := atif.WriteFile(t.TempDir(), "deploy.json", traj)
	require.NoError(t, err)

	c, err := replay.Load(path, nil)
	require.NoError(t, err)
	got := replayed(t, c, deployer(must("search", t), must("deploy", t), instruction), "deploy billing")
	require.NoError(t, got.err)
	require.NoError(t, c.Err())
	assert.Equal(t, want.final, got.final)
	assert.ElementsMatch(t, want.tools, got.tools)
}

func TestLoadRejectsWhatCannotReplay(t *testing.T) {
	_, err := replay.Load(filepath.Join(t.TempDir(), "missing.jsonl"), nil)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.ErrorContains(t, err, "-update", "a missing cassette says how to record it")

	_, err = replay.FromRecords(nil, nil)
	assert.ErrorIs(t, err, replay.ErrEmpty)
}

// With -update (or LOOKOUT_REPLAY_UPDATE), Open records the cassette
// from the live model; without, it replays what was recorded.
func TestOpenRecordsWithUpdateAndReplaysWithout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cassettes", "deploy.jsonl")
	t.Setenv(replay.UpdateEnv, "1")
	require.True(t, replay.Update())
	c, err := replay.Open(path, &replay.Options{Live: deployerModels()["deployer"]})
	require.NoError(t, err)
	require.True(t, c.Recording())
	require.NotNil(t, c.Recorder())
	want := replayedWith(t, c, deployer(echo("search"), failing("deploy", "cluster down"), instruction))
	require.NoError(t, want.err)
	require.NoError(t, c.Close(context.Background()))

	t.Setenv(replay.UpdateEnv, "")
	require.False(t, replay.Update())
	c, err = replay.Open(path, nil)
	require.NoError(t, err)
	require.False(t, c.Recording())
	assert.Nil(t, c.Recorder())
	got := replayedWith(t, c, deployer(must("search", t), must("deploy", t), instruction))
	require.NoError(t, got.err)
	assert.Equal(t, want.final, got.final)
	assert.Equal(t, "Deploy failed: the cluster is down.", got.final)
	assert.NoError(t, c.Close(context.Background()))
}

func TestOpenInRecordModeNeedsALiveModel(t *testing.T) {
	t.Setenv(replay.UpdateEnv, "true")
	_, err := replay.Open(filepath.Join(t.TempDir(), "x.jsonl"), nil)
	assert.ErrorContains(t, err, "Options.Live")
	_, err = replay.Open(filepath.Join(t.TempDir(), "x.json"), &replay.Options{Live: deployerModels()["deployer"]})
	assert.ErrorContains(t, err, "not ATIF")
}

func TestUpdateReadsTheUpdateFlag(t *testing.T) {
	t.Setenv(replay.UpdateEnv, "")
	require.NoError(t, flag.Set("update", "true"))
	t.Cleanup(func() { _ = flag.Set("update", "false") })
	assert.True(t, replay.Update())
	require.NoError(t, flag.Set("update", "false"))
	assert.False(t, replay.Update())
}

func TestTheInspectCommandQuotesAPathTheShellWouldSplit(t *testing.T) {
	assert.Equal(t, "lookout inspect testdata/run.jsonl", (&replay.DivergenceError{Path: "testdata/run.jsonl"}).Inspect())
	assert.Equal(t, `lookout inspect 'my runs/it'\''s.jsonl'`, (&replay.DivergenceError{Path: "my runs/it's.jsonl"}).Inspect())
	assert.Empty(t, (&replay.DivergenceError{}).Inspect(), "records given in memory have no file to open")
	assert.Equal(t, "lookout inspect --run r1 --seq 12 testdata/run.jsonl", (&replay.DivergenceError{Path: "testdata/run.jsonl", RunID: "r1", Seq: 12}).Inspect())
}

// A tool call the recording does not hold stops the replay at the tool,
// with the arguments of the run's next call of that tool as the diff.
func TestAToolCallNotInTheRecordingIsReported(t *testing.T) {
	records, _ := recordDeployer(t)
	var kept []recorder.Record
	for _, r := range records {
		if s, ok := r.Payload.(*recorder.ToolStarted); ok && s.Arguments == `{"q":"service"}` {
			continue
		}
		kept = append(kept, r)
	}
	c, err := replay.FromRecords(kept, nil)
	require.NoError(t, err)
	// The search for "service" finds no recorded call. Whether the
	// search for "version" has taken its own yet decides between the two
	// reasons, which both name the tool.
	got := replayed(t, c, deployer(must("search", t), must("deploy", t), instruction), "deploy billing")
	d := divergence(t, got.err)
	assert.Equal(t, 0, d.ModelCall, "the divergence is at a tool call")
	assert.NotEmpty(t, d.RunID)
	assert.Contains(t, d.Reason, "search")
	assert.Contains(t, d.Error(), `{"q":"service"}`)
	assert.Contains(t, d.Error(), " at seq ")
}
