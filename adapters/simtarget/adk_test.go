package simtarget

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
	"github.com/lookout-go/lookout/simulate"
)

func newADK(t *testing.T, name string, m *scripted.Model, tools adk.ToolsConfig) adk.Agent {
	t.Helper()
	a, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: name, Description: "does " + name, Model: m, ToolsConfig: tools,
	})
	require.NoError(t, err)
	return a
}

// With EmitInternalEvents, the runner forwards the events of an agent used
// as a tool so a product can show them; they are not part of the agent's
// history (adk.ToolsConfig says so), and the turn leaves them out.
func TestADKTargetLeavesOutAnAgentToolsInternalEvents(t *testing.T) {
	ctx := context.Background()
	for _, streaming := range []bool{false, true} {
		researcher := newADK(t, "researcher", scripted.New(scripted.Call("search_flights", `{"to":"OPO"}`), scripted.Reply("inner answer")),
			adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: travelTools()}})
		travel := newADK(t, "travel", scripted.New(scripted.Call("researcher", `{"request":"flights"}`), scripted.Reply("outer answer")),
			adk.ToolsConfig{EmitInternalEvents: true, ToolsNodeConfig: compose.ToolsNodeConfig{
				Tools: []tool.BaseTool{adk.NewAgentTool(ctx, researcher)},
			}})
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: travel, EnableStreaming: streaming})
		out, err := Runner(runner).Respond(ctx, []*schema.Message{schema.UserMessage("Flights?")})
		require.NoError(t, err)
		assert.Equal(t, []roleText{
			{schema.Assistant, "call researcher"},
			{schema.Tool, "inner answer"},
			{schema.Assistant, "outer answer"},
		}, summarise(out), "streaming=%v", streaming)
	}
}

// A transfer hands the conversation to a sub-agent: its messages are the
// conversation's.
func TestADKTargetKeepsTheMessagesOfATransfer(t *testing.T) {
	ctx := context.Background()
	researcher := newADK(t, "researcher", scripted.New(scripted.Call("search_flights", `{"to":"OPO"}`), scripted.Reply("TP123 it is")),
		adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: travelTools()}})
	travel := newADK(t, "travel", scripted.New(scripted.Call("transfer_to_agent", `{"agent_name":"researcher"}`)),
		adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: travelTools()[1:]}})
	root, err := adk.SetSubAgents(ctx, travel, []adk.Agent{researcher})
	require.NoError(t, err)
	out, err := Agent(ctx, root).Respond(ctx, []*schema.Message{schema.UserMessage("Flights?")})
	require.NoError(t, err)
	assert.Equal(t, []roleText{
		{schema.Assistant, "call transfer_to_agent"},
		{schema.Tool, "successfully transferred to agent [researcher]"},
		{schema.Assistant, "call search_flights"},
		{schema.Tool, `TP123 09:00 for {"to":"OPO"}`},
		{schema.Assistant, "TP123 it is"},
	}, summarise(out))
}

// Parallel calls finish in any order, and adk.Runner emits their results
// as they finish; the turn lists them in the order of the calls, as the
// agent's own history does.
func TestADKTargetListsParallelToolResultsInCallOrder(t *testing.T) {
	ctx := context.Background()
	first, second, m := callsFinishingOutOfOrder()
	a := newADK(t, "worker", m, adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{first, second}}})
	out, err := Agent(ctx, a).Respond(ctx, []*schema.Message{schema.UserMessage("go")})
	requireCallOrder(t, m, out, err)
}

// An ADK agent with Lookout: the middleware in its Handlers, the agent
// wrapped with mw.Agent. Each turn is one run on the session the ctx
// carries, so the conversation has one budget, and each run's end is
// recorded by the time Respond returns.
func TestADKTargetWithLookout(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		ctx := context.Background()
		sink := recorder.NewMemorySink()
		rec := recorder.New(sink, nil)
		t.Cleanup(func() { _ = rec.Close(context.Background()) })
		mw, err := lookoutadk.New(ctx, &lookout.Config{Limits: budget.Limits{MaxToolCalls: 10}, Recorder: rec})
		require.NoError(t, err)
		agentModel := scripted.New(
			scripted.Call("search_flights", `{"to":"LIS"}`), scripted.Reply("TP123 leaves at 09:00."),
			scripted.Call("book", `{"flight":"TP123"}`), scripted.Reply("Booked: ABC."),
		)
		a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "travel", Description: "plans trips", Model: agentModel,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: travelTools()}},
			Handlers:    []adk.ChatModelAgentMiddleware{mw},
		})
		require.NoError(t, err)
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(a), EnableStreaming: streaming})
		store := session.New(nil)
		ctx = session.NewContext(ctx, store)
		user := scripted.New(scripted.Reply("Flights to Lisbon?"), scripted.Reply("Book TP123 please."))
		res, err := (&simulate.Runner{UserModel: user}).Run(ctx, &simulate.Scenario{Goal: "book a trip", MaxTurns: 2}, Runner(runner))
		require.NoError(t, err, "streaming=%v", streaming)
		require.Len(t, res.Traces, 2)
		assert.Equal(t, []roleText{{schema.Assistant, "call book"}, {schema.Tool, `confirmation ABC for {"flight":"TP123"}`}, {schema.Assistant, "Booked: ABC."}},
			summarise(res.Traces[1].Agent), "streaming=%v", streaming)

		b, ok := lookout.BudgetOf(store)
		require.True(t, ok)
		assert.Equal(t, int64(2), b.ToolCalls, "both turns charged the conversation's budget")
		assert.Len(t, lookout.ToolCallsOf(store, 0), 2)

		require.NoError(t, rec.Flush(context.Background()))
		var ended []*recorder.RunEnded
		for _, r := range sink.Records() {
			if e, ok := r.Payload.(*recorder.RunEnded); ok {
				ended = append(ended, e)
			}
		}
		require.Len(t, ended, 2, "one run per turn, each ended, streaming=%v", streaming)
		for _, e := range ended {
			assert.Equal(t, recorder.OutcomeCompleted, e.Outcome)
		}
	}
}
