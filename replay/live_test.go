package replay_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/replay"
)

// directAgent runs "deploy billing" on an agent whose deploy tool returns
// directly: the run ends with the tool's result, and no model call is
// given it.
func directAgent(t *testing.T, m model.ToolCallingChatModel, deploy tool.BaseTool, rec *recorder.Recorder, c *replay.Cassette) outcome {
	t.Helper()
	ctx := context.Background()
	var handlers []adk.ChatModelAgentMiddleware
	cfg := config(rec, nil)
	if c != nil {
		cfg.Now = c.Now
		handlers = append(handlers, c.Middleware())
	}
	mw, err := lookoutadk.New(ctx, cfg)
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "deployer", Description: "deploys", Instruction: "deploy what you are asked to",
		Model: m, Handlers: append(handlers, mw),
		ToolsConfig: adk.ToolsConfig{
			ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{deploy}},
			ReturnDirectly:  map[string]bool{"deploy": true},
		},
	})
	require.NoError(t, err)
	return drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}).Query(ctx, "deploy billing"))
}

func TestALiveResultThatEndsTheRunIsComparedWithTheRecording(t *testing.T) {
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	o := directAgent(t, scripted.New(scripted.Call("deploy", `{"service":"billing"}`)), echo("deploy"), rec, nil)
	require.NoError(t, o.err)
	require.NoError(t, rec.Close(context.Background()))

	replayed := func(t *testing.T, deploy tool.BaseTool) *replay.Cassette {
		c, err := replay.FromRecords(sink.Records(), nil)
		require.NoError(t, err)
		tools, err := c.Tools(context.Background(), []tool.BaseTool{deploy}, "deploy")
		require.NoError(t, err)
		require.NoError(t, directAgent(t, c.Model(), tools[0], nil, c).err)
		return c
	}
	t.Run("the same result", func(t *testing.T) {
		c := replayed(t, echo("deploy"))
		assert.NoError(t, c.Err())
		assert.Zero(t, c.Remaining())
	})
	t.Run("a changed result", func(t *testing.T) {
		c := replayed(t, fnTool{name: "deploy", fn: func(context.Context, string) (string, error) { return "deployed billing v2", nil }})
		d := divergence(t, c.Err())
		assert.Equal(t, "deployer", d.Agent)
		assert.Equal(t, 0, d.ModelCall, "the divergence is at a tool call")
		assert.Equal(t, 1, d.ToolCallIndex)
		assert.Contains(t, d.Reason, "no model call was given it")
		assert.Contains(t, lines(d.Diff), "+ deployed billing v2")
		assert.Same(t, d, divergence(t, c.Err()), "Err keeps reporting the same divergence")
	})
	t.Run("a failure where the recording succeeded", func(t *testing.T) {
		c := replayed(t, failing("deploy", "cluster down"))
		d := divergence(t, c.Err())
		assert.Contains(t, lines(d.Diff), "+ Error: cluster down")
	})
}
