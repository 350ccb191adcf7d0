package lookoutreact_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

// loopState is the history of a hand-built tool loop.
type loopState struct {
	Messages []*schema.Message
}

// toolLoop builds the graph a compose user writes instead of react: a
// ChatModel node and a ToolsNode in a loop, with the history in the
// graph's state. Lookout goes in through the same two hooks, and the
// compiled graph is run through lookoutreact.Runnable.
func toolLoop(t testing.TB, l *lookoutreact.Hooks, m model.ToolCallingChatModel, tools []tool.BaseTool) compose.Runnable[[]*schema.Message, *schema.Message] {
	t.Helper()
	ctx := context.Background()
	infos := make([]*schema.ToolInfo, len(tools))
	for i, tl := range tools {
		info, err := tl.Info(ctx)
		require.NoError(t, err)
		infos[i] = info
	}
	bound, err := l.WrapModel(m).WithTools(infos)
	require.NoError(t, err)
	toolsNode, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{
		Tools:               tools,
		ToolCallMiddlewares: []compose.ToolMiddleware{l.ToolMiddleware()},
	})
	require.NoError(t, err)

	g := compose.NewGraph[[]*schema.Message, *schema.Message](compose.WithGenLocalState(func(context.Context) *loopState {
		return &loopState{}
	}))
	require.NoError(t, g.AddChatModelNode("model", bound, compose.WithStatePreHandler(
		func(_ context.Context, in []*schema.Message, st *loopState) ([]*schema.Message, error) {
			st.Messages = append(st.Messages, in...)
			return st.Messages, nil
		})))
	require.NoError(t, g.AddToolsNode("tools", toolsNode, compose.WithStatePreHandler(
		func(_ context.Context, in *schema.Message, st *loopState) (*schema.Message, error) {
			st.Messages = append(st.Messages, in)
			return in, nil
		})))
	require.NoError(t, g.AddEdge(compose.START, "model"))
	require.NoError(t, g.AddBranch("model", compose.NewGraphBranch(func(_ context.Context, msg *schema.Message) (string, error) {
		if len(msg.ToolCalls) > 0 {
			return "tools", nil
		}
		return compose.END, nil
	}, map[string]bool{"tools": true, compose.END: true})))
	require.NoError(t, g.AddEdge("tools", "model"))
	r, err := g.Compile(ctx, compose.WithMaxRunSteps(40), compose.WithGraphName("ToolLoop"))
	require.NoError(t, err)
	return lookoutreact.Runnable(l, "ToolLoop", r)
}

func TestAComposeGraphGetsTheSameHooks(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		l, err := lookoutreact.New(context.Background(), &lookout.Config{
			Limits:    budget.Limits{MaxToolCalls: 9, MaxTokens: 10_000},
			Observers: everyCall(),
		})
		require.NoError(t, err)
		var first, second []scripted.ToolCall
		for i := range 5 {
			first = append(first, scripted.ToolCall{Name: "work", Arguments: callArgs(i)})
			second = append(second, scripted.ToolCall{Name: "work", Arguments: callArgs(5 + i)})
		}
		m := scripted.New(
			scripted.Calls(first...).WithUsage(4000, 50),
			scripted.Calls(second...).WithUsage(4000, 50),
			scripted.Reply("Summary: nine done, one refused.").WithUsage(1000, 50),
		)
		r := toolLoop(t, l, m, []tool.BaseTool{echo("work")})

		store := session.New(nil)
		ctx := session.NewContext(context.Background(), store)
		input := []*schema.Message{schema.UserMessage("do ten things")}
		var out *schema.Message
		if streaming {
			sr, err := r.Stream(ctx, input)
			require.NoError(t, err)
			out, err = concat(sr)
			require.NoError(t, err)
		} else {
			out, err = r.Invoke(ctx, input)
			require.NoError(t, err)
		}
		assert.Equal(t, "Summary: nine done, one refused.", out.Content)

		// Two batches of five parallel calls under a limit of nine: dense
		// indices 1..9, one refusal the model can read.
		var indices []int64
		for _, rec := range lookout.ToolCallsOf(store, 0) {
			indices = append(indices, rec.CallIndex)
		}
		slices.Sort(indices)
		assert.Equal(t, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}, indices, "streaming=%v", streaming)

		reqs := m.Requests()
		require.Len(t, reqs, 3)
		refused := 0
		for _, msg := range toolMessages(reqs[2].Messages) {
			if strings.HasPrefix(msg.Content, "Tool call refused") {
				refused++
			}
		}
		assert.Equal(t, 1, refused)

		// Each model input holds one assessment block: the one injected
		// before never reached the graph's state.
		assert.Equal(t, 1, reqs[1].CountContaining("## Trajectory Assessment"))
		assert.Equal(t, 1, reqs[2].CountContaining("## Trajectory Assessment"))
		// With 19 percent of the tokens left, the tool calls being spent is
		// what makes the last turn a wrap-up turn.
		assert.False(t, reqs[1].ToolsWithheld())
		assert.True(t, reqs[2].ToolsWithheld())
		assert.Contains(t, reqs[2].Last().Content, "no tool calls left: 9 of 9 used")

		b, _ := lookout.BudgetOf(store)
		assert.Equal(t, int64(4050+4050+1050), b.TokensUsed)
		assert.Equal(t, int64(3), b.ModelCalls)
		assert.Equal(t, int64(9), b.ToolCalls)
	}
}

func TestAComposeGraphWrapsUpAndEndsWithTheTypedError(t *testing.T) {
	l, err := lookoutreact.New(context.Background(), &lookout.Config{Limits: budget.Limits{MaxTokens: 1000}})
	require.NoError(t, err)
	// The model ignores the wrap-up turn and calls a tool anyway; the next
	// call finds the tokens spent.
	m := scripted.New(
		scripted.Call("search", `{}`).WithUsage(950, 0),
		scripted.Call("search", `{}`).WithUsage(100, 0),
		scripted.Reply("never reached"),
	)
	r := toolLoop(t, l, m, []tool.BaseTool{echo("search")})
	store := session.New(nil)
	_, err = r.Invoke(session.NewContext(context.Background(), store), []*schema.Message{schema.UserMessage("go")})
	require.ErrorIs(t, err, budget.ErrExceeded)
	var ex *budget.ExceededError
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, budget.Tokens, ex.Resource)

	reqs := m.Requests()
	require.Len(t, reqs, 2, "the third call was not made")
	assert.True(t, reqs[1].ToolsWithheld())
	assert.Equal(t, 1, reqs[1].CountContaining("Budget nearly spent"))
	assert.Equal(t, lookout.TagWrapUp, func() string { k, _ := lookout.Injected(reqs[1].Last()); return k }())
}
