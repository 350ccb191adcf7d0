package simtarget

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// funcTool is an invokable tool backed by a function.
type funcTool struct {
	name string
	fn   func(ctx context.Context, args string) (string, error)
}

func (f funcTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: f.name, Desc: "fake " + f.name}, nil
}

func (f funcTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	return f.fn(ctx, args)
}

func newReact(t *testing.T, m *scripted.Model, tools ...tool.BaseTool) *react.Agent {
	t.Helper()
	a, err := react.NewAgent(context.Background(), &react.AgentConfig{
		ToolCallingModel: m, ToolsConfig: compose.ToolsNodeConfig{Tools: tools},
	})
	require.NoError(t, err)
	return a
}

// A tool that runs another react agent, or calls a model that fires its
// own callbacks (as the eino-ext providers do), with its ctx: Eino hands
// the outer run's callbacks down to both. Their messages are the tool's
// business; the turn holds only what the agent under test produced.
func TestReactTargetLeavesOutMessagesFromInsideTools(t *testing.T) {
	ctx := context.Background()
	inner := newReact(t, scripted.New(scripted.Call("search_flights", `{"to":"OPO"}`), scripted.Reply("inner answer")), travelTools()...)
	summarizer := scripted.New(scripted.Reply("in short: TP123")).WithCallbacks(true)
	research := funcTool{name: "research", fn: func(ctx context.Context, args string) (string, error) {
		out, err := inner.Generate(ctx, []*schema.Message{schema.UserMessage(args)})
		if err != nil {
			return "", err
		}
		sum, err := summarizer.Generate(ctx, []*schema.Message{schema.UserMessage(out.Content)})
		if err != nil {
			return "", err
		}
		return sum.Content, nil
	}}
	outer := newReact(t, scripted.New(scripted.Call("research", `{"q":"flights"}`), scripted.Reply("outer answer")), research)

	out, err := React(outer).Respond(ctx, []*schema.Message{schema.UserMessage("Flights?")})
	require.NoError(t, err)
	assert.Equal(t, []roleText{
		{schema.Assistant, "call research"},
		{schema.Tool, "in short: TP123"},
		{schema.Assistant, "outer answer"},
	}, summarise(out))
}

func TestReactTargetKeepsWhatTheAgentProducedBeforeAnError(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("provider down")
	a := newReact(t, scripted.New(scripted.Call("search_flights", `{"to":"LIS"}`), scripted.Fail(boom)), travelTools()...)
	out, err := React(a).Respond(ctx, []*schema.Message{schema.UserMessage("Flights?")})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, []roleText{
		{schema.Assistant, "call search_flights"},
		{schema.Tool, `TP123 09:00 for {"to":"LIS"}`},
	}, summarise(out), "as the ADK target does, the failed turn keeps the messages before the error")
}

// Parallel calls finish in any order; the turn lists their results in the
// order of the calls, as the agent's own history does.
func TestReactTargetListsParallelToolResultsInCallOrder(t *testing.T) {
	ctx := context.Background()
	first, second, m := callsFinishingOutOfOrder()
	out, err := React(newReact(t, m, first, second)).Respond(ctx, []*schema.Message{schema.UserMessage("go")})
	requireCallOrder(t, m, out, err)
}

// callsFinishingOutOfOrder returns two tools, the first of which finishes
// only after the second, and a model that calls both in one turn and then
// answers.
func callsFinishingOutOfOrder() (first, second funcTool, m *scripted.Model) {
	secondDone := make(chan struct{})
	first = funcTool{name: "first", fn: func(ctx context.Context, _ string) (string, error) {
		select {
		case <-secondDone:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return "first result", nil
	}}
	second = funcTool{name: "second", fn: func(context.Context, string) (string, error) {
		close(secondDone)
		return "second result", nil
	}}
	m = scripted.New(
		scripted.Calls(scripted.ToolCall{Name: "first", Arguments: `{}`}, scripted.ToolCall{Name: "second", Arguments: `{}`}),
		scripted.Reply("both done"),
	)
	return first, second, m
}

// requireCallOrder checks a turn of callsFinishingOutOfOrder's model: the
// results in the order of the calls, as the model read them.
func requireCallOrder(t *testing.T, m *scripted.Model, out []*schema.Message, err error) {
	t.Helper()
	require.NoError(t, err)
	assert.Equal(t, []roleText{
		{schema.Assistant, "call first"},
		{schema.Tool, "first result"},
		{schema.Tool, "second result"},
		{schema.Assistant, "both done"},
	}, summarise(out))
	assert.Equal(t, summarise(m.Requests()[1].Messages[1:]), summarise(out[:3]), "the order the model read them in")
}

// A tool middleware that turns a tool error into a message (as Lookout's
// does) changes what the model reads; the turn holds that message.
func TestReactTargetKeepsToolMessagesAsTheModelReadThem(t *testing.T) {
	ctx := context.Background()
	broken := funcTool{name: "broken", fn: func(context.Context, string) (string, error) {
		return "", errors.New("disk on fire")
	}}
	asText := compose.ToolMiddleware{Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
		return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
			out, err := next(ctx, in)
			if err != nil {
				return &compose.ToolOutput{Result: "Error: " + err.Error()}, nil
			}
			return out, nil
		}
	}}
	m := scripted.New(scripted.Call("broken", `{}`), scripted.Reply("it failed"))
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: m,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{broken}, ToolCallMiddlewares: []compose.ToolMiddleware{asText}},
	})
	require.NoError(t, err)
	out, err := React(a).Respond(ctx, []*schema.Message{schema.UserMessage("go")})
	require.NoError(t, err)
	assert.Equal(t, []roleText{
		{schema.Assistant, "call broken"},
		{schema.Tool, "Error: disk on fire"},
		{schema.Assistant, "it failed"},
	}, summarise(out))
}

// A model that fires its own callbacks, as the eino-ext providers do,
// behind Lookout's model wrapper and tool middleware, the agent run
// through Lookout.Agent: each reply counts once, and the turn is one run,
// ended before Respond returns.
func TestReactTargetWithLookoutAndAModelThatFiresItsOwnCallbacks(t *testing.T) {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	t.Cleanup(func() { _ = rec.Close(context.Background()) })
	l, err := lookoutreact.New(ctx, &lookout.Config{Limits: budget.Limits{MaxToolCalls: 1}, Recorder: rec})
	require.NoError(t, err)
	m := scripted.New(scripted.Call("search_flights", `{"to":"LIS"}`).Call("book", `{}`), scripted.Reply("TP123 it is.")).WithCallbacks(true)
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: l.WrapModel(m),
		ToolsConfig: compose.ToolsNodeConfig{
			Tools: travelTools(), ToolCallMiddlewares: []compose.ToolMiddleware{l.ToolMiddleware()},
		},
	})
	require.NoError(t, err)
	store := session.New(nil)
	out, err := React(l.Agent(a)).Respond(session.NewContext(ctx, store), []*schema.Message{schema.UserMessage("Flights?")})
	require.NoError(t, err)
	require.Len(t, out, 4)
	assert.Len(t, out[0].ToolCalls, 2)
	// The calls run in parallel under a limit of one: either may be the
	// one refused.
	var refused, ran int
	for _, msg := range out[1:3] {
		assert.Equal(t, schema.Tool, msg.Role)
		if strings.HasPrefix(msg.Content, "Tool call refused") {
			refused++
		} else {
			ran++
			assert.NotEmpty(t, msg.Content, "the call that ran answered")
		}
	}
	assert.Equal(t, 1, refused, "the refusal the model read")
	assert.Equal(t, 1, ran)
	assert.Equal(t, "TP123 it is.", out[3].Content)

	b, ok := lookout.BudgetOf(store)
	require.True(t, ok, "the turn ran as a Lookout run")
	assert.Equal(t, int64(2), b.ModelCalls, "each reply charged once")
	require.NoError(t, rec.Flush(ctx))
	records := sink.Records()
	require.NotEmpty(t, records)
	end, ok := records[len(records)-1].Payload.(*recorder.RunEnded)
	require.True(t, ok, "run_ended is recorded by the time Respond returns")
	assert.Equal(t, recorder.OutcomeCompleted, end.Outcome)
}

// The react target accepts the agent run through Lookout.Agent, and a nil
// one of those is a nil agent too.
func TestReactTargetOfANilLookoutAgent(t *testing.T) {
	var a *react.Agent
	_, err := React(a).Respond(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	assert.ErrorIs(t, err, ErrNilAgent)
	var la *lookoutreact.Agent
	_, err = React(la).Respond(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	assert.ErrorIs(t, err, ErrNilAgent)
}
