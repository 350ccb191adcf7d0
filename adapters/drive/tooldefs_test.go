package drive

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// discard is a sink that keeps nothing.
type discard struct{}

func (discard) Write(context.Context, *recorder.Record) error { return nil }

func recordingRun(tb testing.TB, sink recorder.Sink) *Run {
	tb.Helper()
	// A benchmark may outrun the queue; its drops are not errors here.
	rec := recorder.New(sink, &recorder.Options{OnError: func(context.Context, error) {}})
	tb.Cleanup(func() { _ = rec.Close(context.Background()) })
	l, err := New(&lookout.Config{Recorder: rec, OnError: func(_ context.Context, err error) { tb.Error(err) }})
	if err != nil {
		tb.Fatal(err)
	}
	r, err := l.newRun(session.New(nil))
	if err != nil {
		tb.Fatal(err)
	}
	r.agentName = "bench"
	r.Begin(context.Background(), nil)
	return r
}

func someTools() []*schema.ToolInfo {
	params := schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"q": {Type: schema.String, Required: true}})
	return []*schema.ToolInfo{
		{Name: "search", Desc: "Search.", ParamsOneOf: params},
		{Name: "fetch", Desc: "Fetch a URL.", ParamsOneOf: params},
		{Name: "clock", Desc: "Tell the time."},
	}
}

func TestRecordRequestSkipsANilToolInfo(t *testing.T) {
	sink := recorder.NewMemorySink()
	r := recordingRun(t, sink)
	tools := append(someTools(), nil)
	r.writeRequest(context.Background(), nil, ModelOptions{Tools: tools})
	require.NoError(t, r.cfg.Recorder.Flush(context.Background()))
	req := sink.Records()[1].Payload.(*recorder.ModelRequest)
	if len(req.Tools) != 3 || len(req.ToolDefinitions) != 3 {
		t.Errorf("tools %v, %d definitions; want the three real tools", req.Tools, len(req.ToolDefinitions))
	}
}

func TestEachRunRecordsTheDefinitionsOfToolsConvertedOnce(t *testing.T) {
	sink := recorder.NewMemorySink()
	first := recordingRun(t, sink)
	second, err := first.l.newRun(session.New(nil))
	require.NoError(t, err)
	second.Begin(context.Background(), nil)
	tools := someTools()
	// Eino builds an agent's tool infos anew for each run.
	again := make([]*schema.ToolInfo, len(tools))
	for i, t := range tools {
		c := *t
		again[i] = &c
	}
	first.writeRequest(context.Background(), nil, ModelOptions{Tools: tools})
	second.writeRequest(context.Background(), nil, ModelOptions{Tools: again})
	second.writeRequest(context.Background(), nil, ModelOptions{Tools: again})
	require.NoError(t, first.cfg.Recorder.Flush(context.Background()))
	var defs [][]recorder.ToolDefinition
	for _, rec := range sink.Records() {
		if req, ok := rec.Payload.(*recorder.ModelRequest); ok {
			defs = append(defs, req.ToolDefinitions)
		}
	}
	require.Len(t, defs, 3)
	require.Len(t, defs[0], 3, "the first run records the definitions")
	require.Len(t, defs[1], 3, "so does the second, from the same conversion")
	require.Nil(t, defs[2], "and not again while the set is the same")
	require.Same(t, &defs[0][0], &defs[1][0], "converted once")
}

// BenchmarkRecordRequestSameTools is a model request offering the set the
// run already recorded, the common case after the first call.
func BenchmarkRecordRequestSameTools(b *testing.B) {
	r := recordingRun(b, discard{})
	ctx := context.Background()
	req := ModelOptions{Tools: someTools()}
	input := []*schema.Message{schema.UserMessage("hi")}
	r.writeRequest(ctx, input, req)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.writeRequest(ctx, input, req)
	}
}

// BenchmarkRecordRequestChangedTools alternates two sets, so every
// request converts and writes the definitions.
func BenchmarkRecordRequestChangedTools(b *testing.B) {
	r := recordingRun(b, discard{})
	ctx := context.Background()
	a, c := someTools(), someTools()[:2]
	reqs := []ModelOptions{{Tools: a}, {Tools: c}}
	input := []*schema.Message{schema.UserMessage("hi")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.writeRequest(ctx, input, reqs[i%2])
	}
}
