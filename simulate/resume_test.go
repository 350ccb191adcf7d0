package simulate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResumeRerunsJobsWhoseFingerprintChanged(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	scenarios := func(maxTurns int) []*Scenario {
		var scs []*Scenario
		for i := range 20 {
			scs = append(scs, &Scenario{Name: fmt.Sprintf("s%d", i), Goal: "g", MaxTurns: maxTurns})
		}
		return scs
	}
	b := &Batch{Scenarios: scenarios(10), Repetitions: 10, Concurrency: 4, OutDir: out, Progress: io.Discard,
		Setup: func(context.Context, Job) (*Runner, Target, error) {
			return &Runner{UserModel: stepUser()}, echoTarget(), nil
		}}
	rep, err := b.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 200, rep.Ran)

	rep, err = b.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 200, rep.Skipped, "nothing changed")

	b.Scenarios = scenarios(5)
	rep, err = b.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 200, rep.Ran, "MaxTurns changed: every job runs again")
	assert.Equal(t, 0, rep.Skipped)
	for _, j := range rep.Jobs {
		assert.Equal(t, 5, j.End.Turns)
		m, ok := readMarker(j.Dir, DoneFile)
		require.True(t, ok)
		assert.Equal(t, b.Fingerprint(j.Job), m.Fingerprint)
		assert.Equal(t, LookoutVersion(), m.LookoutVersion)
	}

	b.Version = "agent v2"
	rep, err = b.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 200, rep.Ran, "the batch's Version changed")
}

func TestFingerprintCoversScenarioAndOptions(t *testing.T) {
	j := Job{Scenario: &Scenario{Name: "s", Goal: "g"}}
	b := &Batch{}
	base := b.Fingerprint(j)
	assert.Len(t, base, 64)
	assert.Equal(t, base, b.Fingerprint(j), "stable")
	for name, change := range map[string]func() (*Batch, Job){
		"goal":     func() (*Batch, Job) { return b, Job{Scenario: &Scenario{Name: "s", Goal: "h"}} },
		"maxTurns": func() (*Batch, Job) { return b, Job{Scenario: &Scenario{Name: "s", Goal: "g", MaxTurns: 3}} },
		"persona": func() (*Batch, Job) {
			return b, Job{Scenario: &Scenario{Name: "s", Goal: "g", Persona: Persona{Name: "Ana"}}}
		},
		"runner":  func() (*Batch, Job) { return &Batch{Runner: &Runner{UserContextTurns: 4}}, j },
		"version": func() (*Batch, Job) { return &Batch{Version: "v2"}, j },
	} {
		bb, jj := change()
		assert.NotEqual(t, base, bb.Fingerprint(jj), name)
	}
}

func TestTempFilesAreRemovedOnTheNextStart(t *testing.T) {
	out := t.TempDir()
	job := filepath.Join(out, "s-r0")
	require.NoError(t, os.MkdirAll(job, 0o700))
	litter := []string{filepath.Join(job, ".conversation.jsonl.tmp123"), filepath.Join(job, ".done.json.tmp9"), filepath.Join(out, ".x.tmp1")}
	for _, f := range litter {
		require.NoError(t, os.WriteFile(f, []byte("half"), 0o600))
	}
	keep := filepath.Join(job, "notes.txt")
	require.NoError(t, os.WriteFile(keep, nil, 0o600))
	b := &Batch{Scenarios: []*Scenario{{Name: "s", Goal: "g", MaxTurns: 1}}, OutDir: out, Progress: io.Discard, Runner: &Runner{UserModel: stepUser()}, Target: echoTarget()}
	_, err := b.Run(context.Background())
	require.NoError(t, err)
	for _, f := range litter {
		assert.NoFileExists(t, f)
	}
	assert.FileExists(t, keep)
	assert.Empty(t, temps(t, out))
}

func TestMergeTakesFinishedRunsAndListsTheRest(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	failing := &fakeModel{fn: func(int, []*schema.Message) (*schema.Message, error) { return nil, errors.New("user model refused") }}
	b := &Batch{
		Scenarios: []*Scenario{{Name: "ok", Goal: "g", MaxTurns: 2}, {Name: "broken", Goal: "g", Metadata: map[string]any{"suite": "x"}}},
		OutDir:    out, Progress: io.Discard,
		Setup: func(_ context.Context, j Job) (*Runner, Target, error) {
			if j.Scenario.Name == "broken" {
				return &Runner{UserModel: failing}, echoTarget(), nil
			}
			return &Runner{UserModel: stepUser()}, echoTarget(), nil
		},
	}
	rep, err := b.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Failed)
	assert.FileExists(t, filepath.Join(out, "broken-r0", FailedFile))
	// A run cut short: artifacts, no marker.
	require.NoError(t, os.MkdirAll(filepath.Join(out, "partial-r0"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(out, "partial-r0", ConversationFile), []byte("{}\n"), 0o600))

	var buf bytes.Buffer
	mr, err := Merge(&buf, MergeOptions{}, out)
	require.NoError(t, err)
	assert.Equal(t, 2, mr.Runs)
	assert.Equal(t, 3, mr.Lines)
	assert.Equal(t, []string{filepath.Join(out, "broken-r0")}, mr.Failed)
	assert.Equal(t, []string{filepath.Join(out, "partial-r0")}, mr.Unfinished)
	lines, err := ReadJSONL(&buf)
	require.NoError(t, err)
	require.Len(t, lines, 3)
	assert.Equal(t, "ok-r0", lines[0].ConversationID)
	broken := lines[2]
	assert.Equal(t, "broken-r0", broken.ConversationID)
	assert.Empty(t, broken.Output)
	end := broken.Metadata["end"].(map[string]any)
	assert.Equal(t, "error", end["reason"])
	assert.Equal(t, "simulator", end["errorSide"])
	assert.Contains(t, end["error"], "user model refused")
	assert.Equal(t, map[string]any{"suite": "x"}, broken.Metadata["scenario"])

	buf.Reset()
	mr, err = Merge(&buf, MergeOptions{SkipFailed: true}, out)
	require.NoError(t, err)
	assert.Equal(t, 1, mr.Runs)
	assert.Len(t, mr.Failed, 1)

	_, err = Merge(&buf, MergeOptions{}, out, out)
	assert.ErrorIs(t, err, ErrInvalidBatch, "one job in two folders")
	_, err = Merge(&buf, MergeOptions{})
	assert.Error(t, err)
}

func TestShardFromEnv(t *testing.T) {
	t.Run("unset: one shard", func(t *testing.T) {
		t.Setenv(EnvShard, "")
		s, n, err := ShardFromEnv()
		require.NoError(t, err)
		assert.Equal(t, [2]int{0, 1}, [2]int{s, n})
	})
	t.Run("an Indexed Job's pod", func(t *testing.T) {
		t.Setenv(EnvShard, "3")
		t.Setenv(EnvShards, "8")
		s, n, err := ShardFromEnv()
		require.NoError(t, err)
		assert.Equal(t, [2]int{3, 8}, [2]int{s, n})
	})
	for name, env := range map[string][2]string{
		"no count": {"1", ""}, "index not a number": {"x", "2"}, "count not a number": {"1", "two"},
		"index past the count": {"2", "2"}, "zero count": {"0", "0"}, "negative index": {"-1", "2"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(EnvShard, env[0])
			t.Setenv(EnvShards, env[1])
			_, _, err := ShardFromEnv()
			assert.ErrorIs(t, err, ErrInvalidBatch)
		})
	}
}

// killBatch is the batch of the kill-and-resume test: 200 jobs of 10
// turns, whose outputs depend on nothing but the job. Half of them book in
// their last turn and end with goal-reached, the others with max-turns.
func killBatch(out string, progress io.Writer) *Batch {
	var scs []*Scenario
	for i := range 20 {
		sc := &Scenario{Name: fmt.Sprintf("s%02d", i), Goal: "g", MaxTurns: 10}
		if i%2 == 0 {
			sc.Goals = []Goal{ToolCalled("book")} // met in the tenth turn
		}
		scs = append(scs, sc)
	}
	fixed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &Batch{
		Scenarios: scs, Repetitions: 10, Concurrency: 8, OutDir: out, Progress: io.Discard,
		Setup: func(_ context.Context, j Job) (*Runner, Target, error) {
			bookAt := 9
			return &Runner{UserModel: stepUser(), Clock: func() time.Time { return fixed }},
				toolTarget(func(turn int) string {
					if turn == bookAt {
						return "book"
					}
					return "search"
				}), nil
		},
		OnResult: func(j Job, _ *Result, _ error) {
			if progress != nil {
				fmt.Fprintln(progress, j.ID)
			}
		},
	}
}

const killDirEnv = "LOOKOUT_TEST_KILL_BATCH_DIR"

// TestKillBatchChild runs the kill-and-resume batch in the folder the
// parent test names; on its own it does nothing.
func TestKillBatchChild(t *testing.T) {
	out := os.Getenv(killDirEnv)
	if out == "" {
		t.Skip("run by TestKillAndResume")
	}
	if _, err := killBatch(out, os.Stdout).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestKillAndResume(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("needs SIGKILL and a child process")
	}
	ctx := context.Background()
	want := t.TempDir()
	rep, err := killBatch(want, nil).Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 200, rep.Ran)

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 7))
	got := t.TempDir()
	for round := range 5 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillBatchChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), killDirEnv+"="+got)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		// Kill after a random number of finished jobs: the other workers
		// are then anywhere in their runs and their writes.
		k := rnd.IntN(60)
		sc := bufio.NewScanner(stdout)
		for n := 0; n < k && sc.Scan(); n++ {
		}
		require.NoError(t, cmd.Process.Signal(os.Kill))
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
		t.Logf("round %d: killed after %d jobs; %d temporary files left", round, k, len(temps(t, got)))
	}
	rep, err = killBatch(got, nil).Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, rep.Failed)
	assert.Equal(t, 200, rep.Ran+rep.Skipped)
	assert.Empty(t, temps(t, got), "no temporary file is left")

	var a, b bytes.Buffer
	ra, err := Merge(&a, MergeOptions{}, want)
	require.NoError(t, err)
	rb, err := Merge(&b, MergeOptions{}, got)
	require.NoError(t, err)
	assert.Equal(t, *ra, *rb)
	assert.Equal(t, 200, rb.Runs)
	assert.Equal(t, a.String(), b.String(), "the merged dataset does not depend on the kills")
	la, err := ReadJSONL(&a)
	require.NoError(t, err)
	reasons := map[StopReason]int{}
	for _, l := range la {
		if e, ok := l.Metadata["end"].(map[string]any); ok {
			reasons[StopReason(e["reason"].(string))]++
		}
	}
	assert.Equal(t, map[StopReason]int{StopGoalReached: 100, StopMaxTurns: 100}, reasons)
	assert.Len(t, la, 200*10, "every run played ten turns")
}

// temps lists the temporary files under root.
func temps(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.Contains(d.Name(), ".tmp") {
			out = append(out, p)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}
