package simtarget

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
	"github.com/lookout-go/lookout/simulate"
)

// Summaries produced online, configured on the ADK adapter through its
// recorder: each turn of a simulated conversation is summarized once its
// run ends, while the conversation goes on.
func TestOnlineSummariesOfASimulatedConversation(t *testing.T) {
	ctx := context.Background()
	summarizer, err := summary.New(&summary.Config{Model: scripted.New(scripted.Forever(scripted.Reply(
		`{"summary":"The agent searched flights.","confidence":"high"}`)))})
	require.NoError(t, err)
	var done []string
	online, err := summary.NewOnline(summary.OnlineConfig{Summarizer: summarizer, Next: recorder.NewMemorySink(),
		OnSummary: func(p summary.Prompt) { done = append(done, p.Query) }})
	require.NoError(t, err)
	rec := recorder.New(online, nil)
	mw, err := lookoutadk.New(ctx, &lookout.Config{Recorder: rec})
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
	user := scripted.New(scripted.Reply("Flights to Lisbon?"), scripted.Reply("Book TP123 please."))
	_, err = (&simulate.Runner{UserModel: user}).Run(ctx, &simulate.Scenario{Goal: "book a trip", MaxTurns: 2}, Agent(ctx, mw.Agent(a)))
	require.NoError(t, err)
	// Closing the recorder closes Online, which waits for the summaries.
	require.NoError(t, rec.Close(ctx))

	prompts := online.Prompts()
	require.NotEmpty(t, prompts)
	for _, p := range prompts {
		got, ok := online.Lookup(p.Conversation, p.Turn)
		require.True(t, ok)
		assert.Equal(t, "The agent searched flights.", got.Summary)
	}
	assert.Contains(t, done, "Book TP123 please.", "the second turn was summarized")
	t.Logf("%d prompts summarized online: %q", len(prompts), done)
}
