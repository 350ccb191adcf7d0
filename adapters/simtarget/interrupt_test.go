package simtarget

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/simulate"
)

type bookArgs struct {
	Flight string `json:"flight"`
}

// approvalTool books only once a human approved: it interrupts, and on
// resume reads the answer.
func approvalTool(t *testing.T) tool.BaseTool {
	t.Helper()
	bt, err := utils.InferTool("book", "books a flight", func(ctx context.Context, a bookArgs) (string, error) {
		resumed, has, answer := tool.GetResumeContext[simulate.InterruptAnswer](ctx)
		if !resumed {
			return "", tool.Interrupt(ctx, "approve booking "+a.Flight+"?")
		}
		if !has || answer.Action != simulate.InterruptApprove {
			return "not booked: " + answer.Text, nil
		}
		return "booked " + a.Flight, nil
	})
	require.NoError(t, err)
	return bt
}

func TestADKInterruptsAreAnsweredByTheScenario(t *testing.T) {
	ctx := context.Background()
	play := func(t *testing.T, policy simulate.InterruptPolicy) (*simulate.Result, error) {
		t.Helper()
		model := scripted.New(scripted.Call("book", `{"flight":"TP123"}`), scripted.Reply("All set."))
		agent := newADK(t, "travel", model, adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{approvalTool(t)}}})
		sc := &simulate.Scenario{Goal: "book TP123", MaxTurns: 1, Goals: []simulate.Goal{simulate.ToolCalledWith("book", func(c simulate.ToolCall) bool {
			return c.Result == "booked TP123"
		})}, Interrupts: policy}
		user := scripted.New(scripted.Forever(scripted.Reply("Book TP123 please")))
		return (&simulate.Runner{UserModel: user}).Run(ctx, sc, Agent(ctx, agent))
	}

	t.Run("approved by policy", func(t *testing.T) {
		res, err := play(t, simulate.InterruptPolicy{"book": {Action: simulate.InterruptApprove}})
		require.NoError(t, err)
		assert.True(t, res.End.Completed)
		assert.Equal(t, []roleText{
			{schema.Assistant, "call book"},
			{schema.Tool, "booked TP123"},
			{schema.Assistant, "All set."},
		}, summarise(res.Traces[0].Agent))
		require.Len(t, res.Traces[0].Interrupts, 1)
		in := res.Traces[0].Interrupts[0]
		assert.Equal(t, "book", in.Tool)
		assert.True(t, in.Answered)
		assert.Equal(t, "approve booking TP123?", in.Info)
		assert.NotEmpty(t, in.CallID)
	})
	t.Run("rejected by policy", func(t *testing.T) {
		res, err := play(t, simulate.InterruptPolicy{"*": {Action: simulate.InterruptReject, Text: "too dear"}})
		require.NoError(t, err)
		assert.False(t, res.End.Completed)
		assert.Equal(t, "not booked: too dear", res.Traces[0].Agent[1].Content)
	})
	t.Run("unanswered, the turn fails", func(t *testing.T) {
		_, err := play(t, nil)
		assert.ErrorIs(t, err, ErrInterrupted)
		assert.ErrorIs(t, err, simulate.ErrAgent)
	})
}
