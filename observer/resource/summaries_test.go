package resource_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer/resource"
)

var update = flag.Bool("update", false, "rewrite testdata/summaries.txt from the observer's output")

// summaryGrid returns the assessments of a grid of budgets, one line each,
// assessed one after the other by one observer, so that what the observer
// keeps from one call to the next meets limits, times and uses that change
// between calls.
func summaryGrid() string {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	lims := []budget.Limits{
		{Timeout: 2 * time.Hour},
		{Timeout: time.Hour, MaxTokens: 50_000},
		{Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 100},
		{Timeout: 3 * time.Hour, MaxToolCalls: 1, MaxModelCalls: 10, MaxCostUSD: 2},
		{MaxTokens: 1 << 40, MaxToolCalls: 1 << 40},
		{Timeout: time.Hour, MaxTokens: 1 << 40, MaxToolCalls: 1 << 40},
		{Timeout: 72 * time.Hour, MaxTokens: 999_999, MaxModelCalls: 1_000_001},
	}
	offsets := []time.Duration{0, 500 * time.Millisecond, time.Second, 59*time.Second + 999*time.Millisecond, 90 * time.Second,
		10 * time.Minute, 29*time.Minute + 30*time.Second, 59*time.Minute + 59*time.Second, time.Hour, 61 * time.Minute,
		150 * time.Minute, 25 * time.Hour, 100 * time.Hour}
	uses := []struct{ tokens, toolCalls, modelCalls int64 }{
		{0, 0, 0}, {2_901, 12, 13}, {12_000, 1, 1}, {20_000, 20, 20}, {49_800, 99, 9}, {50_000, 100, 10},
		{999_998, 2, 1_000_000}, {60_000, 150, 11}, {-5, -1, 0},
	}
	var out strings.Builder
	r := resource.New()
	strict := &resource.Observer{CautionAt: 1, WarningAt: 0.5, MinPaceCalls: 1}
	for _, l := range lims {
		for i, u := range uses {
			for _, d := range offsets {
				b := budget.New(l, start)
				b.TokensUsed, b.ToolCalls, b.ModelCalls = u.tokens, u.toolCalls, u.modelCalls
				b.CostUSD = float64(u.modelCalls) / 7
				a := r.Assess(b, start.Add(d))
				fmt.Fprintf(&out, "%s\t%s\n", a.Severity, a.Summary)
				if i%3 == 1 {
					// Without a start, the time allowed is unknown.
					b.StartedAt = time.Time{}
					a = strict.Assess(b, start.Add(d))
					fmt.Fprintf(&out, "%s\t%s\n", a.Severity, a.Summary)
				}
			}
		}
	}
	a := r.Assess(budget.Budget{}, start)
	fmt.Fprintf(&out, "%s\t%s\n", a.Severity, a.Summary)
	return out.String()
}

// The observer's summaries are compared with those of a table of budgets
// kept in testdata: the texts it keeps from one call to the next must not
// change what it says.
func TestSummariesOfAGridOfBudgets(t *testing.T) {
	const path = "testdata/summaries.txt"
	got := summaryGrid()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("%d lines, want %d", len(gotLines), len(wantLines))
	}
	for i := range gotLines {
		if gotLines[i] != wantLines[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, gotLines[i], wantLines[i])
		}
	}
	// A second pass meets every text again, now kept from earlier calls.
	if again := summaryGrid(); again != got {
		t.Error("a second pass over the grid says something else")
	}
}
