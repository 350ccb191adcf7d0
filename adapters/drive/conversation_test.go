package drive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// startedOf returns the run_started payloads of records, in order.
func startedOf(records []recorder.Record) []*recorder.RunStarted {
	var out []*recorder.RunStarted
	for _, r := range records {
		if p, ok := r.Payload.(*recorder.RunStarted); ok {
			out = append(out, p)
		}
	}
	return out
}

func recordedLookout(t *testing.T, cfg lookout.Config) (*Lookout, *recorder.MemorySink, *recorder.Recorder) {
	t.Helper()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	t.Cleanup(func() { _ = rec.Close(context.Background()) })
	cfg.Recorder = rec
	l, err := New(&cfg)
	require.NoError(t, err)
	return l, sink, rec
}

func TestRunsSharingASessionAreTurnsOfOneConversation(t *testing.T) {
	l, sink, rec := recordedLookout(t, lookout.Config{})
	store := session.New(nil)
	ctx := session.NewContext(context.Background(), store)
	for range 3 {
		_, r, err := l.Start(ctx, StartOptions{AgentName: "a"})
		require.NoError(t, err)
		r.End(ctx, nil)
	}
	// A run on a session of its own opens another conversation.
	_, r, err := l.Start(context.Background(), StartOptions{})
	require.NoError(t, err)
	r.End(ctx, nil)
	require.NoError(t, rec.Flush(ctx))

	started := startedOf(sink.Records())
	require.Len(t, started, 4)
	id := started[0].ConversationID
	require.NotEmpty(t, id)
	for i, s := range started[:3] {
		assert.Equal(t, id, s.ConversationID)
		assert.Equal(t, i, s.Turn)
	}
	assert.NotEqual(t, id, started[3].ConversationID)
	assert.Zero(t, started[3].Turn)

	c, ok := lookout.ConversationOf(store)
	require.True(t, ok)
	assert.Equal(t, session.Conversation{ID: id, Turn: 2}, c)
}

func TestAConversationOnTheCtxNamesTheTurn(t *testing.T) {
	l, sink, rec := recordedLookout(t, lookout.Config{Agent: lookout.AgentInfo{Name: "planner", Version: "v1.2.3", Model: "m-1"}})
	ctx := session.WithConversation(context.Background(), session.Conversation{ID: "conv-1", Turn: 4})
	_, r, err := l.Start(ctx, StartOptions{})
	require.NoError(t, err)
	r.End(ctx, nil)
	require.NoError(t, rec.Flush(ctx))

	started := startedOf(sink.Records())
	require.Len(t, started, 1)
	assert.Equal(t, "conv-1", started[0].ConversationID)
	assert.Equal(t, 4, started[0].Turn)
	assert.Equal(t, "planner", started[0].AgentName)
	assert.Equal(t, "v1.2.3", started[0].AgentVersion)
	assert.Equal(t, "m-1", started[0].AgentModel)
}
