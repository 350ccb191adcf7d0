package main

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// benchFile writes a trajectory of n tool-calling turns (a model response,
// a tool start and a tool end each) and returns its path and record count.
func benchFile(b *testing.B, n int) (string, int) {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	records := []recorder.Record{{SchemaVersion: 1, RunID: "run", RecordedAt: at, Payload: &recorder.RunStarted{AgentName: "bench"}}}
	add := func(p recorder.Payload) {
		records = append(records, recorder.Record{SchemaVersion: 1, Seq: uint64(len(records)), RunID: "run", RecordedAt: at, Payload: p})
	}
	add(&recorder.Message{Message: schema.UserMessage("go")})
	for i := range n {
		id := "c" + strconv.Itoa(i)
		add(&recorder.ModelResponse{Message: schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: "read", Arguments: `{"i":1}`}}}),
			Usage: recorder.TokenUsage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110}, UsageReported: true})
		add(&recorder.ToolStarted{CallID: id, Name: "read", Arguments: `{"i":1}`, CallIndex: i})
		add(&recorder.ToolEnded{CallID: id, Name: "read", Result: "some output of a tool", CallIndex: i, Duration: time.Millisecond})
	}
	add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	return writeFile(b, "bench.jsonl", encode(b, records)), len(records)
}

func benchCommand(b *testing.B, args ...string) {
	path, n := benchFile(b, 10_000)
	args = append(args, path)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if code := run(args, strings.NewReader(""), io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkInspect reads and analyzes a 30,003-record file.
func BenchmarkInspect(b *testing.B) { benchCommand(b, "inspect") }

// BenchmarkValidate checks a 30,003-record file.
func BenchmarkValidate(b *testing.B) { benchCommand(b, "validate") }
