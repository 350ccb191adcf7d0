package lookoutadk_test

import (
	"context"
	"testing"
	"time"

	"github.com/lookout-go/lookout"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/drive/drivetest"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

func TestASubAgentSharesTheBudget(t *testing.T) {
	ctx := context.Background()
	cfg := &lookout.Config{Limits: budget.Limits{MaxTokens: 10_000}}
	childModel := scripted.New(
		scripted.Call("lookup", `{"id":1}`).WithUsage(100, 10),
		scripted.Reply("child answer").WithUsage(200, 20),
	)
	child := newAgent(t, agentSpec{name: "researcher", model: childModel, tools: []tool.BaseTool{echo("lookup")}, cfg: cfg})
	parentModel := scripted.New(
		scripted.Call("researcher", `{"request":"find it"}`).WithUsage(1000, 100),
		scripted.Reply("parent answer").WithUsage(2000, 200),
	)
	parent := newAgent(t, agentSpec{name: "lead", model: parentModel, tools: []tool.BaseTool{adk.NewAgentTool(ctx, child)}, cfg: cfg})

	store := session.New(nil)
	o := runAgent(t, parent, store, false)
	require.NoError(t, o.err)
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(4), b.ModelCalls, "two parent and two child model calls")
	assert.Equal(t, int64(100+10+200+20+1000+100+2000+200), b.TokensUsed)
	assert.Equal(t, int64(2), b.ToolCalls, "the child's lookup and the parent's agent call")
	var names []string
	for _, rec := range session.LogOf[observer.ToolCallRecord](store).All() {
		names = append(names, rec.ToolName)
	}
	assert.Equal(t, []string{"lookup", "researcher"}, names)
}

func TestInjectedRecognisesLookoutMessages(t *testing.T) {
	kind, ok := lookout.Injected(&schema.Message{Extra: map[string]any{lookout.Tag: lookout.TagWrapUp}})
	assert.True(t, ok)
	assert.Equal(t, lookout.TagWrapUp, kind)
	_, ok = lookout.Injected(schema.UserMessage("hi"))
	assert.False(t, ok)
}

// TestSharedBehaviour runs the behaviours both adapters share.
func TestSharedBehaviour(t *testing.T) {
	drivetest.Run(t, drivetest.Adapter{
		Run: runInput,
		New: func(cfg *lookout.Config) error {
			_, err := lookoutadk.New(context.Background(), cfg)
			return err
		},
		Session:       lookoutadk.Session,
		AgentName:     "worker",
		InputMessages: 2, // the instruction and the user's query
		// Providers such as Anthropic's reject a history of tool calls
		// without tool definitions, so the tools stay described.
		WrapUpDescribesTools: true,
	})
}

// rejectBad is a retry config whose ShouldRetry rejects the reply "bad".
var rejectBad = &adk.ModelRetryConfig{
	MaxRetries:  2,
	BackoffFunc: func(context.Context, int) time.Duration { return 0 },
	ShouldRetry: func(_ context.Context, rc *adk.RetryContext) *adk.RetryDecision {
		if rc.OutputMessage != nil && rc.OutputMessage.Content == "bad" {
			return &adk.RetryDecision{Retry: true}
		}
		return nil
	},
}

// Every attempt of a model call that Eino retries is charged, streamed or
// not; a reply that ShouldRetry rejects was still a response. The call
// that started under the limit overruns it by its attempts, as
// docs/budgets.md says.
func TestEveryRetriedAttemptIsCharged(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		ctx := context.Background()
		m := scripted.New(
			scripted.Reply("bad").WithUsage(100, 10),
			scripted.Call("search", `{}`).WithUsage(200, 20),
			scripted.Reply("never reached"),
		)
		mw, err := lookoutadk.New(ctx, &lookout.Config{Limits: budget.Limits{MaxTokens: 100}, WrapUpAt: -1})
		require.NoError(t, err)
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "worker", Description: "test agent", Instruction: "You are a test agent.", Model: m,
			ToolsConfig:      adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
			Handlers:         []adk.ChatModelAgentMiddleware{mw},
			ModelRetryConfig: rejectBad,
		})
		require.NoError(t, err)
		store := session.New(nil)
		o := runAgent(t, agent, store, streaming)
		adaptertest.RequireExceeded(t, o.err, budget.Tokens)
		assert.Equal(t, 2, m.Calls(), "streaming=%v: the retry went ahead, the next call did not", streaming)
		b, _ := session.ValueOf[budget.Budget](store).Latest()
		assert.Equal(t, int64(2), b.ModelCalls, "streaming=%v", streaming)
		assert.Equal(t, int64(110+220), b.TokensUsed, "streaming=%v", streaming)
	}
}

// A transfer target runs inside the query's run when the Runner's agent
// is wrapped: the agents share one budget, with no session on the ctx.
func TestATransferTargetSharesTheQuerysBudget(t *testing.T) {
	ctx := context.Background()
	mw, err := lookoutadk.New(ctx, &lookout.Config{Limits: budget.Limits{MaxTokens: 10_000}})
	require.NoError(t, err)
	agent := func(name string, m *scripted.Model, tools ...tool.BaseTool) adk.Agent {
		a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: name, Description: "test agent " + name, Instruction: "You are a test agent.", Model: m,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
			Handlers:    []adk.ChatModelAgentMiddleware{mw},
		})
		require.NoError(t, err)
		return a
	}
	helper := agent("helper", scripted.New(
		scripted.Call("lookup", `{}`).WithUsage(100, 10),
		scripted.Reply("found it").WithUsage(200, 20),
	), echo("lookup"))
	lead := agent("lead", scripted.New(
		scripted.Calls(scripted.ToolCall{ID: "t1", Name: adk.TransferToAgentToolName, Arguments: `{"agent_name":"helper"}`}).WithUsage(1000, 100),
	))
	root, err := adk.SetSubAgents(ctx, lead, []adk.Agent{helper})
	require.NoError(t, err)

	store := session.New(nil)
	require.NoError(t, runAgent(t, mw.Agent(root), store, false).err)
	b, _ := lookout.BudgetOf(store)
	assert.Equal(t, int64(1000+100+100+10+200+20), b.TokensUsed, "both agents charged the one budget")
	assert.Equal(t, int64(3), b.ModelCalls)
	assert.Equal(t, int64(1), b.ToolCalls, "the helper's lookup; the transfer is a control tool")
}

// Outside a query, Middleware.Model calls the model as it is.
func TestModelOutsideAQueryPassesThrough(t *testing.T) {
	mw, err := lookoutadk.New(context.Background(), nil)
	require.NoError(t, err)
	m := scripted.New(scripted.Reply("hello"))
	out, err := mw.Model(m).Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	require.NoError(t, err)
	assert.Equal(t, "hello", out.Content)
	assert.Nil(t, mw.Model(nil))
}
