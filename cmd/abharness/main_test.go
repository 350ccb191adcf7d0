package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

func TestOfflineItPrintsTheScriptedAgentsTable(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), []string{"-seeds", "4"}, func(string) string { return "" }, &out))
	assert.True(t, strings.HasPrefix(out.String(), "| observer | agent | condition |"), out.String())
	assert.Contains(t, out.String(), "| Stall | parsing | block | 0 / 80 | +100% |")
	assert.Contains(t, out.String(), "| Drift | oblivious | placebo |")
}

// TestLiveRunsTheModelBehindTheEndpoint runs -live against the loopback
// server, whose model answers at once: no observer speaks, and every
// seed is counted silent.
func TestLiveRunsTheModelBehindTheEndpoint(t *testing.T) {
	srv := scripted.NewOpenAIServer(scripted.New(scripted.Forever(scripted.Reply("nothing to do"))))
	defer srv.Close()
	env := map[string]string{"OPENAI_BASE_URL": srv.BaseURL(), "OPENAI_API_KEY": "k", "OPENAI_MODEL": "m"}
	var out strings.Builder
	require.NoError(t, run(context.Background(), []string{"-live", "-seeds", "2"}, func(k string) string { return env[k] }, &out))
	assert.Contains(t, out.String(), "| Errors | model | placebo | 0 / 0 | +0% | +0% to +0% | 0 (2 silent) |")
}

func TestBadFlagsAreErrors(t *testing.T) {
	assert.Error(t, run(context.Background(), []string{"-seeds", "0"}, func(string) string { return "" }, &strings.Builder{}))
	assert.Error(t, run(context.Background(), []string{"-nope"}, func(string) string { return "" }, &strings.Builder{}))
}
