package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

// result is what one run of the program produced.
type result struct {
	code           int
	stdout, stderr string
}

func lookout(args ...string) result {
	return lookoutWithInput(strings.NewReader(""), args...)
}

// lookoutWithInput runs the program with stdin as its standard input.
func lookoutWithInput(stdin io.Reader, args ...string) result {
	var out, errOut bytes.Buffer
	code := run(args, stdin, &out, &errOut)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// recordTrajectory records a root run and a child run: a user prompt, a
// model response with two parallel tool calls (one failing), the child
// run started by one of them, an assessment, a budget limit exceeded and
// the run's end.
func recordTrajectory(t testing.TB) []recorder.Record {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{Clock: func() time.Time {
		now = now.Add(time.Second)
		return now
	}})
	root, _ := rec.StartRun(ctx, recorder.RunInfo{RunID: "run-1", AgentName: "migrator", Limits: recorder.RunLimits{MaxTokens: 100}})
	_ = root.Message(ctx, schema.UserMessage("migrate the billing service"))
	_ = root.ModelRequest(ctx, recorder.ModelRequest{Model: "gpt-test", MessageCount: 1, Tools: []string{"shell", "helper"}})
	_ = root.ModelResponse(ctx, recorder.ModelResponse{
		Message: schema.AssistantMessage("", []schema.ToolCall{
			{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "shell", Arguments: `{"cmd":"make migrate"}`}},
			{ID: "c2", Type: "function", Function: schema.FunctionCall{Name: "helper", Arguments: `{"request":"check the schema"}`}},
		}),
		Usage:         recorder.TokenUsage{PromptTokens: 80, CompletionTokens: 30, TotalTokens: 110},
		UsageReported: true,
		FinishReason:  "tool_calls",
	})
	_ = root.ToolStarted(ctx, recorder.ToolStarted{CallID: "c1", Name: "shell", Arguments: `{"cmd":"make migrate"}`, CallIndex: 0})
	_ = root.ToolStarted(ctx, recorder.ToolStarted{CallID: "c2", Name: "helper", Arguments: `{"request":"check the schema"}`, CallIndex: 1})
	child, _ := root.StartChild(ctx, recorder.RunInfo{RunID: "run-2", AgentName: "helper", ParentToolCallID: "c2"})
	_ = child.Message(ctx, schema.UserMessage("check the schema"))
	_ = child.ModelResponse(ctx, recorder.ModelResponse{Message: schema.AssistantMessage("The schema is fine.", nil)})
	_ = child.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	_ = root.ToolEnded(ctx, recorder.ToolEnded{CallID: "c2", Name: "helper", Result: "The schema is fine.", CallIndex: 1, Duration: 2 * time.Second})
	_ = root.ToolEnded(ctx, recorder.ToolEnded{CallID: "c1", Name: "shell", IsError: true, Error: "exit status 2", CallIndex: 0, Duration: 3 * time.Second})
	_ = root.Assessment(ctx, recorder.AssessmentRecord{Markdown: "## Run status\n- token budget spent", AfterCallIndex: 1,
		Observers: []recorder.ObserverNote{{Name: "resource", Severity: "warning"}}})
	_ = root.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetExceeded, Resource: "tokens", Amount: 110, Used: 110, Limit: 100})
	_ = root.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeBudgetExceeded, StopReason: "tokens",
		Usage: recorder.RunUsage{PromptTokens: 80, CompletionTokens: 30, TotalTokens: 110, ToolCalls: 2, ModelCalls: 1}})
	require.NoError(t, rec.Close(ctx))
	return sink.Records()
}

// encode returns records as JSON Lines.
func encode(t testing.TB, records []recorder.Record) []byte {
	t.Helper()
	var b []byte
	for i := range records {
		var err error
		b, err = records[i].AppendJSON(b)
		require.NoError(t, err)
		b = append(b, '\n')
	}
	return b
}

// writeFile writes data to name in a new temporary folder and returns its
// path.
func writeFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// trajectoryFile writes the recorded trajectory and returns its path.
func trajectoryFile(t testing.TB) string {
	return writeFile(t, "trajectory.jsonl", encode(t, recordTrajectory(t)))
}

// lines returns the JSONL of the recorded trajectory, one string per line.
func lines(t testing.TB) []string {
	return strings.Split(strings.TrimSuffix(string(encode(t, recordTrajectory(t))), "\n"), "\n")
}

// fixtureDir returns the shared ATIF fixtures, which sit next to the
// module root. Without them the test is skipped locally and fails in CI.
func fixtureDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("module root (go.mod) not found above the test directory")
		}
		dir = parent
	}
	fixtures := filepath.Join(dir, "..", "shared", "fixtures", "atif")
	if _, err := os.Stat(fixtures); err != nil {
		if os.Getenv("CI") != "" || !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("ATIF fixtures missing: %v", err)
		}
		t.Skipf("ATIF fixtures not found at %s", fixtures)
	}
	return fixtures
}
