package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder/summary"
)

const modelAnswer = "Here you go:\n```json\n" +
	`{"summary":"The agent ran the migration and asked a helper to check the schema.","tools_rationale":"shell runs the migration; helper reviews the schema.","key_findings":["make migrate exits with status 2","the schema is fine"],"confidence":"medium"}` +
	"\n```"

const modelAnswerSummary = "The agent ran the migration and asked a helper to check the schema."

// serve points the summarize command at a loopback OpenAI server playing
// m.
func serve(t *testing.T, m *scripted.Model) {
	t.Helper()
	srv := scripted.NewOpenAIServer(m)
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_MODEL", "scripted-1")
}

func TestSummarizeWithAModelSummarizesEachPrompt(t *testing.T) {
	m := scripted.New(scripted.Forever(scripted.Reply(modelAnswer)))
	serve(t, m)

	r := lookout("summarize", "--concurrency", "1", trajectoryFile(t))

	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.Contains(t, r.stdout, "runs: 2 (1 root, 1 child)", "the analytics come first")
	assert.Contains(t, r.stdout, "prompt summaries by scripted-1\n")
	assert.Contains(t, r.stdout, `prompt at run run-1 seq 1: "migrate the billing service"
  work: 1 model call, 2 tool calls (helper, shell), 1 error, 13s
  confidence: medium
  summary: The agent ran the migration and asked a helper to check the schema.
  tools rationale: shell runs the migration; helper reviews the schema.
  key findings:
    - make migrate exits with status 2
    - the schema is fine
`)
	assert.Contains(t, r.stdout, "prompts: 2, 2 summarized, 0 failed; 1.00 model calls per prompt; confidence medium 2\n")

	require.Equal(t, 2, m.Calls())
	req, _ := m.Request(0)
	assert.True(t, req.Contains("migrate the billing service"))
	assert.True(t, req.Contains("tool shell failed: exit status 2"))
	assert.True(t, req.Contains(`"confidence"`), "the instructions ask for JSON")
}

func TestSummarizeJSON(t *testing.T) {
	serve(t, scripted.New(scripted.Forever(scripted.Reply(modelAnswer))))

	r := lookout("summarize", "--json", trajectoryFile(t))

	require.Equal(t, 0, r.code, r.stderr)
	var out struct {
		Report      summary.Report      `json:"report"`
		Model       string              `json:"model"`
		Prompts     []summary.Prompt    `json:"prompts"`
		PromptStats summary.PromptStats `json:"prompt_stats"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	assert.Equal(t, summary.Analyze(recordTrajectory(t)), out.Report)
	assert.Equal(t, "scripted-1", out.Model)
	require.Len(t, out.Prompts, 2)
	p := out.Prompts[0]
	assert.Equal(t, "run-1", p.RunID)
	assert.Equal(t, uint64(1), p.Seq)
	assert.Equal(t, summary.Medium, p.Confidence)
	assert.Equal(t, []string{"make migrate exits with status 2", "the schema is fine"}, p.Findings)
	assert.False(t, p.SummarizedAt.IsZero())
	assert.Equal(t, map[string]int{"medium": 2}, out.PromptStats.Confidence)
}

func TestSummarizeReportsAFailingModelPerPrompt(t *testing.T) {
	cases := map[string]scripted.Turn{
		"a model error":   scripted.Fail(errors.New("overloaded")),
		"a garbled reply": scripted.Reply("I would rather not."),
	}
	for name, first := range cases {
		t.Run(name, func(t *testing.T) {
			serve(t, scripted.New(first, scripted.Reply(modelAnswer)))

			r := lookout("summarize", "--concurrency", "1", "--max-attempts", "1", "--max-failures", "1", trajectoryFile(t))

			require.Equal(t, 0, r.code, "one failure is within --max-failures 1")
			assert.Contains(t, r.stderr, "lookout: summarize: 1 of 2 prompts could not be summarized")
			assert.Contains(t, r.stdout, "runs: 2 (1 root, 1 child)")
			assert.Contains(t, r.stdout, "  work: 1 model call, 2 tool calls (helper, shell), 1 error, 13s\n  summary failed: summary: ")
			assert.Contains(t, r.stdout, `prompt at run run-2 seq 1: "check the schema"`)
			assert.Contains(t, r.stdout, "prompts: 2, 1 summarized, 1 failed")
		})
	}
}

func TestSummarizeWithoutAModelCountsPrompts(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")

	r := lookout("summarize", trajectoryFile(t))

	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "prompt summaries: no model configured (set OPENAI_API_KEY)\n")
	assert.Contains(t, r.stdout, "prompt at run run-2 seq 1: \"check the schema\"\n  work: 1 model call, 0 tool calls (none), 0 errors, 2s\n  answer: \"The schema is fine.\"\n")
	assert.Contains(t, r.stdout, "prompts: 2, 0 summarized, 0 failed")
}

func TestSummarizeOfACorruptFileFails(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	r := lookout("summarize", writeFile(t, "bad.jsonl", []byte("nope\n{}\n")))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "recorder: line 1 (offset 0): malformed record")
	assert.Empty(t, r.stdout)
}

func TestSummarizeGivesUpOnASlowModelAtTheTimeout(t *testing.T) {
	slow := scripted.Func(func(ctx context.Context, _ []*schema.Message, _ *model.Options) (*schema.Message, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	serve(t, scripted.New(scripted.Forever(slow)))

	r := lookout("summarize", "--timeout", "50ms", trajectoryFile(t))

	require.Equal(t, exitProblems, r.code, "failed prompts fail the command")
	assert.Contains(t, r.stderr, "lookout: summarize: 2 of 2 prompts could not be summarized")
	assert.Contains(t, r.stderr, "lookout: summarize: 2 prompts failed, more than --max-failures 0")
	assert.Equal(t, 2, strings.Count(r.stdout, "context deadline exceeded\n"))
	assert.Contains(t, r.stdout, "runs: 2 (1 root, 1 child)")
}

func TestSummarizeFailsPastMaxFailures(t *testing.T) {
	serve(t, scripted.New(scripted.Forever(scripted.Fail(errors.New("overloaded")))))
	r := lookout("summarize", "--max-attempts", "2", "--max-failures", "1", trajectoryFile(t))
	assert.Equal(t, exitProblems, r.code)
	assert.Contains(t, r.stderr, "2 prompts failed, more than --max-failures 1")
	assert.Contains(t, r.stdout, "runs: 2 (1 root, 1 child)", "the report still comes out")
}

func TestSummarizeResumesFromItsState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.jsonl")
	// The first run summarizes one prompt, then the model goes down.
	m := scripted.New(scripted.Reply(modelAnswer), scripted.Forever(scripted.Fail(errors.New("down"))))
	serve(t, m)
	r := lookout("summarize", "--concurrency", "1", "--max-attempts", "1", "--state", state, trajectoryFile(t))
	assert.Equal(t, exitProblems, r.code)
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(data), "\n"), "both prompts were saved as they were done")

	m2 := scripted.New(scripted.Forever(scripted.Reply(modelAnswer)))
	serve(t, m2)
	r = lookout("summarize", "--state", state, trajectoryFile(t))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, 1, m2.Calls(), "only the failed prompt is sent again")
	assert.Contains(t, r.stdout, "prompts: 2, 2 summarized, 0 failed")
}

func TestSummarizeLooksUpAConversationsTurn(t *testing.T) {
	m := scripted.New(scripted.Forever(scripted.Reply(modelAnswer)))
	serve(t, m)
	state := filepath.Join(t.TempDir(), "state.jsonl")
	r := lookout("summarize", "--json", "--state", state, "--conversation", "run-2", "--turn", "0", trajectoryFile(t))
	require.Equal(t, exitOK, r.code, r.stderr)
	var out struct {
		Prompts []summary.Prompt `json:"prompts"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.Len(t, out.Prompts, 1)
	assert.Equal(t, "check the schema", out.Prompts[0].Query)
	assert.Equal(t, "run-2", out.Prompts[0].Conversation)
	assert.Equal(t, modelAnswerSummary, out.Prompts[0].Summary)
	require.Equal(t, 1, m.Calls(), "only the prompt shown is summarized")
	req, _ := m.Request(0)
	assert.True(t, req.Contains("check the schema"))
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(data), "\n"), "only the prompt shown is saved")

	assert.Equal(t, exitUsage, lookout("summarize", "--turn", "1", trajectoryFile(t)).code)
	assert.Equal(t, exitUsage, lookout("summarize", "--concurrency", "0", trajectoryFile(t)).code)
}
