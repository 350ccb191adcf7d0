package otelexport_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/lookout-go/lookout/recorder"
)

// start is the first record's time; each record is stamped a second
// after the one before.
var start = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// ticking returns a clock that advances one second per reading.
func ticking() func() time.Time {
	var mu sync.Mutex
	now := start.Add(-time.Second)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
}

// tree records a lead run that asks a researcher, by a tool call, and
// ends over its token budget. The researcher's model reports no usage and
// its search fails. Records are stamped a second apart, from start:
//
//	0 lead run_started        10 researcher tool_ended (error)
//	1 lead model_request      11 researcher assessment
//	2 lead model_response     12 researcher run_ended
//	3 lead tool_started c1    13 lead tool_ended c1
//	4 researcher run_started  14 lead model_request
//	5 researcher model_req    15 lead model_response
//	6 researcher model_resp   16 lead budget charged
//	7 researcher budget       17 lead budget exceeded
//	8 researcher extension    18 lead run_ended
//	9 researcher tool_started
func tree(t testing.TB) []recorder.Record {
	t.Helper()
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{Clock: ticking()})
	lead, err := rec.StartRun(ctx, recorder.RunInfo{RunID: "run-lead", AgentName: "lead", Limits: recorder.RunLimits{MaxTokens: 1000}})
	require.NoError(t, err)
	must := func(err error) { t.Helper(); require.NoError(t, err) }
	must(lead.ModelRequest(ctx, recorder.ModelRequest{Model: "gpt-4o-mini", MessageCount: 1, Tools: []string{"researcher"},
		ToolDefinitions: []recorder.ToolDefinition{{Name: "researcher", Description: "Asks the researcher."}}}))
	must(lead.ModelResponse(ctx, recorder.ModelResponse{
		Message:       schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Function: schema.FunctionCall{Name: "researcher", Arguments: `{"request":"how often does Go ship?"}`}}}),
		Usage:         recorder.TokenUsage{PromptTokens: 300, CompletionTokens: 20, TotalTokens: 320},
		UsageReported: true, FinishReason: "tool_calls",
	}))
	must(lead.ToolStarted(ctx, recorder.ToolStarted{CallID: "c1", Name: "researcher", Arguments: `{"request":"how often does Go ship?"}`}))
	researcher, err := lead.StartChild(ctx, recorder.RunInfo{RunID: "run-researcher", AgentName: "researcher", ParentToolCallID: "c1"})
	require.NoError(t, err)
	must(researcher.ModelRequest(ctx, recorder.ModelRequest{MessageCount: 2, Tools: []string{"search"}}))
	must(researcher.ModelResponse(ctx, recorder.ModelResponse{
		Message: schema.AssistantMessage("", []schema.ToolCall{{ID: "s1", Function: schema.FunctionCall{Name: "search", Arguments: `{"q":"go release"}`}}}),
	}))
	must(researcher.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tool_calls", Amount: 1, Used: 1, Limit: 5}))
	must(researcher.Extension(ctx, "note", json.RawMessage(`{"x":1}`)))
	must(researcher.ToolStarted(ctx, recorder.ToolStarted{CallID: "s1", Name: "search", Arguments: `{"q":"go release"}`}))
	must(researcher.ToolEnded(ctx, recorder.ToolEnded{CallID: "s1", Name: "search", IsError: true, Error: "search: timeout", Duration: time.Second}))
	must(researcher.Assessment(ctx, recorder.AssessmentRecord{Markdown: "**Errors:** 1 of 1 calls failed.", AfterCallIndex: 0,
		Observers: []recorder.ObserverNote{{Name: "errors", Severity: "warning"}}}))
	must(researcher.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted, StopReason: "final_answer", Usage: recorder.RunUsage{ToolCalls: 1, ModelCalls: 1}}))
	must(lead.ToolEnded(ctx, recorder.ToolEnded{CallID: "c1", Name: "researcher", Result: "twice a year", Duration: 10 * time.Second}))
	must(lead.ModelRequest(ctx, recorder.ModelRequest{Model: "gpt-4o-mini", MessageCount: 3}))
	must(lead.ModelResponse(ctx, recorder.ModelResponse{
		Message: schema.AssistantMessage("Go ships twice a year.", nil),
		Usage:   recorder.TokenUsage{PromptTokens: 700, CompletionTokens: 30, TotalTokens: 730}, UsageReported: true, FinishReason: "stop",
	}))
	must(lead.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: 1050, Used: 1050, Limit: 1000}))
	must(lead.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetExceeded, Resource: "tokens", Used: 1050, Limit: 1000}))
	must(lead.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeBudgetExceeded, Error: "budget exceeded: tokens 1050 of 1000", StopReason: "budget",
		Usage: recorder.RunUsage{PromptTokens: 1000, CompletionTokens: 50, TotalTokens: 1050, ToolCalls: 1, ModelCalls: 2}}))
	require.NoError(t, rec.Close(ctx))
	records := sink.Records()
	require.Len(t, records, 19)
	return records
}

// at is the time of the record stamped n seconds after start.
func at(n int) time.Time { return start.Add(time.Duration(n) * time.Second) }

// attrs returns a span's attributes as a map.
func attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// byName returns the spans by name, the first of a name where several
// share it (the lead's two model calls in tree).
func byName(spans []sdktrace.ReadOnlySpan) map[string]sdktrace.ReadOnlySpan {
	m := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		if _, ok := m[s.Name()]; !ok {
			m[s.Name()] = s
		}
	}
	return m
}

// names returns the spans' names, in order.
func names(spans []sdktrace.ReadOnlySpan) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name()
	}
	return out
}

// decodeOTLPJSON decodes one line of the OTLP JSON encoding with the
// official Protobuf JSON mapping: OTLP writes ids in hex where the
// mapping has base64, so they are turned back first. It fails on an id
// that is not hex of the right length.
func decodeOTLPJSON(t *testing.T, line []byte) *coltracepb.ExportTraceServiceRequest {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(line, &v))
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
					raw, err := hex.DecodeString(s)
					require.NoError(t, err, "%s %q is not hex", k, s)
					want := 8
					if k == "traceId" {
						want = 16
					}
					require.Len(t, raw, want, "%s %q", k, s)
					x[k] = base64.StdEncoding.EncodeToString(raw)
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var req coltracepb.ExportTraceServiceRequest
	require.NoError(t, protojson.Unmarshal(data, &req))
	return &req
}

// protoAttrs returns a protobuf span's attributes as a map of their
// values' string forms.
func protoAttrs(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
	m := map[string]*commonpb.AnyValue{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// protoSpans returns every span of the requests.
func protoSpans(reqs ...*coltracepb.ExportTraceServiceRequest) []*tracepb.Span {
	var spans []*tracepb.Span
	for _, req := range reqs {
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}
	return spans
}
