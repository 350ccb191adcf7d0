package simulate

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingBook books through a tool that fails the way Lookout's middleware
// reports it: a tool message starting with "Error: ".
func failingBook() TargetFunc {
	return func(context.Context, []*schema.Message) ([]*schema.Message, error) {
		return []*schema.Message{
			schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Function: schema.FunctionCall{Name: "book", Arguments: `{}`}}}),
			schema.ToolMessage("Error: no seats left", "c1", schema.WithToolName("book")),
			schema.AssistantMessage("Booked!", nil),
		}, nil
	}
}

func TestFailedToolCall(t *testing.T) {
	ctx := context.Background()

	t.Run("does not meet ToolCalled", func(t *testing.T) {
		sc := &Scenario{Goal: "g", Goals: []Goal{ToolCalled("book")}, MaxTurns: 2}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, sc, failingBook())
		require.NoError(t, err)
		assert.Equal(t, StopMaxTurns, res.End.Reason)
		assert.False(t, res.End.Completed)
		require.Len(t, res.ToolCalls, 2)
		assert.True(t, res.ToolCalls[0].Failed)
		assert.True(t, res.ToolCalls[0].Answered)
	})

	t.Run("does not meet ToolCalledWith", func(t *testing.T) {
		sc := &Scenario{Goal: "g", Goals: []Goal{ToolCalledWith("book", func(ToolCall) bool { return true })}, MaxTurns: 1}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, sc, failingBook())
		require.NoError(t, err)
		assert.False(t, res.End.Goals[0].Met)
	})

	t.Run("meets ToolTried, which accepts failures", func(t *testing.T) {
		sc := &Scenario{Goal: "g", Goals: []Goal{ToolTried("book", nil)}, MaxTurns: 3}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, sc, failingBook())
		require.NoError(t, err)
		assert.Equal(t, StopGoalReached, res.End.Reason)
		assert.Equal(t, "tried book", res.End.Goals[0].Name)
	})

	t.Run("a successful result is not failed", func(t *testing.T) {
		sc := &Scenario{Goal: "g", Goals: []Goal{ToolCalled("book")}}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, sc, toolTarget(func(int) string { return "book" }))
		require.NoError(t, err)
		assert.True(t, res.End.Completed)
		assert.False(t, res.ToolCalls[0].Failed)
	})
}
