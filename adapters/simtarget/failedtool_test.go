package simtarget

import (
	"context"
	"errors"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/simulate"
)

// With Lookout's ADK middleware on the agent and tool errors as messages,
// a tool that fails becomes the tool message "Error: …" and the agent may
// still claim success: the booking goal is not met, and the recorder and
// the simulation agree that the call failed.
func TestAFailedToolCallThroughLookoutDoesNotMeetTheGoal(t *testing.T) {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	t.Cleanup(func() { _ = rec.Close(context.Background()) })
	mw, err := lookoutadk.New(ctx, &lookout.Config{Recorder: rec, ToolErrors: lookout.ToolErrorsAsMessages})
	require.NoError(t, err)
	book, err := utils.InferTool("book", "books a flight", func(context.Context, bookArgs) (string, error) {
		return "", errors.New("no seats left")
	})
	require.NoError(t, err)
	agentModel := scripted.New(scripted.Call("book", `{"flight":"TP123"}`), scripted.Reply("Booked!"))
	a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "travel", Description: "plans trips", Model: agentModel,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{book}}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	require.NoError(t, err)
	user := scripted.New(scripted.Forever(scripted.Reply("Book TP123 please.")))
	sc := &simulate.Scenario{Goal: "book TP123", MaxTurns: 1, Goals: []simulate.Goal{simulate.ToolCalled("book")}}

	res, err := (&simulate.Runner{UserModel: user}).Run(ctx, sc, Agent(ctx, mw.Agent(a)))

	require.NoError(t, err)
	assert.Equal(t, simulate.StopMaxTurns, res.End.Reason)
	assert.False(t, res.End.Completed, "the agent said it booked; the tool failed")
	require.Len(t, res.ToolCalls, 1)
	assert.True(t, res.ToolCalls[0].Failed)
	assert.Regexp(t, `^Error: .*no seats left`, res.ToolCalls[0].Result)
	assert.Equal(t, "Booked!", res.Traces[0].Agent[len(res.Traces[0].Agent)-1].Content)

	require.NoError(t, rec.Flush(ctx))
	var toolErrors int
	for _, r := range sink.Records() {
		if e, ok := r.Payload.(*recorder.ToolEnded); ok && e.IsError {
			toolErrors++
		}
	}
	assert.Equal(t, 1, toolErrors, "the recorder counts the same failure")
}
