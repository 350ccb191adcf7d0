package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

func TestTheQueryPrintsItsRunTreeAndBudget(t *testing.T) {
	var out strings.Builder
	if err := start(context.Background(), &out, ""); err != nil {
		t.Fatal(err)
	}
	want := "root lead: completed, final answer\n" +
		"  └ lead: completed, handed over: transfer_to_agent\n" +
		"  └ researcher: completed, final answer\n" +
		"  └ lead: completed, handed over: transfer_to_agent\n" +
		"  └ checker: completed, final answer\n" +
		"  └ checker: completed, handed over: exit\n" +
		"Budget: 3,080 of 20,000 tokens, 8 of 8 model calls, 3 of 6 tool calls.\n" +
		"Answer: Checked the sources; stopping at the budget.\n"
	if got := out.String(); !strings.Contains(got, want) {
		t.Errorf("output lacks\n%s\nin:\n%s", want, got)
	}
}

func TestOutWritesTheQueryAndReplacesAnEarlierFile(t *testing.T) {
	dir := t.TempDir()
	for range 2 {
		var out strings.Builder
		if err := start(context.Background(), &out, dir); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "Trajectory written to") {
			t.Errorf("output lacks the trajectory path:\n%s", out.String())
		}
	}
	records, tear, err := recorder.ReadFile(filepath.Join(dir, "trajectory.jsonl"))
	if err != nil || tear != nil {
		t.Fatalf("read trajectory: %v %v", err, tear)
	}
	roots, children := runNames(records)
	if got := strings.Join(roots, ","); got != "lead" {
		t.Errorf("roots %s, want lead alone: one query, the second run replacing the first", got)
	}
	if got := strings.Join(children, ","); got != "lead,researcher,lead,checker,checker" {
		t.Errorf("children %s", got)
	}
	if last := records[len(records)-1]; last.Kind() != recorder.KindRunEnded || last.ParentRunID != "" {
		t.Errorf("the last record is %s of run %s, not the root's run_ended", last.Kind(), last.RunID)
	}
}

// runNames returns the agent names of the root runs and of the child runs
// of records, in the order they started.
func runNames(records []recorder.Record) (roots, children []string) {
	for _, r := range records {
		started, ok := r.Payload.(*recorder.RunStarted)
		switch {
		case !ok:
		case r.ParentRunID == "":
			roots = append(roots, started.AgentName)
		default:
			children = append(children, started.AgentName)
		}
	}
	return roots, children
}
