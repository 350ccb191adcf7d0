package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestTheReplayMatches(t *testing.T) {
	tmp := t.TempDir()
	var out strings.Builder
	if status := run(context.Background(), &out, false, tmp); status != 0 {
		t.Fatalf("exit status %d:\n%s", status, out.String())
	}
	for _, want := range []string{
		"Recorded the quickstart agent on its scripted model: 4,240 tokens in 8 model calls, 9 tool calls.",
		"Replayed without the model: the replay matched the recording: the same budget (4,240 tokens in 8 model calls, 9 tool calls), the same 19 events",
		"Final answer: I moved billing/client.go to payments.Charge.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("the recording was not removed: %v", entries)
	}
}

func TestBreakPrintsTheDivergenceAndFails(t *testing.T) {
	tmp := t.TempDir()
	var out strings.Builder
	if status := run(context.Background(), &out, true, tmp); status != 1 {
		t.Fatalf("exit status %d, want 1:\n%s", status, out.String())
	}
	for _, want := range []string{
		"(agent migrator) at model call 5 (seq ",
		"input message 12 (the result of tool call #6, run_tests) differs",
		"\n- Error: FAIL billing TestCharge: unknown field \"currency_code\" in testdata/charge.json\n+ ok  \tbilling\t0.012s\n",
		"Open the recording there: lookout inspect --run ",
		"The recording is kept in " + tmp,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "matched") {
		t.Errorf("a broken replay says it matched:\n%s", out.String())
	}
}
