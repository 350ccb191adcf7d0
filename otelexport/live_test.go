package otelexport_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/supervisor"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	resourceobs "github.com/lookout-go/lookout/observer/resource"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/otelexport"
	"github.com/lookout-go/lookout/recorder"
)

// receiver is an OTLP/HTTP trace endpoint on loopback that decodes each
// request with the official protobuf types.
type receiver struct {
	mu   sync.Mutex
	reqs []*coltracepb.ExportTraceServiceRequest
	errs []error
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	req := new(coltracepb.ExportTraceServiceRequest)
	if err == nil {
		switch {
		case r.URL.Path != "/v1/traces":
			err = errors.New("path " + r.URL.Path)
		case r.Header.Get("Content-Type") != "application/x-protobuf":
			err = errors.New("content type " + r.Header.Get("Content-Type"))
		default:
			err = proto.Unmarshal(body, req)
		}
	}
	rc.mu.Lock()
	if err != nil {
		rc.errs = append(rc.errs, err)
	} else {
		rc.reqs = append(rc.reqs, req)
	}
	rc.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (rc *receiver) spans(t *testing.T) []*tracepb.Span {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	require.Empty(t, rc.errs)
	return protoSpans(rc.reqs...)
}

// tool is an invokable tool backed by a function.
type fnTool struct {
	name string
	fn   func(args string) (string, error)
}

func (f fnTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: f.name, Desc: "the " + f.name + " tool"}, nil
}

func (f fnTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	return f.fn(args)
}

// team builds the agents of a query, each with mw.
type team func(t *testing.T, mw *lookoutadk.Middleware) adk.Agent

// newAgent is a ChatModelAgent with mw.
func newAgent(t *testing.T, mw *lookoutadk.Middleware, name string, m model.ToolCallingChatModel, tools ...tool.BaseTool) *adk.ChatModelAgent {
	t.Helper()
	a, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: name, Description: "The " + name + ".", Instruction: "You are the " + name + ".", Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	require.NoError(t, err)
	return a
}

// askResearcher is a lead agent that asks a researcher agent, used as a
// tool; the researcher's search fails once and then answers, and its last
// model call reports no usage.
func askResearcher(t *testing.T, mw *lookoutadk.Middleware) adk.Agent {
	searches := 0
	search := fnTool{name: "search", fn: func(string) (string, error) {
		searches++
		if searches == 1 {
			return "", errors.New("search backend timed out")
		}
		return "Go ships every six months.", nil
	}}
	researcher := newAgent(t, mw, "researcher", scripted.New(
		scripted.Call("search", `{"q":"go release cycle"}`).WithUsage(200, 20),
		scripted.Call("search", `{"q":"go release cycle, again"}`).WithUsage(250, 20),
		scripted.Reply("Every six months.").WithoutUsage(),
	), search)
	return newAgent(t, mw, "lead", scripted.New(
		scripted.Call("researcher", `{"request":"how often does Go ship?"}`).WithUsage(300, 30),
		scripted.Reply("Go ships twice a year.").WithUsage(500, 40),
	), adk.NewAgentTool(context.Background(), researcher))
}

// liveRun runs one query on the agents of build, with every tool call
// assessed, recording to sinks, and returns the records once the root run
// has ended. The Recorder is closed when it returns.
func liveRun(t *testing.T, build team, sinks ...recorder.Sink) []recorder.Record {
	t.Helper()
	ctx := context.Background()
	mem := recorder.NewMemorySink()
	rec := recorder.New(recorder.FanOut(append(sinks, mem)...), nil)
	mw, err := lookoutadk.New(ctx, &lookout.Config{
		Limits:     budget.Limits{MaxTokens: 100_000, Timeout: time.Hour},
		Observers:  []observer.Spec{{Observer: resourceobs.New(), Trigger: observer.Trigger{OnEveryCall: true}}},
		Recorder:   rec,
		ToolErrors: lookout.ToolErrorsAsMessages,
		OnError:    func(_ context.Context, err error) { t.Errorf("lookout: %v", err) },
	})
	require.NoError(t, err)
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(build(t, mw))}).Query(ctx, "How often does Go ship?")
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		require.NoError(t, ev.Err)
	}
	// An adapter may write the root's run_ended just after the query's
	// output.
	require.Eventually(t, func() bool {
		if err := rec.Flush(ctx); err != nil {
			return false
		}
		records := mem.Records()
		return len(records) > 0 && records[len(records)-1].Kind() == recorder.KindRunEnded && records[len(records)-1].ParentRunID == ""
	}, 10*time.Second, time.Millisecond)
	require.NoError(t, rec.Close(ctx)) // closes the sinks: otelexport's exports the rest and shuts its exporter down
	return mem.Records()
}

// exportLive runs the query of build with an otelexport Sink that sends
// through otlptracehttp to a loopback receiver, and returns what the
// receiver decoded. It checks that each span received equals the offline
// export's span of the same records.
func exportLive(t *testing.T, build team) []*tracepb.Span {
	t.Helper()
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	require.NoError(t, err)
	res := resource.NewSchemaless(semconv.ServiceName("live-test"))
	sink, err := otelexport.NewSink(exp, &otelexport.SinkOptions{Resource: res})
	require.NoError(t, err)

	records := liveRun(t, build, sink)

	got := rc.spans(t)
	rc.mu.Lock()
	for _, req := range rc.reqs {
		for _, rs := range req.ResourceSpans {
			assert.Equal(t, "live-test", protoAttrs(rs.Resource.Attributes)["service.name"].GetStringValue())
			for _, ss := range rs.ScopeSpans {
				assert.Equal(t, otelexport.ScopeName, ss.Scope.GetName())
				assert.Equal(t, "https://opentelemetry.io/schemas/1.41.0", ss.SchemaUrl)
			}
		}
	}
	rc.mu.Unlock()

	reqs, err := otelexport.Requests(records, &otelexport.Options{Resource: res})
	require.NoError(t, err)
	want := protoSpans(reqs...)
	bySpanID := func(x, y *tracepb.Span) int { return bytes.Compare(x.SpanId, y.SpanId) }
	slices.SortFunc(got, bySpanID)
	slices.SortFunc(want, bySpanID)
	require.Equal(t, len(want), len(got))
	for i := range want {
		assert.True(t, proto.Equal(want[i], got[i]), "span %s differs:\nwant %v\ngot  %v", want[i].Name, want[i], got[i])
	}
	return got
}

func TestALiveRunExportsThroughOTLPHTTPToAReceiver(t *testing.T) {
	checkConventions(t, exportLive(t, askResearcher))
}

// checkConventions checks the spans of askResearcher against the GenAI
// semantic conventions.
func checkConventions(t *testing.T, spans []*tracepb.Span) {
	t.Helper()
	byID := map[string]*tracepb.Span{}
	count := map[string]int{}
	var root *tracepb.Span
	for _, s := range spans {
		byID[string(s.SpanId)] = s
		count[s.Name]++
		if len(s.ParentSpanId) == 0 {
			require.Nil(t, root, "one root span")
			root = s
		}
	}
	require.NotNil(t, root)
	assert.Equal(t, map[string]int{
		"invoke_agent lead": 1, "execute_tool researcher": 1,
		"invoke_agent researcher": 1, "execute_tool search": 2,
	}, without(count, "chat"), "span names")
	assert.Equal(t, 5, count["chat"], "two model calls of the lead, three of the researcher")
	assert.Equal(t, "invoke_agent lead", root.Name)

	parentName := func(s *tracepb.Span) string {
		p := byID[string(s.ParentSpanId)]
		require.NotNil(t, p, "the parent of %s was exported", s.Name)
		return p.Name
	}
	var usage, noUsage int
	for _, s := range spans {
		a := protoAttrs(s.Attributes)
		assert.Equal(t, root.TraceId, s.TraceId, "%s is in the root's trace", s.Name)
		switch s.Name {
		case "invoke_agent lead":
			assert.Equal(t, "invoke_agent", a["gen_ai.operation.name"].GetStringValue())
			assert.Equal(t, "lead", a["gen_ai.agent.name"].GetStringValue())
			assert.Equal(t, tracepb.Span_SPAN_KIND_INTERNAL, s.Kind)
			assert.Equal(t, int64(800), a["gen_ai.usage.input_tokens"].GetIntValue(), "the lead's own calls")
			assert.Equal(t, "completed", a["lookout.run.outcome"].GetStringValue())
		case "invoke_agent researcher":
			assert.Equal(t, "execute_tool researcher", parentName(s), "the sub-agent sits under the call that started it")
			assert.Equal(t, "researcher", a["gen_ai.agent.name"].GetStringValue())
			assert.Equal(t, int64(450), a["gen_ai.usage.input_tokens"].GetIntValue(), "its reported calls only")
			var assessments, charges int
			for _, e := range s.Events {
				switch e.Name {
				case otelexport.AssessmentEvent:
					assessments++
					assert.NotEmpty(t, protoAttrs(e.Attributes)["lookout.assessment.markdown"].GetStringValue())
				case otelexport.BudgetChargedEvent:
					charges++
				}
			}
			assert.Equal(t, 2, assessments, "one after each search")
			assert.Positive(t, charges)
		case "chat":
			assert.Equal(t, "chat", a["gen_ai.operation.name"].GetStringValue())
			assert.Equal(t, tracepb.Span_SPAN_KIND_CLIENT, s.Kind)
			assert.Contains(t, []string{"invoke_agent lead", "invoke_agent researcher"}, parentName(s))
			assert.Equal(t, protoAttrs(root.Attributes)["gen_ai.conversation.id"].GetStringValue(), a["gen_ai.conversation.id"].GetStringValue())
			if _, ok := a["gen_ai.usage.input_tokens"]; ok {
				usage++
				assert.Contains(t, a, "gen_ai.usage.output_tokens")
			} else {
				noUsage++
				assert.NotContains(t, a, "gen_ai.usage.output_tokens")
			}
		case "execute_tool search":
			assert.Equal(t, "invoke_agent researcher", parentName(s))
			assert.Equal(t, "search", a["gen_ai.tool.name"].GetStringValue())
			assert.Equal(t, "the search tool", a["gen_ai.tool.description"].GetStringValue())
			assert.NotEmpty(t, a["gen_ai.tool.call.id"].GetStringValue())
		case "execute_tool researcher":
			assert.Equal(t, "invoke_agent lead", parentName(s))
			assert.Equal(t, "execute_tool", a["gen_ai.operation.name"].GetStringValue())
		}
		assert.LessOrEqual(t, s.StartTimeUnixNano, s.EndTimeUnixNano, s.Name)
	}
	assert.Equal(t, 4, usage, "the calls that reported usage")
	assert.Equal(t, 1, noUsage, "the call that did not has no gen_ai.usage.*")

	var failed []string
	for _, s := range spans {
		if s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
			failed = append(failed, s.Name+": "+protoAttrs(s.Attributes)["error.type"].GetStringValue())
		}
	}
	assert.Equal(t, []string{"execute_tool search: tool_error"}, failed)
}

func without(m map[string]int, key string) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// supervised is a supervisor whose lead hands the task to a researcher,
// which searches, and then to a writer, as in examples/multiagent.
func supervised(t *testing.T, mw *lookoutadk.Middleware) adk.Agent {
	transferTo := func(name string) scripted.ToolCall {
		return scripted.ToolCall{Name: adk.TransferToAgentToolName, Arguments: `{"agent_name":"` + name + `"}`}
	}
	lead := newAgent(t, mw, "lead", scripted.New(
		scripted.Calls(transferTo("researcher")).WithUsage(300, 20),
		scripted.Calls(transferTo("writer")).WithUsage(500, 20),
		scripted.Reply("Go ships twice a year; the sources agree.").WithUsage(700, 30),
	))
	researcher := newAgent(t, mw, "researcher", scripted.New(
		scripted.Call("search", `{"q":"Go release cycle"}`).WithUsage(200, 20),
		scripted.Reply("Go releases every six months.").WithUsage(300, 40),
	), fnTool{name: "search", fn: func(string) (string, error) { return "a major release every six months", nil }})
	writer := newAgent(t, mw, "writer", scripted.New(scripted.Reply("Go ships twice a year.").WithUsage(100, 10)))
	team, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{researcher, writer}})
	require.NoError(t, err)
	return team
}

func TestAMultiAgentRunIsOneTraceShapedAsItsRunTree(t *testing.T) {
	spans := exportLive(t, supervised)
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		byID[string(s.SpanId)] = s
	}
	var tree []string
	for _, s := range spans {
		line := s.Name
		for p := byID[string(s.ParentSpanId)]; p != nil; p = byID[string(p.ParentSpanId)] {
			line = p.Name + " > " + line
		}
		tree = append(tree, line)
	}
	slices.Sort(tree)
	// The recorder's run tree: the supervisor's root run, a child run per
	// segment (the lead's three, the researcher's, the writer's).
	assert.Equal(t, []string{
		"invoke_agent lead",
		"invoke_agent lead > invoke_agent lead",
		"invoke_agent lead > invoke_agent lead",
		"invoke_agent lead > invoke_agent lead",
		"invoke_agent lead > invoke_agent lead > chat",
		"invoke_agent lead > invoke_agent lead > chat",
		"invoke_agent lead > invoke_agent lead > chat",
		"invoke_agent lead > invoke_agent lead > execute_tool transfer_to_agent",
		"invoke_agent lead > invoke_agent lead > execute_tool transfer_to_agent",
		"invoke_agent lead > invoke_agent researcher",
		"invoke_agent lead > invoke_agent researcher > chat",
		"invoke_agent lead > invoke_agent researcher > chat",
		"invoke_agent lead > invoke_agent researcher > execute_tool search",
		"invoke_agent lead > invoke_agent writer",
		"invoke_agent lead > invoke_agent writer > chat",
	}, tree)

	conversations := map[string]bool{}
	for _, s := range spans {
		a := protoAttrs(s.Attributes)
		assert.Equal(t, spans[0].TraceId, s.TraceId, "one trace")
		if id, ok := a["gen_ai.conversation.id"]; ok {
			conversations[id.GetStringValue()] = true
		}
		if a["gen_ai.operation.name"].GetStringValue() == "chat" {
			assert.Positive(t, a["gen_ai.usage.input_tokens"].GetIntValue(), "every scripted call reports usage")
		}
	}
	assert.Len(t, conversations, 1, "one conversation")
}
