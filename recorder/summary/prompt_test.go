package summary_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

func TestSplitCutsARunAtEachUserMessage(t *testing.T) {
	prompts := summary.Split(twoPrompts().records)

	require.Len(t, prompts, 3)
	first := prompts[0]
	assert.Equal(t, summary.Prompt{
		RunID: "r1", Seq: 1, At: twoPrompts().records[1].RecordedAt, Conversation: "r1", Turn: 0,
		Query: "list the files", Response: "There are two files.",
		Tools: []string{"ls"}, ToolCalls: 1, ModelCalls: 2, Tokens: 28, Duration: 4 * time.Second,
	}, first)
	assert.Equal(t, []string{"rm"}, prompts[1].Tools)
	assert.Equal(t, 1, prompts[1].ToolErrors)
	assert.Equal(t, "I could not.", prompts[1].Response)
	assert.Equal(t, "r2", prompts[2].RunID)
	p, ok := prompts.Lookup("r1", 1)
	require.True(t, ok, "a run without conversation metadata is its own conversation")
	assert.Equal(t, uint64(6), p.Seq)
	_, ok = prompts.Lookup("r1", 2)
	assert.False(t, ok)
}

func TestPromptsArePlacedByTheirRunsConversationMetadata(t *testing.T) {
	tp := newTape()
	tp.add("turn-a", &recorder.RunStarted{Metadata: map[string]string{summary.MetaConversation: "conv-7", summary.MetaTurn: "3"}})
	tp.user("turn-a", "book it").reply("turn-a", "booked", 1, 1).user("turn-a", "thanks")
	prompts := summary.Split(tp.records)
	require.Len(t, prompts, 2)
	assert.Equal(t, [2]any{"conv-7", 3}, [2]any{prompts[0].Conversation, prompts[0].Turn})
	p, ok := prompts.Lookup("conv-7", 4)
	require.True(t, ok)
	assert.Equal(t, "thanks", p.Query)
}

func TestSplitOrdersARunBySeq(t *testing.T) {
	records := newTape().user("r", "one").reply("r", "a", 1, 1).user("r", "two").records
	records[0], records[2] = records[2], records[0]
	prompts := summary.Split(records)
	require.Len(t, prompts, 2)
	assert.Equal(t, "one", prompts[0].Query)
	assert.Equal(t, "a", prompts[0].Response)
	assert.Equal(t, "two", prompts[1].Query)
}

func TestSplitReadsMultimodalUserText(t *testing.T) {
	tp := newTape()
	tp.add("r", &recorder.Message{Message: &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "what is"},
		{Type: schema.ChatMessagePartTypeImageURL},
		{Type: schema.ChatMessagePartTypeText, Text: "in this picture?"},
	}}})
	assert.Equal(t, "what is\nin this picture?", summary.Split(tp.records)[0].Query)
}

func TestPromptStatsTally(t *testing.T) {
	ps := summary.Prompts{
		{Tools: []string{"ls"}, ModelCalls: 2, Summary: "s", Confidence: summary.High},
		{Tools: []string{"ls", "rm"}, ModelCalls: 3, Summary: "s"},
		{ModelCalls: 1, Error: "boom"},
		{ModelCalls: 0},
	}
	assert.Equal(t, summary.PromptStats{
		Prompts: 4, Summarized: 2, Failed: 1,
		Confidence: map[string]int{"high": 1, "unknown": 1},
		Tools:      []string{"ls", "rm"},
		ModelCalls: 6, AverageModelCalls: 1.5,
	}, ps.Stats())
	assert.Equal(t, summary.PromptStats{}, summary.Prompts(nil).Stats())
}

func TestPromptsWriteText(t *testing.T) {
	ps := summary.Prompts{
		{RunID: "r1", Seq: 1, Query: "list\nfiles", Response: "two", Tools: []string{"ls"}, ToolCalls: 1, ModelCalls: 2, Duration: time.Second,
			Summary: "Listed.", Rationale: "ls lists.", Findings: []string{"a", "b"}, Confidence: summary.Medium},
		{RunID: "r1", Seq: 6, Query: "delete", ModelCalls: 1, Error: "summary: model call failed: 429"},
	}
	var buf bytes.Buffer
	require.NoError(t, ps.WriteText(&buf))
	assert.Equal(t, `prompt at run r1 seq 1: "list files"
  work: 2 model calls, 1 tool call (ls), 0 errors, 1s
  answer: "two"
  confidence: medium
  summary: Listed.
  tools rationale: ls lists.
  key findings:
    - a
    - b

prompt at run r1 seq 6: "delete"
  work: 1 model call, 0 tool calls (none), 0 errors, 0s
  summary failed: summary: model call failed: 429

prompts: 2, 1 summarized, 1 failed; 1.50 model calls per prompt; confidence medium 1
`, buf.String())
}

func TestSplitSkipsRecordsWithoutAPayload(t *testing.T) {
	records := nilPayloads()
	var prompts summary.Prompts
	require.NotPanics(t, func() { prompts = summary.Split(records) })
	require.Len(t, prompts, 1)
	assert.Equal(t, "hi", prompts[0].Query)
	assert.Zero(t, prompts[0].ModelCalls)
	assert.Zero(t, prompts[0].ToolCalls)
}

func TestSplitReadsAnAnswerGivenInOutputParts(t *testing.T) {
	tp := newTape().user("r", "describe the chart")
	tp.add("r", &recorder.ModelResponse{Message: &schema.Message{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "It rises"},
		{Type: schema.ChatMessagePartTypeImageURL},
		{Type: schema.ChatMessagePartTypeText, Text: "then falls."},
	}}})
	assert.Equal(t, "It rises\nthen falls.", summary.Split(tp.records)[0].Response)
}
