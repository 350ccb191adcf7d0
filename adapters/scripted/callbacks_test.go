package scripted_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	ucb "github.com/cloudwego/eino/utils/callbacks"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

// modelEvents records the model callbacks a handler saw.
type modelEvents struct {
	mu      sync.Mutex
	runType string
	starts  []*model.CallbackInput
	ends    []*model.CallbackOutput
	streams [][]*model.CallbackOutput
	errs    []error
}

func (e *modelEvents) handler() callbacks.Handler {
	return ucb.NewHandlerHelper().ChatModel(&ucb.ModelCallbackHandler{
		OnStart: func(ctx context.Context, info *callbacks.RunInfo, in *model.CallbackInput) context.Context {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.runType = info.Type
			e.starts = append(e.starts, in)
			return ctx
		},
		OnEnd: func(ctx context.Context, _ *callbacks.RunInfo, out *model.CallbackOutput) context.Context {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.ends = append(e.ends, out)
			return ctx
		},
		OnEndWithStreamOutput: func(ctx context.Context, _ *callbacks.RunInfo, sr *schema.StreamReader[*model.CallbackOutput]) context.Context {
			defer sr.Close()
			var outs []*model.CallbackOutput
			for {
				o, err := sr.Recv()
				if err != nil {
					break
				}
				outs = append(outs, o)
			}
			e.mu.Lock()
			defer e.mu.Unlock()
			e.streams = append(e.streams, outs)
			return ctx
		},
		OnError: func(ctx context.Context, _ *callbacks.RunInfo, err error) context.Context {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.errs = append(e.errs, err)
			return ctx
		},
	}).Handler()
}

func withHandler(e *modelEvents) context.Context {
	return callbacks.InitCallbacks(ctx, nil, e.handler())
}

func TestCallbacksAreOffByDefault(t *testing.T) {
	m := scripted.New(scripted.Reply("a"))
	assert.False(t, components.IsCallbacksEnabled(m))

	events := &modelEvents{}
	_, err := m.Generate(withHandler(events), user("x"))
	require.NoError(t, err)
	assert.Empty(t, events.starts)
	assert.Empty(t, events.ends)
}

func TestWithCallbacksFiresThemWithTokenUsage(t *testing.T) {
	tools := []*schema.ToolInfo{{Name: "search"}}
	t.Run("Generate fires OnStart and OnEnd", func(t *testing.T) {
		m := scripted.New(scripted.Reply("answer").WithUsage(100, 5)).WithCallbacks(true)
		assert.True(t, components.IsCallbacksEnabled(m))
		events := &modelEvents{}
		msg, err := m.Generate(withHandler(events), user("x"), model.WithTools(tools), model.WithModel("gpt-test"))
		require.NoError(t, err)

		require.Len(t, events.starts, 1)
		assert.Equal(t, "Scripted", events.runType)
		assert.Equal(t, "x", events.starts[0].Messages[0].Content)
		assert.Equal(t, tools, events.starts[0].Tools)
		assert.Equal(t, "gpt-test", events.starts[0].Config.Model)
		require.Len(t, events.ends, 1)
		assert.Same(t, msg, events.ends[0].Message)
		assert.Equal(t, &model.TokenUsage{PromptTokens: 100, CompletionTokens: 5, TotalTokens: 105}, events.ends[0].TokenUsage)
	})
	t.Run("a turn without usage gives nil TokenUsage", func(t *testing.T) {
		m := scripted.New(scripted.Reply("answer").WithoutUsage()).WithCallbacks(true)
		events := &modelEvents{}
		_, err := m.Generate(withHandler(events), user("x"))
		require.NoError(t, err)
		require.Len(t, events.ends, 1)
		assert.Nil(t, events.ends[0].TokenUsage)
	})
	t.Run("Stream gives TokenUsage on the last chunk only", func(t *testing.T) {
		m := scripted.New(scripted.Reply("one two three").WithUsage(7, 3)).WithCallbacks(true)
		events := &modelEvents{}
		sr, err := m.Stream(withHandler(events), user("x"))
		require.NoError(t, err)
		chunks := drain(t, sr)

		require.Len(t, events.streams, 1)
		outs := events.streams[0]
		require.Len(t, outs, len(chunks))
		for _, o := range outs[:len(outs)-1] {
			assert.Nil(t, o.TokenUsage)
		}
		assert.Equal(t, &model.TokenUsage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10}, outs[len(outs)-1].TokenUsage)
		got, err := schema.ConcatMessages(chunks)
		require.NoError(t, err)
		assert.Equal(t, "one two three", got.Content)
	})
	t.Run("a failing turn fires OnError", func(t *testing.T) {
		boom := errors.New("boom")
		m := scripted.New(scripted.Fail(boom)).WithCallbacks(true)
		events := &modelEvents{}
		_, err := m.Generate(withHandler(events), user("x"))
		require.ErrorIs(t, err, boom)
		assert.Equal(t, []error{boom}, events.errs)
		assert.Empty(t, events.ends)

		_, err = m.Stream(withHandler(events), user("x"))
		require.ErrorIs(t, err, scripted.ErrScriptExhausted)
		assert.Len(t, events.errs, 2)
	})
	t.Run("without handlers in the context nothing breaks", func(t *testing.T) {
		m := scripted.New(scripted.Reply("a b")).WithCallbacks(true)
		sr, err := m.Stream(ctx, user("x"))
		require.NoError(t, err)
		got, err := schema.ConcatMessageStream(sr)
		require.NoError(t, err)
		assert.Equal(t, "a b", got.Content)
	})
	t.Run("WithTools keeps the setting", func(t *testing.T) {
		bound, err := scripted.New().WithCallbacks(true).WithTools(tools)
		require.NoError(t, err)
		assert.True(t, components.IsCallbacksEnabled(bound))
	})
}
