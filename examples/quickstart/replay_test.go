package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/replay"
)

// TestQuickstartReplays records the quickstart on its scripted model and
// replays the recording without it: the output (every assessment, the
// budget, the final answer) and the trajectory (tool calls with their
// indices, assessments, budget charges) are the same.
func TestQuickstartReplays(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "trajectory.jsonl")
	var recorded strings.Builder
	if err := start(ctx, &recorded, dir); err != nil {
		t.Fatal(err)
	}
	c, err := replay.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	var replayed strings.Builder
	if err := run(ctx, &replayed, c.Model(), "a scripted model", rec); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	if n := c.Remaining(); n != 0 {
		t.Errorf("%d recorded model calls were not played", n)
	}

	// The first line names the model.
	_, want, _ := strings.Cut(strings.TrimSuffix(recorded.String(), "Trajectory written to "+path+"\n"), "\n")
	_, got, _ := strings.Cut(replayed.String(), "\n")
	if got != want {
		t.Errorf("the replay printed\n%s\nthe recorded run\n%s", got, want)
	}
	if !strings.Contains(got, "Final answer: I moved billing/client.go") {
		t.Errorf("the replay did not complete:\n%s", got)
	}

	original, _, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents, gotEvents := events(original), events(sink.Records())
	if len(wantEvents) < 20 || strings.Join(gotEvents, "\n") != strings.Join(wantEvents, "\n") {
		t.Errorf("the replay recorded\n%s\nthe recording holds\n%s", strings.Join(gotEvents, "\n"), strings.Join(wantEvents, "\n"))
	}
}

// events lists what a trajectory says happened, without times and ids.
// The calls of one reply run in parallel and take their indices in the
// order they arrive, in a live run as in a replay: within a reply, the
// calls are listed sorted, and their indices apart.
func events(records []recorder.Record) []string {
	var out, batch []string
	var indices []int
	flush := func() {
		slices.Sort(batch)
		slices.Sort(indices)
		out = append(out, batch...)
		if len(indices) > 0 {
			out = append(out, fmt.Sprint("indices ", indices))
		}
		batch, indices = nil, nil
	}
	for _, r := range records {
		switch p := r.Payload.(type) {
		case *recorder.ToolStarted:
			batch = append(batch, fmt.Sprintf("tool_started %s %s", p.Name, p.Arguments))
		case *recorder.ToolEnded:
			batch = append(batch, fmt.Sprintf("tool_ended %s %q %q", p.Name, p.Result, p.Error))
			indices = append(indices, p.CallIndex)
		case *recorder.AssessmentRecord:
			flush()
			out = append(out, fmt.Sprintf("assessment after #%d %v\n%s", p.AfterCallIndex, p.Observers, p.Markdown))
		case *recorder.BudgetRecord:
			out = append(out, fmt.Sprintf("budget %s %s %d %d/%d", p.Event, p.Resource, p.Amount, p.Used, p.Limit))
		case *recorder.ModelResponse:
			flush()
			out = append(out, fmt.Sprintf("model_response %q %d calls %+v", p.Message.Content, len(p.Message.ToolCalls), p.Usage))
		case *recorder.RunEnded:
			flush()
			out = append(out, fmt.Sprintf("run_ended %s %s %+v", p.Outcome, p.StopReason, p.Usage))
		}
	}
	return out
}
