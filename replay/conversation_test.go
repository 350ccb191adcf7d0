package replay_test

import (
	"context"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/replay"
)

// converse runs two turns of a conversation, each a run of its own that
// is given the history, and returns the answers.
func converse(t *testing.T, chat model.ToolCallingChatModel, search tool.BaseTool, rec *recorder.Recorder, now func() time.Time, second string) ([]string, error) {
	t.Helper()
	ctx := context.Background()
	w := newWorld(t, rec, now, every(chat), unwrapped)
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: w.mw.Agent(w.agent(t, "assistant", instruction, search))})
	var history []*schema.Message
	var answers []string
	for _, q := range []string{"find the billing service", second} {
		history = append(history, schema.UserMessage(q))
		iter := runner.Run(ctx, history)
		for ev, ok := iter.Next(); ok; ev, ok = iter.Next() {
			if ev.Err != nil {
				return answers, ev.Err
			}
			if msg, err := ev.Output.MessageOutput.GetMessage(); err == nil && msg != nil {
				history = append(history, msg)
				if msg.Role == schema.Assistant && len(msg.ToolCalls) == 0 {
					answers = append(answers, msg.Content)
				}
			}
		}
	}
	return answers, nil
}

// A conversation of several runs replays: each run takes its own
// recorded run, and a later run's input, which holds the turns before it,
// is checked on its own messages.
func TestAConversationReplays(t *testing.T) {
	m := scripted.New(
		scripted.Call("search", `{"q":"billing"}`),
		scripted.Reply("It is in billing/."),
		scripted.Reply("It has two files."),
	)
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	want, err := converse(t, m, echo("search"), rec, nil, "how big is it?")
	require.NoError(t, err)
	require.NoError(t, rec.Close(context.Background()))
	require.Equal(t, []string{"It is in billing/.", "It has two files."}, want)

	c, err := replay.FromRecords(sink.Records(), nil)
	require.NoError(t, err)
	got, err := converse(t, c.Model(), c.Tool(must("search", t)), nil, c.Now, "how big is it?")
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Zero(t, c.Remaining())

	t.Run("and a changed question in a later turn is reported", func(t *testing.T) {
		c, err := replay.FromRecords(sink.Records(), nil)
		require.NoError(t, err)
		_, err = converse(t, c.Model(), c.Tool(must("search", t)), nil, c.Now, "how old is it?")
		d := divergence(t, err)
		assert.Contains(t, d.Reason, "(user) differs")
		assert.Contains(t, lines(d.Diff), "- how big is it?")
		assert.Contains(t, lines(d.Diff), "+ how old is it?")
	})
}

// streamed runs the deployer with a streaming runner.
func streamed(t *testing.T, chat model.ToolCallingChatModel, tools func([]tool.BaseTool) []tool.BaseTool, rec *recorder.Recorder, now func() time.Time) outcome {
	t.Helper()
	ctx := context.Background()
	w := newWorld(t, rec, now, every(chat), tools)
	agent := w.agent(t, "deployer", instruction, echo("search"), failing("deploy", "cluster down"))
	return drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: w.mw.Agent(agent), EnableStreaming: true}).Query(ctx, "deploy billing"))
}

func TestAStreamingADKRunReplays(t *testing.T) {
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	want := streamed(t, deployerModels()["deployer"], unwrapped, rec, nil)
	require.NoError(t, want.err)
	require.NoError(t, rec.Close(context.Background()))

	c, err := replay.FromRecords(sink.Records(), nil)
	require.NoError(t, err)
	got := streamed(t, c.Model(), func(ts []tool.BaseTool) []tool.BaseTool {
		out, err := c.Tools(context.Background(), ts)
		require.NoError(t, err)
		return out
	}, nil, c.Now)
	require.NoError(t, got.err)
	require.NoError(t, c.Err())
	assert.Equal(t, want.final, got.final)
	assert.Zero(t, c.Remaining())
}
