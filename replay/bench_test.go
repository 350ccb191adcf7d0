package replay_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/replay"
)

// syntheticRun is a recorded run of calls model calls, each but the last
// with one tool call, and the input each call was given.
func syntheticRun(calls int) ([]recorder.Record, [][]*schema.Message) {
	var records []recorder.Record
	at := time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	add := func(p recorder.Payload) {
		records = append(records, recorder.Record{SchemaVersion: 1, Seq: uint64(len(records)), RunID: "run-1", RecordedAt: at, Payload: p})
		at = at.Add(time.Second)
	}
	add(&recorder.RunStarted{AgentName: "bench"})
	history := []*schema.Message{
		schema.SystemMessage("You are a careful agent. Use the tools and report what you did."),
		schema.UserMessage("Read every file of the project and summarise it, request 2f1c9a7e-5b1d-4c3e-9f00-1a2b3c4d5e6f."),
	}
	add(&recorder.Message{Message: history[0]})
	add(&recorder.Message{Message: history[1]})
	var inputs [][]*schema.Message
	for i := range calls {
		inputs = append(inputs, append([]*schema.Message(nil), history...))
		add(&recorder.ModelRequest{MessageCount: len(history)})
		id := "call_" + strconv.Itoa(i)
		reply := schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"src/file_%d.go"}`, i)}}})
		if i == calls-1 {
			reply = schema.AssistantMessage("Done.", nil)
		}
		add(&recorder.ModelResponse{Message: reply, Usage: recorder.TokenUsage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110}, UsageReported: true})
		if i == calls-1 {
			break
		}
		result := fmt.Sprintf("package src // file %d, written at 2026-01-15T09:%02d:00Z, 40 lines", i, i%60)
		add(&recorder.ToolStarted{CallID: id, Name: "read_file", Arguments: reply.ToolCalls[0].Function.Arguments})
		add(&recorder.ToolEnded{CallID: id, Name: "read_file", Result: result, CallIndex: i + 1})
		history = append(history, reply, schema.ToolMessage(result, id, schema.WithToolName("read_file")))
	}
	add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	return records, inputs
}

// BenchmarkReplayRun replays a whole run, calls model calls with their
// input checked, without an agent around it: the cost the cassette adds
// to a test. ns/op is per run; ns/call per model call.
func BenchmarkReplayRun(b *testing.B) {
	for _, calls := range []int{10, 100} {
		b.Run(strconv.Itoa(calls)+"-calls", func(b *testing.B) {
			records, inputs := syntheticRun(calls)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				c, err := replay.FromRecords(records, nil)
				if err != nil {
					b.Fatal(err)
				}
				m := c.Model()
				for _, in := range inputs {
					if _, err := m.Generate(ctx, in); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
		})
	}
}
