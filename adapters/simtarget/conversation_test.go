package simtarget

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/messages"
	"github.com/lookout-go/lookout/session"
	"github.com/lookout-go/lookout/simulate"
)

// recordedTravelAgent is an ADK travel agent with Lookout recording into
// a memory sink, answering from agentModel.
func recordedTravelAgent(t *testing.T, agentModel *scripted.Model) (*adk.Runner, *recorder.Recorder, *recorder.MemorySink) {
	t.Helper()
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	t.Cleanup(func() { _ = rec.Close(context.Background()) })
	mw, err := lookoutadk.New(ctx, &lookout.Config{Recorder: rec})
	require.NoError(t, err)
	a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "travel", Description: "plans trips", Model: agentModel,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: travelTools()}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	require.NoError(t, err)
	return adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(a)}), rec, sink
}

// checkConversation exports the one conversation in records both ways
// and checks that every turn's user message is reachable, that each
// document is valid ATIF, and that the chain links its documents.
func checkConversation(t *testing.T, records []recorder.Record, id string, users []string) {
	t.Helper()
	require.Equal(t, []string{id}, atif.Conversations(records))

	whole, err := atif.FromConversation(records, nil)
	require.NoError(t, err)
	assert.Equal(t, id, whole.SessionID)
	data, err := atif.Encode(whole)
	require.NoError(t, err)
	require.Empty(t, atif.Validate(data))
	assert.Equal(t, users, userSteps(whole.Steps, false))
	turns := whole.Extra[atif.ExtraKey].(map[string]any)["turns"].([]any)
	require.Len(t, turns, len(users))
	for i, turn := range turns {
		assert.Equal(t, i, turn.(map[string]any)["turn"])
	}

	chain, err := atif.ConversationChain(records, nil, "conv.trajectory.json")
	require.NoError(t, err)
	require.Len(t, chain, len(users))
	for i, doc := range chain {
		data, err := atif.Encode(doc.Trajectory)
		require.NoError(t, err)
		require.Empty(t, atif.Validate(data), "document %d", i)
		assert.Equal(t, users[:i], userSteps(doc.Trajectory.Steps, true), "document %d copies every earlier turn", i)
		assert.Equal(t, users[i:i+1], userSteps(doc.Trajectory.Steps, false)[i:], "document %d has its own turn", i)
		if i+1 < len(chain) {
			assert.Equal(t, chain[i+1].Name, doc.Trajectory.ContinuedTrajectoryRef)
		} else {
			assert.Empty(t, doc.Trajectory.ContinuedTrajectoryRef)
		}
	}
	assert.Equal(t, "conv.trajectory.cont-1.json", chain[1].Name)

	msgs, err := messages.FromConversation(records, id, nil)
	require.NoError(t, err)
	var said []string
	for _, m := range msgs {
		if m.Role == messages.RoleUser {
			said = append(said, m.Content.Text)
		}
	}
	assert.Equal(t, users, said, "the messages export holds every turn too")
}

// userSteps returns the text of the user steps of steps, all of them, or
// only the copied ones.
func userSteps(steps []atif.Step, copied bool) []string {
	out := []string{}
	for _, s := range steps {
		if s.Source == atif.SourceUser && (!copied || s.IsCopiedContext) {
			out = append(out, s.Message.PlainText())
		}
	}
	return out
}

// A simulated conversation of four turns is recorded as four runs of one
// conversation, numbered by their turns, and exports as one.
func TestASimulatedConversationExportsAsOne(t *testing.T) {
	users := []string{"Flights to Lisbon?", "Any earlier?", "Book TP123 please.", "Thanks!"}
	agentModel := scripted.New(
		scripted.Call("search_flights", `{"to":"LIS"}`), scripted.Reply("TP123 leaves at 09:00."),
		scripted.Reply("No, TP123 is the first."),
		scripted.Call("book", `{"flight":"TP123"}`), scripted.Reply("Booked: ABC."),
		scripted.Reply("Have a good trip."),
	)
	runner, rec, sink := recordedTravelAgent(t, agentModel)
	var turns []scripted.Turn
	for _, u := range users {
		turns = append(turns, scripted.Reply(u))
	}
	// No session on the ctx: each turn is a run on a session of its own,
	// and the simulator names their conversation.
	res, err := (&simulate.Runner{UserModel: scripted.New(turns...)}).Run(context.Background(),
		&simulate.Scenario{Goal: "book a trip", MaxTurns: 4, ConversationID: "sim-1"}, Runner(runner))
	require.NoError(t, err)
	require.Len(t, res.Traces, 4)
	require.NoError(t, rec.Flush(context.Background()))
	checkConversation(t, sink.Records(), "sim-1", users)
}

// Three runs of an ADK agent on one session are three turns of one
// conversation, and export as one.
func TestADKRunsSharingASessionExportAsOneConversation(t *testing.T) {
	users := []string{"Flights to Lisbon?", "Book TP123 please.", "Thanks!"}
	agentModel := scripted.New(
		scripted.Call("search_flights", `{"to":"LIS"}`), scripted.Reply("TP123 leaves at 09:00."),
		scripted.Call("book", `{"flight":"TP123"}`), scripted.Reply("Booked: ABC."),
		scripted.Reply("Have a good trip."),
	)
	runner, rec, sink := recordedTravelAgent(t, agentModel)
	store := session.New(nil)
	ctx := session.NewContext(context.Background(), store)
	var history []*schema.Message
	for _, u := range users {
		history = append(history, schema.UserMessage(u))
		out, err := Runner(runner).Respond(ctx, history)
		require.NoError(t, err)
		history = append(history, out...)
	}
	conv, ok := lookout.ConversationOf(store)
	require.True(t, ok)
	require.Equal(t, 2, conv.Turn)
	require.NoError(t, rec.Flush(context.Background()))
	checkConversation(t, sink.Records(), conv.ID, users)
}
