package scripted_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

func drain(t *testing.T, sr *schema.StreamReader[*schema.Message]) []*schema.Message {
	t.Helper()
	defer sr.Close()
	var chunks []*schema.Message
	for {
		c, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return chunks
		}
		require.NoError(t, err)
		chunks = append(chunks, c)
	}
}

func TestStreamConcatenatesToTheGenerateReply(t *testing.T) {
	reasoned := scripted.Func(func(context.Context, []*schema.Message, *model.Options) (*schema.Message, error) {
		return &schema.Message{ReasoningContent: "think first", Content: "then answer", Name: "bot",
			Extra: map[string]any{"k": "v"}}, nil
	})
	tests := []struct {
		name string
		turn scripted.Turn
	}{
		{"text", scripted.Reply("The answer is 42, as computed.")},
		{"text with trailing and double spaces", scripted.Reply("a  b ")},
		{"empty reply", scripted.Reply("")},
		{"one tool call", scripted.Call("search", `{"q":"go"}`)},
		{"parallel tool calls with text", scripted.Reply("Looking.").Call("search", `{"q":"héllo wörld"}`).Call("fetch", `{"url":"x"}`).Call("noargs", "")},
		{"fixed usage", scripted.Reply("x").WithUsage(10, 2)},
		{"no usage", scripted.Reply("x y").WithoutUsage()},
		{"func reply with reasoning, name and extra", reasoned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := user("question")
			want := generate(t, scripted.New(tt.turn), in)
			chunks := drain(t, mustStream(t, scripted.New(tt.turn), in))

			got, err := schema.ConcatMessages(chunks)
			require.NoError(t, err)
			assert.Equal(t, want, got)

			last := chunks[len(chunks)-1]
			require.NotNil(t, last.ResponseMeta, "the last chunk carries the finish reason")
			assert.Equal(t, want.ResponseMeta.Usage, last.ResponseMeta.Usage)
			for _, c := range chunks[:len(chunks)-1] {
				assert.Nil(t, c.ResponseMeta, "only the last chunk carries usage")
			}
		})
	}
}

func mustStream(t *testing.T, m model.BaseChatModel, in []*schema.Message) *schema.StreamReader[*schema.Message] {
	t.Helper()
	sr, err := m.Stream(ctx, in)
	require.NoError(t, err)
	return sr
}

func TestStreamChunkShape(t *testing.T) {
	t.Run("content comes word by word", func(t *testing.T) {
		chunks := drain(t, mustStream(t, scripted.New(scripted.Reply("one two three")), user("x")))
		var pieces []string
		for _, c := range chunks {
			pieces = append(pieces, c.Content)
		}
		assert.Equal(t, []string{"one ", "two ", "three", ""}, pieces)
	})
	t.Run("a tool call comes as an indexed head and tail", func(t *testing.T) {
		chunks := drain(t, mustStream(t, scripted.New(scripted.Call("a", `{"k":1}`).Call("b", `{}`)), user("x")))
		require.Len(t, chunks, 5)
		head, tail := chunks[0].ToolCalls[0], chunks[1].ToolCalls[0]
		assert.Equal(t, 0, *head.Index)
		assert.Equal(t, "call_1", head.ID)
		assert.Equal(t, "a", head.Function.Name)
		assert.Equal(t, `{"k`, head.Function.Arguments)
		assert.Equal(t, 0, *tail.Index)
		assert.Empty(t, tail.ID)
		assert.Equal(t, `":1}`, tail.Function.Arguments)
		assert.Equal(t, 1, *chunks[2].ToolCalls[0].Index)
		assert.Equal(t, "tool_calls", chunks[4].ResponseMeta.FinishReason)
	})
	t.Run("every chunk carries the assistant role", func(t *testing.T) {
		for _, c := range drain(t, mustStream(t, scripted.New(scripted.Reply("a b").Call("x", "{}")), user("x"))) {
			assert.Equal(t, schema.Assistant, c.Role)
		}
	})
}
