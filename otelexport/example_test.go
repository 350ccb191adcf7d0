package otelexport_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/lookout-go/lookout/otelexport"
	"github.com/lookout-go/lookout/recorder"
)

// record records a run that asks a model, runs a tool that fails and
// completes, each record a second after the one before.
func record(ctx context.Context, sink recorder.Sink) *recorder.Recorder {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	rec := recorder.New(sink, &recorder.Options{Clock: func() time.Time {
		now = now.Add(time.Second)
		return now
	}})
	run, _ := rec.StartRun(ctx, recorder.RunInfo{RunID: "run-1", AgentName: "migrator"})
	_ = run.ModelRequest(ctx, recorder.ModelRequest{Model: "gpt-4o-mini", MessageCount: 1})
	_ = run.ModelResponse(ctx, recorder.ModelResponse{
		Usage:         recorder.TokenUsage{PromptTokens: 120, CompletionTokens: 15, TotalTokens: 135},
		UsageReported: true, FinishReason: "tool_calls", Provider: "OpenAI",
	})
	_ = run.ToolStarted(ctx, recorder.ToolStarted{CallID: "call_1", Name: "shell"})
	_ = run.ToolEnded(ctx, recorder.ToolEnded{CallID: "call_1", Name: "shell", IsError: true, Error: "exit status 2"})
	_ = run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	return rec
}

func ExampleSpans() {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	_ = record(ctx, sink).Close(ctx) // writes out the queue and closes the sink

	spans, err := otelexport.Spans(sink.Records(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range spans {
		indent := ""
		if s.Parent().IsValid() {
			indent = "  "
		}
		var attrs []string
		for _, kv := range s.Attributes() {
			if strings.HasPrefix(string(kv.Key), "gen_ai.") || kv.Key == "error.type" {
				attrs = append(attrs, string(kv.Key)+"="+kv.Value.Emit())
			}
		}
		fmt.Printf("%s%s %s (%s)\n", indent, s.Name(), s.SpanContext().SpanID(), s.EndTime().Sub(s.StartTime()))
		fmt.Printf("%s  %s\n", indent, strings.Join(attrs, " "))
	}
	// Output:
	// invoke_agent migrator 58f569241f4f3bb8 (5s)
	//   gen_ai.operation.name=invoke_agent gen_ai.conversation.id=run-1 gen_ai.agent.name=migrator gen_ai.request.model=gpt-4o-mini gen_ai.provider.name=openai gen_ai.usage.input_tokens=120 gen_ai.usage.output_tokens=15
	//   chat gpt-4o-mini 58b03aa1358f5a81 (1s)
	//     gen_ai.operation.name=chat gen_ai.conversation.id=run-1 gen_ai.request.model=gpt-4o-mini gen_ai.provider.name=openai gen_ai.response.finish_reasons=["tool_calls"] gen_ai.usage.input_tokens=120 gen_ai.usage.output_tokens=15
	//   execute_tool shell c2f07c8977d5466f (1s)
	//     gen_ai.operation.name=execute_tool gen_ai.tool.name=shell gen_ai.tool.type=function gen_ai.tool.call.id=call_1 error.type=tool_error
}

func ExampleNewSink() {
	ctx := context.Background()
	// Any SDK SpanExporter: otlptracehttp.New(ctx) sends to a Collector.
	exp := tracetest.NewInMemoryExporter()
	spans, err := otelexport.NewSink(exp, &otelexport.SinkOptions{Resource: resource.Empty()})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := record(ctx, spans)
	defer rec.Close(ctx) // closes the sink, which exports the rest and shuts exp down
	_ = rec.Flush(ctx)   // exports the spans that have ended

	for _, s := range exp.GetSpans() {
		fmt.Println(s.Name, s.SpanContext.TraceID() == otelexport.TraceID("run-1"), s.Status.Code)
	}
	// Output:
	// chat gpt-4o-mini true Unset
	// execute_tool shell true Error
	// invoke_agent migrator true Unset
}

func ExampleWriteJSON() {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	_ = record(ctx, sink).Close(ctx)

	// One line per root run, for the Collector's OTLP JSON file receiver.
	var out bytes.Buffer
	if err := otelexport.WriteJSON(&out, sink.Records(), &otelexport.Options{Resource: resource.Empty()}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.String()[:107], "…")
	req, _ := otelexport.UnmarshalJSON(out.Bytes())
	for _, s := range req.ResourceSpans[0].ScopeSpans[0].Spans {
		fmt.Printf("%x %x %s\n", s.SpanId, s.ParentSpanId, s.Name)
	}
	// Output:
	// {"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{"name":"github.com/lookout-go/lookout/otelexport"} …
	// 58f569241f4f3bb8  invoke_agent migrator
	// 58b03aa1358f5a81 58f569241f4f3bb8 chat gpt-4o-mini
	// c2f07c8977d5466f 58f569241f4f3bb8 execute_tool shell
}

func ExampleWriteMetricsJSON() {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	_ = record(ctx, sink).Close(ctx)

	// One line per root run, in a file of its own.
	var out bytes.Buffer
	if err := otelexport.WriteMetricsJSON(&out, sink.Records(), &otelexport.Options{Resource: resource.Empty()}); err != nil {
		fmt.Println(err)
		return
	}
	var req colmetricspb.ExportMetricsServiceRequest
	if err := protojson.Unmarshal(out.Bytes(), &req); err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range req.ResourceMetrics[0].ScopeMetrics[0].Metrics {
		for _, p := range m.GetHistogram().GetDataPoints() {
			var attrs []string
			for _, kv := range p.Attributes {
				attrs = append(attrs, kv.Key+"="+kv.Value.GetStringValue())
			}
			fmt.Printf("%s %s: count %d, sum %g\n", m.Name, strings.Join(attrs, " "), p.Count, p.GetSum())
		}
	}
	// Output:
	// gen_ai.client.token.usage gen_ai.operation.name=chat gen_ai.provider.name=openai gen_ai.request.model=gpt-4o-mini gen_ai.token.type=input: count 1, sum 120
	// gen_ai.client.token.usage gen_ai.operation.name=chat gen_ai.provider.name=openai gen_ai.request.model=gpt-4o-mini gen_ai.token.type=output: count 1, sum 15
	// gen_ai.client.operation.duration gen_ai.operation.name=chat gen_ai.provider.name=openai gen_ai.request.model=gpt-4o-mini: count 1, sum 1
}
