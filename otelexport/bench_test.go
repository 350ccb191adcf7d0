package otelexport_test

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/lookout-go/lookout/otelexport"
	"github.com/lookout-go/lookout/recorder"
)

// synthetic returns runs root runs of calls model-and-tool iterations
// each (model_request, model_response, budget, tool_started, tool_ended),
// one after the other, stamped a millisecond apart.
func synthetic(runs, calls int) []recorder.Record {
	var records []recorder.Record
	at := start
	add := func(id string, seq uint64, p recorder.Payload) {
		at = at.Add(time.Millisecond)
		records = append(records, recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: seq, RunID: id, RecordedAt: at, Payload: p})
	}
	for r := range runs {
		id := "run-" + strconv.Itoa(r)
		seq := uint64(0)
		next := func() uint64 { seq++; return seq - 1 }
		add(id, next(), &recorder.RunStarted{AgentName: "agent"})
		for i := range calls {
			callID := "call_" + strconv.Itoa(i)
			add(id, next(), &recorder.ModelRequest{Model: "gpt-4o-mini", MessageCount: 2 * i})
			add(id, next(), &recorder.ModelResponse{Usage: recorder.TokenUsage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110}, UsageReported: true, FinishReason: "tool_calls"})
			add(id, next(), &recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: 110, Used: int64(110 * (i + 1)), Limit: 1_000_000})
			add(id, next(), &recorder.ToolStarted{CallID: callID, Name: "shell", Arguments: `{"cmd":"ls"}`})
			add(id, next(), &recorder.ToolEnded{CallID: callID, Name: "shell", Result: "ok", CallIndex: i})
		}
		add(id, next(), &recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	}
	return records
}

// discard is an exporter that drops what it is given.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// BenchmarkSinkWrite is the live sink's cost per record, on the
// Recorder's goroutine, with an exporter that does nothing: 100-call runs
// written one after another.
func BenchmarkSinkWrite(b *testing.B) {
	records := synthetic(10, 100)
	s, err := otelexport.NewSink(discard{}, &otelexport.SinkOptions{Resource: resource.Empty()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := s.Write(ctx, &records[i%len(records)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteJSON is the offline export of a trajectory of 100,400
// records (200 runs of 100 model and tool calls) to OTLP JSON.
func BenchmarkWriteJSON(b *testing.B) {
	records := synthetic(200, 100)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := otelexport.WriteJSON(io.Discard, records, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(records)), "ns/record")
}

func TestSyntheticRecordsHaveTheSizeTheBenchmarksSay(t *testing.T) {
	records := synthetic(200, 100)
	if len(records) != 200*(2+5*100) {
		t.Fatal(fmt.Sprint(len(records)))
	}
}
