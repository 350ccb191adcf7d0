package lookoutadk_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

func TestASubAgentSharesTheBudget(t *testing.T) {
	ctx := context.Background()
	cfg := &lookoutadk.Config{Limits: budget.Limits{MaxTokens: 10_000}}
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
	kind, ok := lookoutadk.Injected(&schema.Message{Extra: map[string]any{lookoutadk.Tag: lookoutadk.TagWrapUp}})
	assert.True(t, ok)
	assert.Equal(t, lookoutadk.TagWrapUp, kind)
	_, ok = lookoutadk.Injected(schema.UserMessage("hi"))
	assert.False(t, ok)
}

// TestSharedBehaviour runs the behaviours both adapters share.
func TestSharedBehaviour(t *testing.T) {
	adaptertest.RunSuite(t, adaptertest.Adapter{
		Run: runInput,
		New: func(cfg *lookoutadk.Config) error {
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
