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
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
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

// liveRun runs a lead agent that asks a researcher agent, used as a
// tool; the researcher's search fails once and then answers. Every agent
// has the middleware, whose recorder writes to sinks.
func liveRun(t *testing.T, sinks ...recorder.Sink) *recorder.Recorder {
	t.Helper()
	ctx := context.Background()
	rec := recorder.New(recorder.FanOut(sinks...), nil)
	mw, err := lookoutadk.New(ctx, &lookout.Config{
		Limits:    budget.Limits{MaxTokens: 100_000, Timeout: time.Hour},
		Observers: []observer.Spec{{Observer: observer.NewResource(), Trigger: observer.Trigger{OnEveryCall: true}}},
		Recorder:  rec,
		OnError:   func(_ context.Context, err error) { t.Errorf("lookout: %v", err) },
	})
	require.NoError(t, err)
	searches := 0
	search := fnTool{name: "search", fn: func(string) (string, error) {
		searches++
		if searches == 1 {
			return "", errors.New("search backend timed out")
		}
		return "Go ships every six months.", nil
	}}
	newAgent := func(name string, m *scripted.Model, tools ...tool.BaseTool) adk.Agent {
		a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: name, Description: "The " + name + ".", Instruction: "You are the " + name + ".", Model: m,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
			Handlers:    []adk.ChatModelAgentMiddleware{mw},
		})
		require.NoError(t, err)
		return a
	}
	researcher := newAgent("researcher", scripted.New(
		scripted.Call("search", `{"q":"go release cycle"}`).WithUsage(200, 20),
		scripted.Call("search", `{"q":"go release cycle, again"}`).WithUsage(250, 20),
		scripted.Reply("Every six months.").WithoutUsage(),
	), search)
	lead := newAgent("lead", scripted.New(
		scripted.Call("researcher", `{"request":"how often does Go ship?"}`).WithUsage(300, 30),
		scripted.Reply("Go ships twice a year.").WithUsage(500, 40),
	), adk.NewAgentTool(ctx, researcher))

	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(lead)}).Query(ctx, "How often does Go ship?")
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		require.NoError(t, ev.Err)
	}
	return rec
}

// ended waits until the root run's run_ended is in mem: an adapter may
// write it just after the query's output.
func ended(t *testing.T, rec *recorder.Recorder, mem *recorder.MemorySink) []recorder.Record {
	t.Helper()
	require.Eventually(t, func() bool {
		if err := rec.Flush(context.Background()); err != nil {
			return false
		}
		records := mem.Records()
		return len(records) > 0 && records[len(records)-1].Kind() == recorder.KindRunEnded && records[len(records)-1].ParentRunID == ""
	}, 10*time.Second, time.Millisecond)
	return mem.Records()
}

func TestALiveRunExportsThroughOTLPHTTPToAReceiver(t *testing.T) {
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	require.NoError(t, err)
	res := resource.NewSchemaless(semconv.ServiceName("live-test"))
	sink, err := otelexport.NewSink(exp, &otelexport.SinkOptions{Resource: res})
	require.NoError(t, err)
	mem := recorder.NewMemorySink()

	rec := liveRun(t, sink, mem)
	records := ended(t, rec, mem)
	require.NoError(t, rec.Close(ctx)) // closes the sink, which exports the rest and shuts the exporter down

	got := rc.spans(t)
	rc.mu.Lock()
	for _, req := range rc.reqs {
		for _, rs := range req.ResourceSpans {
			assert.Equal(t, "live-test", protoAttrs(rs.Resource.Attributes)["service.name"].GetStringValue())
			for _, ss := range rs.ScopeSpans {
				assert.Equal(t, otelexport.ScopeName, ss.Scope.GetName())
				assert.Equal(t, semconv.SchemaURL, ss.SchemaUrl)
			}
		}
	}
	rc.mu.Unlock()

	// The spans the receiver got are the spans of an offline export of
	// the same records, field for field.
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

	checkConventions(t, got)
}

// checkConventions checks the spans of liveRun against the GenAI
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
