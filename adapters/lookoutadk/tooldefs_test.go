package lookoutadk_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/lookout-go/lookout"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// describedTool is an echo tool with a description and a parameter
// schema of its own.
type describedTool struct {
	info *schema.ToolInfo
}

func (d describedTool) Info(context.Context) (*schema.ToolInfo, error) { return d.info, nil }

func (d describedTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	return d.info.Name + " ok " + args, nil
}

func searchTool() describedTool {
	return describedTool{&schema.ToolInfo{
		Name: "search", Desc: "Search the <index> for a query.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"q":     {Type: schema.String, Desc: "what to look for", Required: true},
			"limit": {Type: schema.Integer, Desc: "how many hits"},
		}),
	}}
}

func clockTool() describedTool {
	return describedTool{&schema.ToolInfo{Name: "clock", Desc: "Tell the time."}}
}

// toolSetEditor changes the tools offered to the model from the given
// model call on (counting from 1), as a middleware that edits the agent's
// tool set would.
type toolSetEditor struct {
	*adk.BaseChatModelAgentMiddleware
	mu    sync.Mutex
	calls int
	edit  func(call int, infos []*schema.ToolInfo) []*schema.ToolInfo
}

func (e *toolSetEditor) BeforeModelRewriteState(ctx context.Context, st *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	e.mu.Lock()
	e.calls++
	n := e.calls
	e.mu.Unlock()
	st.ToolInfos = e.edit(n, st.ToolInfos)
	return ctx, st, nil
}

func modelRequests(records []recorder.Record) []*recorder.ModelRequest {
	var out []*recorder.ModelRequest
	for _, r := range records {
		if req, ok := r.Payload.(*recorder.ModelRequest); ok {
			out = append(out, req)
		}
	}
	return out
}

func definitionNames(defs []recorder.ToolDefinition) []string {
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	return names
}

// editedRequests runs an agent that makes three model calls, with one
// tool offered and editor changing the set, and returns the recorded
// model requests.
func editedRequests(t *testing.T, editor *toolSetEditor) []*recorder.ModelRequest {
	t.Helper()
	sink := recorder.NewMemorySink()
	agent := newAgent(t, agentSpec{
		model: threeCalls(), tools: []tool.BaseTool{searchTool()}, handlers: []adk.ChatModelAgentMiddleware{editor},
		cfg: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)},
	})
	require.NoError(t, runWith(t, agent, false).err)
	reqs := modelRequests(flushedRecords(t, sink))
	require.Len(t, reqs, 3)
	return reqs
}

func threeCalls() *scripted.Model {
	return scripted.New(scripted.Call("search", `{"q":"a"}`), scripted.Call("search", `{"q":"b"}`), scripted.Reply("done"))
}

func TestToolDefinitionsAreRecordedOnTheFirstRequestOnly(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := "generate"
		if streaming {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			sink := recorder.NewMemorySink()
			agent := newAgent(t, agentSpec{model: threeCalls(), tools: []tool.BaseTool{searchTool(), clockTool()}, cfg: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)}})
			require.NoError(t, runWith(t, agent, streaming).err)

			reqs := modelRequests(flushedRecords(t, sink))
			require.Len(t, reqs, 3)
			for _, req := range reqs {
				assert.ElementsMatch(t, []string{"search", "clock"}, req.Tools, "every request names its tools")
			}
			assert.ElementsMatch(t, []string{"search", "clock"}, definitionNames(reqs[0].ToolDefinitions))
			assert.Empty(t, reqs[1].ToolDefinitions, "the same set is not written again")
			assert.Empty(t, reqs[2].ToolDefinitions)

			for _, d := range reqs[0].ToolDefinitions {
				switch d.Name {
				case "search":
					assert.Equal(t, "Search the <index> for a query.", d.Description)
					assert.JSONEq(t, `{"type":"object","properties":{"limit":{"type":"integer","description":"how many hits"},`+
						`"q":{"type":"string","description":"what to look for"}},"required":["q"]}`, string(d.Parameters))
				case "clock":
					assert.Equal(t, "Tell the time.", d.Description)
					assert.Nil(t, d.Parameters, "a tool without parameters records none")
				}
			}
		})
	}
}

func TestToolDefinitionsAreRecordedAgainWhenTheOfferedSetChanges(t *testing.T) {
	extra := &schema.ToolInfo{Name: "lookup", Desc: "Look a key up.", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"key": {Type: schema.String, Required: true},
	})}
	var grown []*schema.ToolInfo
	editor := &toolSetEditor{edit: func(call int, infos []*schema.ToolInfo) []*schema.ToolInfo {
		if call < 2 {
			return infos
		}
		if grown == nil {
			grown = append(append([]*schema.ToolInfo(nil), infos...), extra)
		}
		return grown
	}}
	reqs := editedRequests(t, editor)
	assert.Equal(t, []string{"search"}, definitionNames(reqs[0].ToolDefinitions))
	assert.Equal(t, []string{"search", "lookup"}, definitionNames(reqs[1].ToolDefinitions), "a changed set is written in full")
	assert.Empty(t, reqs[2].ToolDefinitions, "and then not again")
	assert.Equal(t, []string{"search", "lookup"}, reqs[2].Tools)
}

func TestAToolSetRebuiltWithEqualDefinitionsIsNotRecordedAgain(t *testing.T) {
	editor := &toolSetEditor{edit: func(_ int, infos []*schema.ToolInfo) []*schema.ToolInfo {
		fresh := make([]*schema.ToolInfo, len(infos))
		for i, info := range infos {
			c := *info
			fresh[i] = &c
		}
		return fresh
	}}
	reqs := editedRequests(t, editor)
	assert.Len(t, reqs[0].ToolDefinitions, 1)
	assert.Empty(t, reqs[1].ToolDefinitions, "new pointers, same definitions")
	assert.Empty(t, reqs[2].ToolDefinitions)
}

// panicky is a schema default whose encoding panics.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("cannot encode") }

func TestAToolThatCannotBeDescribedIsRecordedByNameAndReportedOnce(t *testing.T) {
	for name, def := range map[string]any{
		"encoding fails":  make(chan int),
		"encoding panics": panicky{},
	} {
		t.Run(name, func(t *testing.T) {
			sink := recorder.NewMemorySink()
			odd := describedTool{&schema.ToolInfo{Name: "search", Desc: "odd", ParamsOneOf: schema.NewParamsOneOfByJSONSchema(&jsonschema.Schema{Type: "object", Default: def})}}
			var mu sync.Mutex
			var reported []error
			agent := newAgent(t, agentSpec{model: threeCalls(), tools: []tool.BaseTool{odd}, cfg: &lookout.Config{
				Recorder: adaptertest.NewRecorder(t, sink, nil),
				OnError: func(_ context.Context, err error) {
					mu.Lock()
					reported = append(reported, err)
					mu.Unlock()
				},
			}})
			out := runWith(t, agent, false)
			require.NoError(t, out.err, "the run goes on")

			reqs := modelRequests(flushedRecords(t, sink))
			require.Len(t, reqs, 3)
			for _, req := range reqs {
				assert.Equal(t, []string{"search"}, req.Tools)
				assert.Empty(t, req.ToolDefinitions)
			}
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, reported, 1, "the same set is not retried on every call")
			assert.Contains(t, reported[0].Error(), `"search"`)
		})
	}
}

func TestAnAgentsToolDefinitionsReachItsATIFExport(t *testing.T) {
	sink := recorder.NewMemorySink()
	agent := newAgent(t, agentSpec{model: threeCalls(), tools: []tool.BaseTool{searchTool(), clockTool()}, cfg: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)}})
	require.NoError(t, runWith(t, agent, false).err)

	traj, err := atif.FromRecords(flushedRecords(t, sink), nil)
	require.NoError(t, err)
	doc, err := json.Marshal(traj)
	require.NoError(t, err)
	assert.Empty(t, atif.Validate(doc))

	require.Len(t, traj.Agent.ToolDefinitions, 2)
	byName := map[string]map[string]any{}
	for _, d := range traj.Agent.ToolDefinitions {
		assert.Equal(t, "function", d["type"])
		fn, ok := d["function"].(map[string]any)
		require.True(t, ok)
		byName[fn["name"].(string)] = fn
	}
	assert.Equal(t, "Search the <index> for a query.", byName["search"]["description"])
	params, err := json.Marshal(byName["search"]["parameters"])
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"limit":{"type":"integer","description":"how many hits"},`+
		`"q":{"type":"string","description":"what to look for"}},"required":["q"]}`, string(params))
	assert.NotContains(t, byName["clock"], "parameters")
}
