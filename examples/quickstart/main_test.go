package main

import (
	"context"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/adapters/scripted"
)

func TestQuickstartOffline(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out, script(), "a scripted model"); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"## Trajectory Assessment\n\n_Generated after tool call #5_",
		"_Generated after tool call #8_", // three failing test runs in a row
		"### Resources [caution]",
		"tool run_tests -> Error: FAIL billing TestCharge",
		"tool run_tests -> Tool call refused: the tool-call budget is spent",
		"Lookout injects this wrap_up message",
		"Budget: 5605 of 5000 tokens (5270 prompt, 335 completion) in 10 model calls, 0 without usage; 9 of 9 tool calls.",
		"Run ended: completed.",
		"overruns it by at most one response",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestQuickstartWithAnOpenAIServer takes the OPENAI_API_KEY path against a
// loopback OpenAI-compatible server.
func TestQuickstartWithAnOpenAIServer(t *testing.T) {
	srv := scripted.NewOpenAIServer(script())
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
	if err := run(ctx, &out, chat, name); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"an unattended agent on gpt-test", "## Trajectory Assessment", "Run ended: completed."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
