package main

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/examples/quickstart/migrator"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

func TestQuickstartOffline(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out, migrator.Script(), "a scripted model", nil); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"## Trajectory Assessment\n\n_Generated after tool call #5_",
		"_Generated after tool call #8_", // three failing test runs in a row
		"### Resources [caution]",
		"### Errors [caution]\n\nThe last 3 calls all failed with",
		"tool run_tests -> Error: FAIL billing TestCharge",
		"Lookout injects this wrap_up message",
		"Your budget is nearly spent (no tool calls left: 9 of 9 used). Tools are withheld from this turn.",
		"Budget: 4,240 of 5,000 tokens (3,950 prompt, 290 completion) in 8 model calls, 0 without usage; 9 of 9 tool calls.",
		"Run ended: completed.\nFinal answer: I moved billing/client.go",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestQuickstartWithAnOpenAIServer takes the OPENAI_API_KEY path against a
// loopback OpenAI-compatible server.
func TestQuickstartWithAnOpenAIServer(t *testing.T) {
	srv := scripted.NewOpenAIServer(migrator.Script())
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_MODEL", "gpt-test")

	ctx := context.Background()
	chat, name, err := chatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(ctx, &out, chat, name, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"an unattended agent on gpt-test", "## Trajectory Assessment", "Run ended: completed."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestQuickstartWritesATrajectory(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	if err := start(context.Background(), &out, dir); err != nil {
		t.Fatal(err)
	}
	records, tear, err := recorder.ReadFile(filepath.Join(dir, "trajectory.jsonl"))
	if err != nil || tear != nil {
		t.Fatalf("read trajectory: %v %v", err, tear)
	}
	if len(records) < 20 {
		t.Fatalf("only %d records", len(records))
	}
	if _, ok := records[len(records)-1].Payload.(*recorder.RunEnded); !ok {
		t.Errorf("the last record is %s, not run_ended", records[len(records)-1].Kind())
	}
	traj, err := atif.FromRecords(records, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(traj)
	if err != nil {
		t.Fatal(err)
	}
	if problems := atif.Validate(doc); len(problems) > 0 {
		t.Errorf("the ATIF export is invalid: %v", problems)
	}
	if !strings.Contains(out.String(), "Trajectory written to") {
		t.Errorf("output lacks the trajectory path:\n%s", out.String())
	}
}

func TestQuickstartReplacesAnEarlierTrajectory(t *testing.T) {
	dir := t.TempDir()
	for range 2 {
		if err := start(context.Background(), io.Discard, dir); err != nil {
			t.Fatal(err)
		}
	}
	records, _, err := recorder.ReadFile(filepath.Join(dir, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if roots := atif.RootRuns(records); len(roots) != 1 {
		t.Errorf("the trajectory holds %d runs after two runs with the same DIR, want 1", len(roots))
	}
}
