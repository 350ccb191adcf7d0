package replay_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/replay"
)

// runReact runs a react agent with Lookout once, streaming or not, and
// returns its answer.
// A cassette's ToolMiddleware, given as first, goes before Lookout's.
func runReact(t *testing.T, chat model.ToolCallingChatModel, tools []tool.BaseTool, rec *recorder.Recorder, now func() time.Time, stream bool, first ...compose.ToolMiddleware) (string, error) {
	t.Helper()
	ctx := context.Background()
	l, err := lookoutreact.New(ctx, config(rec, now))
	require.NoError(t, err)
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: l.WrapModel(chat),
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools, ToolCallMiddlewares: append(first, l.ToolMiddleware())},
		MessageModifier: func(_ context.Context, in []*schema.Message) []*schema.Message {
			return append([]*schema.Message{schema.SystemMessage(instruction)}, in...)
		},
	})
	require.NoError(t, err)
	input := []*schema.Message{schema.UserMessage("deploy billing")}
	if !stream {
		out, err := l.Agent(a).Generate(ctx, input)
		if err != nil {
			return "", err
		}
		return out.Content, nil
	}
	sr, err := l.Agent(a).Stream(ctx, input)
	if err != nil {
		return "", err
	}
	defer sr.Close()
	var chunks []*schema.Message
	for {
		c, err := sr.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		chunks = append(chunks, c)
	}
	out, err := schema.ConcatMessages(chunks)
	if err != nil {
		return "", err
	}
	return out.Content, nil
}

func TestAReactAgentReplays(t *testing.T) {
	for _, stream := range []bool{false, true} {
		sink := recorder.NewMemorySink()
		rec := recorder.New(sink, nil)
		m := deployerModels()["deployer"]
		want, err := runReact(t, m, []tool.BaseTool{echo("search"), failing("deploy", "cluster down")}, rec, nil, stream)
		require.NoError(t, err)
		require.NoError(t, rec.Close(context.Background()))

		c, err := replay.FromRecords(sink.Records(), nil)
		require.NoError(t, err)
		tools, err := c.Tools(context.Background(), []tool.BaseTool{must("search", t), must("deploy", t)})
		require.NoError(t, err)
		again := recorder.NewMemorySink()
		rec = recorder.New(again, nil)
		got, err := runReact(t, c.Model(), tools, rec, c.Now, stream, c.ToolMiddleware())
		require.NoError(t, err, "stream=%v", stream)
		require.NoError(t, rec.Close(context.Background()))
		assert.Equal(t, want, got, "stream=%v", stream)
		assert.Zero(t, c.Remaining())
		assert.Equal(t, indices(sink.Records()), indices(again.Records()), "the parallel calls took their recorded indices")

		t.Run("and reports a changed tool result", func(t *testing.T) {
			c, err := replay.FromRecords(sink.Records(), nil)
			require.NoError(t, err)
			tools, err := c.Tools(context.Background(), []tool.BaseTool{must("search", t), failing("deploy", "quota exceeded")}, "deploy")
			require.NoError(t, err)
			_, err = runReact(t, c.Model(), tools, nil, c.Now, stream)
			d := divergence(t, err)
			assert.Equal(t, "ReActAgent", d.Agent)
			assert.Equal(t, 3, d.ModelCall)
			assert.Contains(t, lines(d.Diff), "+ Error: quota exceeded")
		})
	}
}
