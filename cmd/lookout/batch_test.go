package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/simulate"
)

// simBatch runs a small simulation batch into a folder: "steady" books in
// each of its 4 repetitions, "flaky" in repetitions 0 and 2, and the
// agent answers with token usage.
func simBatch(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	scs := []*simulate.Scenario{
		{Name: "steady", Goal: "book", Goals: []simulate.Goal{simulate.ToolCalled("book")}, MaxTurns: 2},
		{Name: "flaky", Goal: "book", Goals: []simulate.Goal{simulate.ToolCalled("book")}, MaxTurns: 2},
	}
	b := &simulate.Batch{Scenarios: scs, Repetitions: 4, OutDir: out, Progress: io.Discard,
		Setup: func(_ context.Context, j simulate.Job) (*simulate.Runner, simulate.Target, error) {
			user := scripted.New(scripted.Forever(scripted.Reply("book it").WithUsage(50, 5)))
			var agent model.BaseChatModel = scripted.New(scripted.Call("book", "{}"), scripted.Forever(scripted.Reply("booked").WithUsage(1000, 100)))
			if j.Scenario.Name == "flaky" && j.Repetition%2 == 1 {
				agent = scripted.New(scripted.Forever(scripted.Reply("no").WithUsage(1000, 100)))
			}
			target := simulate.TargetFunc(func(ctx context.Context, h []*schema.Message) ([]*schema.Message, error) {
				m, err := agent.Generate(ctx, h)
				if err != nil || len(m.ToolCalls) == 0 {
					return []*schema.Message{m}, err
				}
				return []*schema.Message{m, schema.ToolMessage("ok", m.ToolCalls[0].ID, schema.WithToolName("book"))}, nil
			})
			return &simulate.Runner{UserModel: user, ModelNames: simulate.ModelNames{User: "mini", Agent: "big"}}, target, nil
		}}
	_, err := b.Run(context.Background())
	require.NoError(t, err)
	return out
}

func TestBatchReport(t *testing.T) {
	out := simBatch(t)
	t.Run("text", func(t *testing.T) {
		r := lookout("batch", "--price", "big=2,10", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		for _, want := range []string{
			"Runs: 8 finished, 0 unfinished",
			"Completed: 6 (75.0%)",
			"goal-reached       6",
			"max-turns          2",
			"pass^k over 4 repetitions:",
			"pass^1   0.750",
			"pass^4   0.500",
			"called book                              6/8 (75.0%)",
			"agent   big",
			"user    mini",
			"Failures by side: none",
		} {
			assert.Contains(t, r.stdout, want)
		}
		assert.Empty(t, r.stderr, "no progress when standard error is not a terminal")
	})
	t.Run("json", func(t *testing.T) {
		r := lookout("batch", "--json", "--price", "big=2,10", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		var s simulate.BatchSummary
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &s))
		assert.Equal(t, 8, s.Runs)
		assert.InDelta(t, 0.5, s.PassK[3], 1e-9)
		assert.Greater(t, s.PerConversation.ByRole["agent"].Cost, 0.0)
		assert.Zero(t, s.PerConversation.ByRole["user"].Cost, "no price for mini")
	})
	t.Run("progress on standard error", func(t *testing.T) {
		r := lookout("batch", "--progress", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stderr, "lookout: reading runs 8/8")
		assert.NotContains(t, r.stdout, "reading runs")
	})
	t.Run("bad price", func(t *testing.T) {
		r := lookout("batch", "--price", "big=two", out)
		assert.Equal(t, exitUsage, r.code)
	})
	t.Run("not a batch", func(t *testing.T) {
		r := lookout("batch", filepath.Join(out, "missing"))
		assert.Equal(t, exitProblems, r.code)
	})
}

func TestMergeCommand(t *testing.T) {
	out := simBatch(t)
	require.NoError(t, os.MkdirAll(filepath.Join(out, "cut-r0"), 0o700))
	t.Run("unfinished runs are listed and fail the merge", func(t *testing.T) {
		r := lookout("merge", out)
		assert.Equal(t, exitProblems, r.code)
		assert.Contains(t, r.stderr, "unfinished run left out: "+filepath.Join(out, "cut-r0"))
		lines, err := simulate.ReadJSONL(strings.NewReader(r.stdout))
		require.NoError(t, err)
		assert.Len(t, lines, 10, "6 runs of 1 turn and 2 of 2 turns")
		assert.Equal(t, "steady-r0", lines[0].ConversationID)
	})
	t.Run("allowed, to a file, with a JSON report", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "dataset.jsonl")
		r := lookout("merge", "--allow-unfinished", "--json", "--output", dst, out)
		require.Equal(t, exitOK, r.code, r.stderr)
		var rep simulate.MergeReport
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
		assert.Equal(t, 8, rep.Runs)
		assert.Len(t, rep.Unfinished, 1)
		data, err := os.ReadFile(dst)
		require.NoError(t, err)
		assert.Equal(t, rep.Lines, strings.Count(string(data), "\n"))
	})
	t.Run("--json needs --output", func(t *testing.T) {
		assert.Equal(t, exitUsage, lookout("merge", "--json", out).code)
	})
}
