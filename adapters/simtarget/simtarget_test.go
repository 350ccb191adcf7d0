package simtarget

import (
	"context"
	"errors"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/simulate"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fakeTool struct{ name, result string }

func (f fakeTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: f.name, Desc: "fake " + f.name}, nil
}

func (f fakeTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	return f.result + " for " + args, nil
}

func travelTools() []tool.BaseTool {
	return []tool.BaseTool{
		fakeTool{name: "search_flights", result: "TP123 09:00"},
		fakeTool{name: "book", result: "confirmation ABC"},
	}
}

func newAgent(t *testing.T, m *scripted.Model) adk.Agent {
	t.Helper()
	a, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: "travel", Description: "plans trips", Instruction: "You are a travel agent.", Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: travelTools()}},
	})
	require.NoError(t, err)
	return a
}

type roleText struct {
	Role schema.RoleType
	Text string
}

func summarise(msgs []*schema.Message) []roleText {
	out := make([]roleText, len(msgs))
	for i, m := range msgs {
		txt := m.Content
		if len(m.ToolCalls) > 0 {
			txt = "call " + m.ToolCalls[0].Function.Name
		}
		out[i] = roleText{m.Role, txt}
	}
	return out
}

func TestADKTargetKeepsTheHistoryAcrossTurns(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := "generate"
		if streaming {
			name = "streaming"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			agentModel := scripted.New(
				scripted.Call("search_flights", `{"to":"LIS"}`), scripted.Reply("TP123 leaves at 09:00."),
				scripted.Reply("Hotel Sol is near the river."),
				scripted.Call("book", `{"flight":"TP123"}`), scripted.Reply("Booked: ABC."),
			)
			user := scripted.New(scripted.Reply("Flights to Lisbon?"), scripted.Reply("Any hotels?"), scripted.Reply("Book TP123 please."))
			runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: newAgent(t, agentModel), EnableStreaming: streaming})
			sim := &simulate.Runner{UserModel: user}
			sc := &simulate.Scenario{Goal: "book a trip", MaxTurns: 5, Goals: []simulate.Goal{simulate.ToolCalled("book")}}

			res, err := sim.Run(ctx, sc, Runner(runner))
			require.NoError(t, err)
			require.Len(t, res.Traces, 3)
			assert.Equal(t, simulate.StopGoalReached, res.End.Reason)

			// What the agent's model was sent on each call: the whole
			// conversation, tool messages included, in order.
			u1 := roleText{schema.User, "Flights to Lisbon?"}
			callSearch := roleText{schema.Assistant, "call search_flights"}
			searchResult := roleText{schema.Tool, `TP123 09:00 for {"to":"LIS"}`}
			a1 := roleText{schema.Assistant, "TP123 leaves at 09:00."}
			u2 := roleText{schema.User, "Any hotels?"}
			a2 := roleText{schema.Assistant, "Hotel Sol is near the river."}
			u3 := roleText{schema.User, "Book TP123 please."}
			callBook := roleText{schema.Assistant, "call book"}
			bookResult := roleText{schema.Tool, `confirmation ABC for {"flight":"TP123"}`}
			sys := roleText{schema.System, "You are a travel agent."}
			want := [][]roleText{
				{sys, u1},
				{sys, u1, callSearch, searchResult},
				{sys, u1, callSearch, searchResult, a1, u2},
				{sys, u1, callSearch, searchResult, a1, u2, a2, u3},
				{sys, u1, callSearch, searchResult, a1, u2, a2, u3, callBook, bookResult},
			}
			reqs := agentModel.Requests()
			require.Len(t, reqs, len(want))
			for i, w := range want {
				assert.Equal(t, w, summarise(reqs[i].Messages), "model call %d", i)
				assert.Equal(t, []string{"search_flights", "book"}, reqs[i].ToolNames())
			}

			assert.Equal(t, []roleText{callSearch, searchResult, a1}, summarise(res.Traces[0].Agent))
			assert.Equal(t, []roleText{a2}, summarise(res.Traces[1].Agent))
			assert.Equal(t, []roleText{callBook, bookResult, {schema.Assistant, "Booked: ABC."}}, summarise(res.Traces[2].Agent))
			require.Len(t, res.ToolCalls, 2)
			assert.True(t, res.ToolCalls[1].Answered)
			assert.Equal(t, `{"flight":"TP123"}`, res.ToolCalls[1].Arguments)
		})
	}
}

func TestADKTargetReportsAgentErrors(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("provider down")
	agentModel := scripted.New(scripted.Reply("hello"), scripted.Fail(boom))
	user := scripted.New(scripted.Forever(scripted.Reply("hi")))
	res, err := (&simulate.Runner{UserModel: user}).Run(ctx, &simulate.Scenario{Goal: "g", MaxTurns: 3}, Agent(ctx, newAgent(t, agentModel)))
	assert.ErrorIs(t, err, simulate.ErrAgent)
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, simulate.SideAgent, res.End.ErrorSide)
	assert.Len(t, res.Traces, 2)
}

func TestNilTargets(t *testing.T) {
	ctx := context.Background()
	for name, target := range map[string]simulate.Target{
		"agent":    Agent(ctx, nil),
		"runner":   Runner(nil),
		"react":    React(nil),
		"runnable": Runnable(nil),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := target.Respond(ctx, []*schema.Message{schema.UserMessage("hi")})
			assert.ErrorIs(t, err, ErrNilAgent)
		})
	}
}

func TestReactTargetReturnsToolMessagesInOrder(t *testing.T) {
	ctx := context.Background()
	agentModel := scripted.New(
		scripted.Call("search_flights", `{"to":"LIS"}`), scripted.Reply("TP123 it is."),
		scripted.Reply("Anything else?"),
	)
	ra, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: agentModel,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: travelTools()},
	})
	require.NoError(t, err)
	user := scripted.New(scripted.Reply("Flights?"), scripted.Reply("Thanks"))
	res, err := (&simulate.Runner{UserModel: user}).Run(ctx, &simulate.Scenario{Goal: "g", MaxTurns: 2}, React(ra))
	require.NoError(t, err)
	require.Len(t, res.Traces, 2)
	assert.Equal(t, []roleText{
		{schema.Assistant, "call search_flights"},
		{schema.Tool, `TP123 09:00 for {"to":"LIS"}`},
		{schema.Assistant, "TP123 it is."},
	}, summarise(res.Traces[0].Agent))
	assert.Equal(t, []roleText{{schema.Assistant, "Anything else?"}}, summarise(res.Traces[1].Agent))
	assert.Equal(t, []roleText{
		{schema.User, "Flights?"}, {schema.Assistant, "call search_flights"}, {schema.Tool, `TP123 09:00 for {"to":"LIS"}`},
		{schema.Assistant, "TP123 it is."}, {schema.User, "Thanks"},
	}, summarise(agentModel.Requests()[2].Messages))

	t.Run("errors pass through", func(t *testing.T) {
		m := scripted.New(scripted.Fail(errors.New("nope")))
		ra, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: m, ToolsConfig: compose.ToolsNodeConfig{Tools: travelTools()}})
		require.NoError(t, err)
		_, err = React(ra).Respond(ctx, []*schema.Message{schema.UserMessage("hi")})
		assert.ErrorContains(t, err, "nope")
	})
}

func TestRunnableTarget(t *testing.T) {
	ctx := context.Background()
	m := scripted.New(scripted.Reply("one"), scripted.Reply("two"))
	r, err := compose.NewChain[[]*schema.Message, *schema.Message]().AppendChatModel(m).Compile(ctx)
	require.NoError(t, err)
	user := scripted.New(scripted.Reply("a"), scripted.Reply("b"))
	res, err := (&simulate.Runner{UserModel: user}).Run(ctx, &simulate.Scenario{Goal: "g", MaxTurns: 2}, Runnable(r))
	require.NoError(t, err)
	assert.Equal(t, "two", res.Traces[1].Agent[0].Content)
	assert.Equal(t, []roleText{{schema.User, "a"}, {schema.Assistant, "one"}, {schema.User, "b"}}, summarise(m.Requests()[1].Messages))
}
