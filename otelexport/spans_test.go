package otelexport_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/lookout-go/lookout/otelexport"
	"github.com/lookout-go/lookout/recorder"
)

func TestRunsModelCallsAndToolCallsBecomeSpansOfOneTree(t *testing.T) {
	spans, err := otelexport.Spans(tree(t), nil)
	require.NoError(t, err)
	// Parents first, then by start time.
	require.Equal(t, []string{
		"invoke_agent lead", "chat gpt-4o-mini", "execute_tool researcher", "invoke_agent researcher",
		"chat", "execute_tool search", "chat gpt-4o-mini",
	}, names(spans))
	s := byName(spans)
	lead, researcher := s["invoke_agent lead"], s["invoke_agent researcher"]
	call := s["execute_tool researcher"]
	require.NotNil(t, lead)
	require.NotNil(t, researcher)
	require.NotNil(t, call)

	traceID := otelexport.TraceID("run-lead")
	for _, sp := range spans {
		assert.Equal(t, traceID, sp.SpanContext().TraceID(), sp.Name())
	}
	parent := func(name string) trace.SpanID { return s[name].Parent().SpanID() }
	assert.False(t, lead.Parent().IsValid(), "the root run has no parent")
	assert.Equal(t, otelexport.RunSpanID("run-lead"), lead.SpanContext().SpanID())
	assert.Equal(t, lead.SpanContext().SpanID(), parent("chat gpt-4o-mini"))
	assert.Equal(t, lead.SpanContext().SpanID(), parent("execute_tool researcher"))
	assert.Equal(t, call.SpanContext().SpanID(), parent("invoke_agent researcher"), "a sub-agent sits under the tool call that started it")
	assert.Equal(t, researcher.SpanContext().SpanID(), parent("chat"))
	assert.Equal(t, researcher.SpanContext().SpanID(), parent("execute_tool search"))
	assert.Equal(t, otelexport.CallSpanID("run-lead", 3), call.SpanContext().SpanID(), "a call's span id hashes the seq that started it")

	assert.Equal(t, trace.SpanKindInternal, lead.SpanKind())
	assert.Equal(t, trace.SpanKindClient, s["chat"].SpanKind())
	assert.Equal(t, trace.SpanKindInternal, call.SpanKind())

	// Times are the records' times.
	assert.Equal(t, at(0), lead.StartTime())
	assert.Equal(t, at(18), lead.EndTime())
	assert.Equal(t, at(3), call.StartTime())
	assert.Equal(t, at(13), call.EndTime())
	assert.Equal(t, at(5), s["chat"].StartTime())
	assert.Equal(t, at(6), s["chat"].EndTime())
}

func TestSpansCarryTheGenAIAttributes(t *testing.T) {
	spans, err := otelexport.Spans(tree(t), nil)
	require.NoError(t, err)
	s := byName(spans)

	lead := attrs(s["invoke_agent lead"].Attributes())
	assert.Equal(t, "invoke_agent", lead["gen_ai.operation.name"].AsString())
	assert.Equal(t, "lead", lead["gen_ai.agent.name"].AsString())
	assert.Equal(t, "run-lead", lead["gen_ai.conversation.id"].AsString())
	assert.Equal(t, "gpt-4o-mini", lead["gen_ai.request.model"].AsString())
	assert.Equal(t, int64(1000), lead["gen_ai.usage.input_tokens"].AsInt64(), "the run's own calls, summed")
	assert.Equal(t, int64(50), lead["gen_ai.usage.output_tokens"].AsInt64())
	assert.Equal(t, "budget_exceeded", lead["lookout.run.outcome"].AsString())
	assert.Equal(t, "budget", lead["lookout.run.stop_reason"].AsString())
	assert.Equal(t, "budget_exceeded", lead["error.type"].AsString())
	assert.Equal(t, codes.Error, s["invoke_agent lead"].Status().Code)
	assert.Equal(t, "budget exceeded: tokens 1050 of 1000", s["invoke_agent lead"].Status().Description)

	first := attrs(s["chat gpt-4o-mini"].Attributes())
	assert.Equal(t, "chat", first["gen_ai.operation.name"].AsString())
	assert.Equal(t, "gpt-4o-mini", first["gen_ai.request.model"].AsString())
	assert.Equal(t, int64(300), first["gen_ai.usage.input_tokens"].AsInt64())
	assert.Equal(t, int64(20), first["gen_ai.usage.output_tokens"].AsInt64())
	assert.Equal(t, []string{"tool_calls"}, first["gen_ai.response.finish_reasons"].AsStringSlice())
	assert.Equal(t, "run-lead", first["gen_ai.conversation.id"].AsString())

	tool := attrs(s["execute_tool researcher"].Attributes())
	assert.Equal(t, "execute_tool", tool["gen_ai.operation.name"].AsString())
	assert.Equal(t, "researcher", tool["gen_ai.tool.name"].AsString())
	assert.Equal(t, "c1", tool["gen_ai.tool.call.id"].AsString())
	assert.Equal(t, "function", tool["gen_ai.tool.type"].AsString())
	assert.Equal(t, "Asks the researcher.", tool["gen_ai.tool.description"].AsString(), "as the run offered it")
	assert.NotContains(t, attrs(s["execute_tool search"].Attributes()), attribute.Key("gen_ai.tool.description"), "offered without a definition")
	assert.NotContains(t, tool, attribute.Key("error.type"))
	assert.Equal(t, codes.Unset, s["execute_tool researcher"].Status().Code)

	researcher := attrs(s["invoke_agent researcher"].Attributes())
	assert.Equal(t, "run-lead", researcher["gen_ai.conversation.id"].AsString(), "one conversation per run tree")
	assert.NotContains(t, researcher, attribute.Key("error.type"))
	assert.Equal(t, codes.Unset, s["invoke_agent researcher"].Status().Code)
}

func TestUsageIsSetOnlyWhenReported(t *testing.T) {
	spans, err := otelexport.Spans(tree(t), nil)
	require.NoError(t, err)
	s := byName(spans)
	for _, name := range []string{"chat", "invoke_agent researcher"} {
		a := attrs(s[name].Attributes())
		assert.NotContains(t, a, attribute.Key("gen_ai.usage.input_tokens"), name)
		assert.NotContains(t, a, attribute.Key("gen_ai.usage.output_tokens"), name)
	}
}

func TestAFailedToolCallHasErrorTypeAndStatus(t *testing.T) {
	spans, err := otelexport.Spans(tree(t), nil)
	require.NoError(t, err)
	search := byName(spans)["execute_tool search"]
	assert.Equal(t, otelexport.ToolErrorType, attrs(search.Attributes())["error.type"].AsString())
	assert.Equal(t, codes.Error, search.Status().Code)
	assert.Equal(t, "search: timeout", search.Status().Description)
}

func TestAssessmentsBudgetAndExtensionRecordsAreEventsOfTheRunSpan(t *testing.T) {
	spans, err := otelexport.Spans(tree(t), nil)
	require.NoError(t, err)
	s := byName(spans)

	ev := s["invoke_agent researcher"].Events()
	require.Len(t, ev, 3)
	assert.Equal(t, otelexport.BudgetChargedEvent, ev[0].Name)
	assert.Equal(t, at(7), ev[0].Time)
	b := attrs(ev[0].Attributes)
	assert.Equal(t, "tool_calls", b["lookout.budget.resource"].AsString())
	assert.Equal(t, int64(1), b["lookout.budget.amount"].AsInt64())
	assert.Equal(t, int64(5), b["lookout.budget.limit"].AsInt64())
	assert.Equal(t, otelexport.ExtensionEvent, ev[1].Name)
	assert.Equal(t, "note", attrs(ev[1].Attributes)["lookout.extension.name"].AsString())
	assert.Equal(t, otelexport.AssessmentEvent, ev[2].Name)
	a := attrs(ev[2].Attributes)
	assert.Equal(t, "**Errors:** 1 of 1 calls failed.", a["lookout.assessment.markdown"].AsString())
	assert.Equal(t, []string{"errors"}, a["lookout.assessment.observers"].AsStringSlice())
	assert.Equal(t, []string{"warning"}, a["lookout.assessment.severities"].AsStringSlice())

	ev = s["invoke_agent lead"].Events()
	require.Len(t, ev, 2)
	assert.Equal(t, otelexport.BudgetChargedEvent, ev[0].Name)
	assert.Equal(t, otelexport.BudgetExceededEvent, ev[1].Name)
	assert.Equal(t, int64(1050), attrs(ev[1].Attributes)["lookout.budget.used"].AsInt64())
}

func TestEventsPastMaxEventsAreCountedAsDropped(t *testing.T) {
	spans, err := otelexport.Spans(tree(t), &otelexport.Options{MaxEvents: 1})
	require.NoError(t, err)
	s := byName(spans)
	assert.Len(t, s["invoke_agent researcher"].Events(), 1)
	assert.Equal(t, 2, s["invoke_agent researcher"].DroppedEvents())
	assert.Equal(t, 1, s["invoke_agent lead"].DroppedEvents())
}

func TestSpansWithoutTheirEndEndAtTheRunsLastRecord(t *testing.T) {
	// The file stops after the lead's tool call started and the child
	// ran to its end.
	records := tree(t)
	cut := records[:13] // up to the researcher's run_ended
	spans, err := otelexport.Spans(cut, nil)
	require.NoError(t, err)
	s := byName(spans)
	for _, name := range []string{"invoke_agent lead", "execute_tool researcher"} {
		sp := s[name]
		require.NotNil(t, sp, name)
		assert.Equal(t, at(12), sp.EndTime(), "%s ends at its child's end, after its run's last record", name)
		assert.Equal(t, otelexport.IncompleteType, attrs(sp.Attributes())["error.type"].AsString(), name)
		assert.Equal(t, codes.Error, sp.Status().Code, name)
	}
	assert.Equal(t, codes.Unset, s["invoke_agent researcher"].Status().Code)

	// A model call without a response ends at the next request.
	noResponse := append(append([]recorder.Record{}, records[:2]...), records[14:]...)
	spans, err = otelexport.Spans(noResponse, nil)
	require.NoError(t, err)
	var chats []string
	for _, sp := range spans {
		if sp.Name() == "chat gpt-4o-mini" {
			errType := ""
			if v, ok := attrs(sp.Attributes())["error.type"]; ok {
				errType = v.AsString()
			}
			chats = append(chats, sp.EndTime().Sub(start).String()+" "+errType)
		}
	}
	assert.Equal(t, []string{"14s incomplete", "15s "}, chats)
}

func TestARunWhoseStartIsMissingStartsAtItsFirstRecord(t *testing.T) {
	records := tree(t)[5:13] // the researcher without its run_started
	spans, err := otelexport.Spans(records, nil)
	require.NoError(t, err)
	s := byName(spans)
	run := s["invoke_agent"]
	require.NotNil(t, run, "a run with no agent name is named by the operation alone")
	assert.Equal(t, at(5), run.StartTime())
	assert.Equal(t, otelexport.TraceID("run-lead"), run.SpanContext().TraceID(), "a missing parent is taken for the root")
	assert.Equal(t, otelexport.RunSpanID("run-lead"), run.Parent().SpanID())
}

func TestRunIDExportsTheRunAndItsChildrenWithTheIDsOfAWholeExport(t *testing.T) {
	records := tree(t)
	all, err := otelexport.Spans(records, nil)
	require.NoError(t, err)
	one, err := otelexport.Spans(records, &otelexport.Options{RunID: "run-researcher"})
	require.NoError(t, err)
	require.Len(t, one, 3)
	whole := byName(all)
	for _, sp := range one {
		assert.Equal(t, whole[sp.Name()].SpanContext(), sp.SpanContext(), sp.Name())
		assert.Equal(t, whole[sp.Name()].Parent(), sp.Parent(), sp.Name())
	}

	_, err = otelexport.Spans(records, &otelexport.Options{RunID: "nope"})
	assert.True(t, errors.Is(err, otelexport.ErrUnknownRun), "%v", err)
}

func TestIDsDependOnRunIDsAndSeqOnly(t *testing.T) {
	assert.Equal(t, otelexport.TraceID("a"), otelexport.TraceID("a"))
	assert.NotEqual(t, otelexport.TraceID("a"), otelexport.TraceID("b"))
	assert.NotEqual(t, otelexport.CallSpanID("a", 1), otelexport.CallSpanID("a", 2))
	assert.NotEqual(t, otelexport.CallSpanID("a1", 1), otelexport.CallSpanID("a", 11), "the parts do not run together")
	assert.NotEqual(t, otelexport.RunSpanID("a"), otelexport.CallSpanID("a", 0))
	assert.True(t, otelexport.TraceID("").IsValid())
}

func TestTheOTLPJSONDecodesWithTheProtobufJSONMapping(t *testing.T) {
	records := tree(t)
	var out bytes.Buffer
	require.NoError(t, otelexport.WriteJSON(&out, records, nil))
	lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
	require.Len(t, lines, 1, "one request per root run")

	req := decodeOTLPJSON(t, lines[0])
	require.Len(t, req.ResourceSpans, 1)
	rs := req.ResourceSpans[0]
	assert.Equal(t, "lookout", protoAttrs(rs.Resource.Attributes)["service.name"].GetStringValue())
	require.Len(t, rs.ScopeSpans, 1)
	assert.Equal(t, otelexport.ScopeName, rs.ScopeSpans[0].Scope.Name)
	assert.Equal(t, "https://opentelemetry.io/schemas/1.41.0", rs.ScopeSpans[0].SchemaUrl)

	spans := protoSpans(req)
	require.Len(t, spans, 7)
	root := spans[0]
	assert.Equal(t, "invoke_agent lead", root.Name, "the root comes first")
	wantTrace := otelexport.TraceID("run-lead")
	assert.Equal(t, wantTrace[:], root.TraceId)
	wantSpan := otelexport.RunSpanID("run-lead")
	assert.Equal(t, wantSpan[:], root.SpanId)
	assert.Empty(t, root.ParentSpanId)
	assert.Equal(t, tracepb.Span_SPAN_KIND_INTERNAL, root.Kind)
	assert.Equal(t, tracepb.Status_STATUS_CODE_ERROR, root.Status.Code)
	assert.Equal(t, uint64(at(0).UnixNano()), root.StartTimeUnixNano)
	assert.Equal(t, uint64(at(18).UnixNano()), root.EndTimeUnixNano)
	assert.Equal(t, int64(1000), protoAttrs(root.Attributes)["gen_ai.usage.input_tokens"].GetIntValue())
	require.Len(t, root.Events, 2)
	assert.Equal(t, otelexport.BudgetExceededEvent, root.Events[1].Name)

	// The ids are hex on the wire, and enums numbers, as OTLP/JSON has them.
	assert.Contains(t, string(lines[0]), `"traceId":"`+hex.EncodeToString(wantTrace[:])+`"`)
	assert.Contains(t, string(lines[0]), `"spanId":"`+hex.EncodeToString(wantSpan[:])+`"`)
	assert.Contains(t, string(lines[0]), `"kind":1`)

	for _, sp := range spans[1:] {
		assert.NotEmpty(t, sp.ParentSpanId, sp.Name)
		assert.Equal(t, wantTrace[:], sp.TraceId, sp.Name)
	}
}

func TestTwoExportsOfOneRecordingAreByteIdentical(t *testing.T) {
	// Two recordings of the same run, made apart, give the same bytes.
	var a, b bytes.Buffer
	require.NoError(t, otelexport.WriteJSON(&a, tree(t), nil))
	require.NoError(t, otelexport.WriteJSON(&b, tree(t), nil))
	require.NotZero(t, a.Len())
	assert.Equal(t, a.String(), b.String())
}

func TestEachRootRunIsOneRequestLine(t *testing.T) {
	first := tree(t)
	second := tree(t)
	for i := range second {
		second[i].RunID = "2-" + second[i].RunID
		if second[i].ParentRunID != "" {
			second[i].ParentRunID = "2-" + second[i].ParentRunID
		}
		second[i].RecordedAt = second[i].RecordedAt.Add(time.Hour)
	}
	reqs, err := otelexport.Requests(append(first, second...), nil)
	require.NoError(t, err)
	require.Len(t, reqs, 2)
	a, b := otelexport.TraceID("run-lead"), otelexport.TraceID("2-run-lead")
	assert.Equal(t, a[:], protoSpans(reqs[0])[0].TraceId)
	assert.Equal(t, b[:], protoSpans(reqs[1])[0].TraceId)
	assert.Len(t, protoSpans(reqs[1]), 7)
}

func TestUnmarshalJSONReadsBackWhatWriteJSONWrote(t *testing.T) {
	records := tree(t)
	reqs, err := otelexport.Requests(records, nil)
	require.NoError(t, err)
	require.Len(t, reqs, 1)
	line, err := otelexport.MarshalJSON(reqs[0])
	require.NoError(t, err)
	back, err := otelexport.UnmarshalJSON(line)
	require.NoError(t, err)
	assert.True(t, proto.Equal(reqs[0], back))

	// Plain protojson writes ids in base64, which OTLP/JSON does not.
	plain, err := protojson.Marshal(reqs[0])
	require.NoError(t, err)
	_, err = otelexport.UnmarshalJSON(plain)
	assert.ErrorContains(t, err, "bytes in hex")
}

func TestRecordedTextThatLooksLikeAnIDIsLeftAlone(t *testing.T) {
	name := `{"traceId":"AAAAAAAAAAAAAAAAAAAAAA==","spanId":"AAAAAAAAAAA="}`
	records := []recorder.Record{
		{RunID: "r", RecordedAt: at(0), Payload: &recorder.RunStarted{AgentName: name}},
		{RunID: "r", Seq: 1, RecordedAt: at(1), Payload: &recorder.RunEnded{Outcome: recorder.OutcomeCompleted}},
	}
	var out bytes.Buffer
	require.NoError(t, otelexport.WriteJSON(&out, records, nil))
	req, err := otelexport.UnmarshalJSON(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
	require.NoError(t, err)
	spans := protoSpans(req)
	require.Len(t, spans, 1)
	assert.Equal(t, "invoke_agent "+name, spans[0].Name)
	id := otelexport.TraceID("r")
	assert.Equal(t, id[:], spans[0].TraceId)
}

func TestToolContentIsExportedOnlyWhenAskedFor(t *testing.T) {
	records := tree(t)
	spans, err := otelexport.Spans(records, nil)
	require.NoError(t, err)
	for _, sp := range spans {
		a := attrs(sp.Attributes())
		assert.NotContains(t, a, attribute.Key("gen_ai.tool.call.arguments"), sp.Name())
		assert.NotContains(t, a, attribute.Key("gen_ai.tool.call.result"), sp.Name())
	}

	spans, err = otelexport.Spans(records, &otelexport.Options{ToolContent: true})
	require.NoError(t, err)
	s := byName(spans)
	researcher := attrs(s["execute_tool researcher"].Attributes())
	assert.Equal(t, `{"request":"how often does Go ship?"}`, researcher["gen_ai.tool.call.arguments"].AsString())
	assert.Equal(t, "twice a year", researcher["gen_ai.tool.call.result"].AsString())
	search := attrs(s["execute_tool search"].Attributes())
	assert.Equal(t, `{"q":"go release"}`, search["gen_ai.tool.call.arguments"].AsString())
	assert.NotContains(t, search, attribute.Key("gen_ai.tool.call.result"), "a failed call has no result")
}

// The model that answered, its provider and the run's conversation come
// from the records when they carry them.
func TestChatSpansNameTheAnsweringModelAndItsProvider(t *testing.T) {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{Clock: ticking()})
	run, err := rec.StartRun(ctx, recorder.RunInfo{RunID: "turn-2", AgentName: "helper", ConversationID: "conv-7", Turn: 2})
	require.NoError(t, err)
	require.NoError(t, run.ModelRequest(ctx, recorder.ModelRequest{MessageCount: 1}))
	require.NoError(t, run.ModelResponse(ctx, recorder.ModelResponse{
		Message: schema.AssistantMessage("hi", nil), Model: "gpt-4o-mini-2024-07-18", Provider: "OpenAI",
	}))
	require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
	require.NoError(t, rec.Close(ctx))

	spans, err := otelexport.Spans(sink.Records(), nil)
	require.NoError(t, err)
	s := byName(spans)
	require.Contains(t, s, "chat gpt-4o-mini-2024-07-18", "named after the model, which the request did not name")
	chat := attrs(s["chat gpt-4o-mini-2024-07-18"].Attributes())
	assert.Equal(t, "gpt-4o-mini-2024-07-18", chat["gen_ai.response.model"].AsString())
	assert.Equal(t, "gpt-4o-mini-2024-07-18", chat["gen_ai.request.model"].AsString())
	assert.Equal(t, "openai", chat["gen_ai.provider.name"].AsString(), "the conventions' well-known value")
	assert.Equal(t, "conv-7", chat["gen_ai.conversation.id"].AsString())
	helper := attrs(s["invoke_agent helper"].Attributes())
	assert.Equal(t, "conv-7", helper["gen_ai.conversation.id"].AsString())
	assert.Equal(t, "openai", helper["gen_ai.provider.name"].AsString(), "the provider of the run's calls")
}

// A model call attempt that failed is a chat span with an error status.
func TestAFailedModelAttemptHasAnErrorStatus(t *testing.T) {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{Clock: ticking()})
	run, err := rec.StartRun(ctx, recorder.RunInfo{RunID: "run-1", AgentName: "worker"})
	require.NoError(t, err)
	require.NoError(t, run.ModelRequest(ctx, recorder.ModelRequest{Model: "m"}))
	require.NoError(t, run.ModelResponse(ctx, recorder.ModelResponse{Model: "m", Error: "HTTP 500"}))
	require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeError, Error: "HTTP 500"}))
	require.NoError(t, rec.Close(ctx))

	spans, err := otelexport.Spans(sink.Records(), nil)
	require.NoError(t, err)
	chat := byName(spans)["chat m"]
	require.NotNil(t, chat, "the chat span")
	assert.Equal(t, codes.Error, chat.Status().Code)
	assert.Equal(t, "HTTP 500", chat.Status().Description)
}
