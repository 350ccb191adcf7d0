package atif_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// TestExportFromTheRecordersJSONL records a run with a sub-agent through
// the real Recorder, writes it as JSON Lines, reads it back and exports it:
// the path a trajectory file takes in practice.
func TestExportFromTheRecordersJSONL(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2025, 10, 11, 10, 30, 0, 0, time.UTC)
	clock := func() time.Time { now = now.Add(time.Millisecond); return now }
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{Clock: clock})

	root, _ := rec.StartRun(ctx, recorder.RunInfo{RunID: "root", AgentName: "planner"})
	_ = root.Message(ctx, schema.UserMessage("summarize the repo"))
	_ = root.ModelRequest(ctx, recorder.ModelRequest{Model: "gpt-4o", MessageCount: 1})
	_ = root.ModelResponse(ctx, recorder.ModelResponse{
		Message: schema.AssistantMessage("", []schema.ToolCall{
			{ID: "call-1", Type: "function", Function: schema.FunctionCall{Name: "reader", Arguments: `{"path":"."}`}},
			{ID: "call-2", Type: "function", Function: schema.FunctionCall{Name: "ls", Arguments: `{}`}},
		}),
		Usage:         recorder.TokenUsage{PromptTokens: 100, CompletionTokens: 10, CachedTokens: 40},
		UsageReported: true,
		FinishReason:  "tool_calls",
	})
	_ = root.ToolStarted(ctx, recorder.ToolStarted{CallID: "call-1", Name: "reader", Arguments: `{"path":"."}`})
	_ = root.ToolStarted(ctx, recorder.ToolStarted{CallID: "call-2", Name: "ls", Arguments: `{}`})
	child, _ := root.StartChild(ctx, recorder.RunInfo{RunID: "child", AgentName: "reader", ParentToolCallID: "call-1"})
	_ = child.Message(ctx, schema.UserMessage(`{"path":"."}`))
	_ = child.ModelResponse(ctx, recorder.ModelResponse{Message: schema.AssistantMessage("a Go library", nil)})
	_ = child.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	_ = root.ToolEnded(ctx, recorder.ToolEnded{CallID: "call-2", Name: "ls", Result: "go.mod\nrecorder/"})
	_ = root.ToolEnded(ctx, recorder.ToolEnded{CallID: "call-1", Name: "reader", Result: "a Go library"})
	_ = root.Assessment(ctx, recorder.AssessmentRecord{Markdown: "on track", AfterCallIndex: 1})
	_ = root.ModelResponse(ctx, recorder.ModelResponse{Message: schema.AssistantMessage("It is a Go library.", nil)})
	_ = root.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	if err := rec.Close(ctx); err != nil {
		t.Fatal(err)
	}

	var file bytes.Buffer
	for _, r := range sink.Records() {
		line, err := r.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		file.Write(append(line, '\n'))
	}
	records, tear, err := recorder.ReadAll(&file)
	if err != nil || tear != nil {
		t.Fatalf("read back: %v %v", err, tear)
	}

	tr, err := atif.FromRecords(records, &atif.Options{AgentVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(tr.Steps) != 4 || len(tr.SubagentTrajectories) != 1 {
		t.Fatalf("steps %d, subagents %d; want 4 and 1", len(tr.Steps), len(tr.SubagentTrajectories))
	}
	results := tr.Steps[1].Observation.Results
	if results[0].SourceCallID != "call-1" || len(results[0].SubagentTrajectoryRef) != 1 ||
		results[0].SubagentTrajectoryRef[0].TrajectoryID != "child" || results[1].Content.PlainText() != "go.mod\nrecorder/" {
		t.Errorf("results = %+v", results)
	}
	if m := tr.Steps[1].Metrics; *m.PromptTokens != 100 || *m.CachedTokens != 40 {
		t.Errorf("metrics = %+v", m)
	}
	if tr.SubagentTrajectories[0].Agent.Name != "reader" {
		t.Errorf("subagent agent = %+v", tr.SubagentTrajectories[0].Agent)
	}
}
