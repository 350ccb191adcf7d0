package scripted_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

var ctx = context.Background()

func user(s string) []*schema.Message { return []*schema.Message{schema.UserMessage(s)} }

func generate(t *testing.T, m model.BaseChatModel, in []*schema.Message, opts ...model.Option) *schema.Message {
	t.Helper()
	msg, err := m.Generate(ctx, in, opts...)
	require.NoError(t, err)
	return msg
}

func TestModelPlaysTurnsInOrder(t *testing.T) {
	m := scripted.New(scripted.Reply("one"), scripted.Reply("two"), scripted.Call("search", `{}`))

	assert.Equal(t, "one", generate(t, m, user("a")).Content)
	assert.Equal(t, "two", generate(t, m, user("b")).Content)
	third := generate(t, m, user("c"))
	assert.Equal(t, schema.Assistant, third.Role)
	require.Len(t, third.ToolCalls, 1)
	assert.Equal(t, "search", third.ToolCalls[0].Function.Name)
	assert.Equal(t, 3, m.Calls())
	assert.Equal(t, 0, m.Remaining())
}

func TestToolCallIDs(t *testing.T) {
	t.Run("parallel calls get sequential IDs unique across the script", func(t *testing.T) {
		m := scripted.New(
			scripted.Call("a", `{"n":1}`).Call("b", `{"n":2}`),
			scripted.Calls(scripted.ToolCall{Name: "c", Arguments: `{}`}, scripted.ToolCall{Name: "d", Arguments: `{}`}),
		)
		first, second := generate(t, m, user("x")), generate(t, m, user("y"))
		assert.Equal(t, []string{"call_1", "call_2"}, ids(first))
		assert.Equal(t, []string{"call_3", "call_4"}, ids(second))
		assert.Equal(t, `{"n":2}`, first.ToolCalls[1].Function.Arguments)
	})
	t.Run("explicit IDs are kept and do not use up generated ones", func(t *testing.T) {
		m := scripted.New(scripted.Calls(
			scripted.ToolCall{ID: "mine", Name: "a"},
			scripted.ToolCall{Name: "b"},
		))
		assert.Equal(t, []string{"mine", "call_1"}, ids(generate(t, m, user("x"))))
	})
	t.Run("each call carries its position as Index and type function", func(t *testing.T) {
		m := scripted.New(scripted.Call("a", `{}`).Call("b", `{}`))
		msg := generate(t, m, user("x"))
		for i, c := range msg.ToolCalls {
			require.NotNil(t, c.Index)
			assert.Equal(t, i, *c.Index)
			assert.Equal(t, "function", c.Type)
		}
	})
	t.Run("a repeated turn gets fresh IDs each time", func(t *testing.T) {
		m := scripted.New(scripted.Repeat(3, scripted.Call("a", `{}`)))
		var got []string
		for range 3 {
			got = append(got, ids(generate(t, m, user("x")))...)
		}
		assert.Equal(t, []string{"call_1", "call_2", "call_3"}, got)
	})
	t.Run("Turn.Call does not change the turn it was called on", func(t *testing.T) {
		base := scripted.Call("a", `{}`)
		_ = base.Call("b", `{}`)
		_ = base.Call("c", `{}`)
		m := scripted.New(base)
		assert.Len(t, generate(t, m, user("x")).ToolCalls, 1)
	})
}

func ids(msg *schema.Message) []string {
	var out []string
	for _, c := range msg.ToolCalls {
		out = append(out, c.ID)
	}
	return out
}

func TestFinishReason(t *testing.T) {
	m := scripted.New(scripted.Reply("hi"), scripted.Reply("let me look").Call("search", `{}`))
	assert.Equal(t, "stop", generate(t, m, user("x")).ResponseMeta.FinishReason)
	assert.Equal(t, "tool_calls", generate(t, m, user("x")).ResponseMeta.FinishReason)
}

func TestUsage(t *testing.T) {
	in := []*schema.Message{schema.SystemMessage("be brief"), schema.UserMessage("what is 2+2?")}
	t.Run("default usage follows the documented rule", func(t *testing.T) {
		m := scripted.New(scripted.Reply("four"), scripted.Call("calc", `{"expr":"2+2"}`))
		// "be brief" is 8 bytes: 4+2; "what is 2+2?" is 12 bytes: 4+3.
		assert.Equal(t, &schema.TokenUsage{PromptTokens: 13, CompletionTokens: 1, TotalTokens: 14},
			generate(t, m, in).ResponseMeta.Usage)
		// "calc" + `{"expr":"2+2"}` is 4+14 = 18 bytes: 5 tokens.
		assert.Equal(t, &schema.TokenUsage{PromptTokens: 13, CompletionTokens: 5, TotalTokens: 18},
			generate(t, m, in).ResponseMeta.Usage)
	})
	t.Run("WithUsage overrides the default", func(t *testing.T) {
		m := scripted.New(scripted.Reply("four").WithUsage(1000, 7))
		assert.Equal(t, &schema.TokenUsage{PromptTokens: 1000, CompletionTokens: 7, TotalTokens: 1007},
			generate(t, m, in).ResponseMeta.Usage)
	})
	t.Run("WithoutUsage reports no usage, unlike zero usage", func(t *testing.T) {
		m := scripted.New(scripted.Reply("four").WithoutUsage(), scripted.Reply("four").WithUsage(0, 0))
		absent := generate(t, m, in)
		require.NotNil(t, absent.ResponseMeta)
		assert.Nil(t, absent.ResponseMeta.Usage)
		assert.Equal(t, &schema.TokenUsage{}, generate(t, m, in).ResponseMeta.Usage)
	})
	t.Run("counting helpers skip nil messages", func(t *testing.T) {
		assert.Equal(t, 4, scripted.PromptTokens([]*schema.Message{nil, schema.UserMessage("")}))
		assert.Equal(t, 0, scripted.CompletionTokens(nil))
	})
}

func TestExhaustedScript(t *testing.T) {
	m := scripted.New(scripted.Reply("only"))
	generate(t, m, user("x"))

	_, err := m.Generate(ctx, user("y"))
	require.ErrorIs(t, err, scripted.ErrScriptExhausted)
	var ex *scripted.ExhaustedError
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, 2, ex.Call)
	assert.Equal(t, 1, ex.Played)
	assert.Contains(t, err.Error(), "call 2")

	_, err = m.Stream(ctx, user("z"))
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, 3, ex.Call)
}

func TestZeroModelIsAnEmptyScript(t *testing.T) {
	var m scripted.Model
	_, err := m.Generate(ctx, user("x"))
	require.ErrorIs(t, err, scripted.ErrScriptExhausted)
	assert.Equal(t, 1, m.Calls())
	assert.Len(t, m.Requests(), 1)
	assert.Equal(t, 0, m.Remaining())
}

func TestFail(t *testing.T) {
	boom := errors.New("rate limited")
	m := scripted.New(scripted.Fail(boom), scripted.Reply("ok"))

	_, err := m.Generate(ctx, user("x"))
	assert.Same(t, boom, err)
	assert.Equal(t, "ok", generate(t, m, user("x")).Content)

	t.Run("Stream returns the error before any chunk", func(t *testing.T) {
		m := scripted.New(scripted.Fail(boom))
		sr, err := m.Stream(ctx, user("x"))
		assert.Nil(t, sr)
		assert.Same(t, boom, err)
	})
	t.Run("a nil error is an invalid turn", func(t *testing.T) {
		m := scripted.New(scripted.Fail(nil))
		_, err := m.Generate(ctx, user("x"))
		assert.ErrorIs(t, err, scripted.ErrInvalidTurn)
	})
}

func TestFunc(t *testing.T) {
	echo := scripted.Func(func(_ context.Context, in []*schema.Message, o *model.Options) (*schema.Message, error) {
		names := make([]string, 0, len(o.Tools))
		for _, ti := range o.Tools {
			names = append(names, ti.Name)
		}
		return &schema.Message{
			Content:   fmt.Sprintf("you said %q; tools %v", in[len(in)-1].Content, names),
			ToolCalls: []schema.ToolCall{{Function: schema.FunctionCall{Name: "log", Arguments: `{}`}}},
		}, nil
	})

	t.Run("the reply is computed from the input and options and completed", func(t *testing.T) {
		m := scripted.New(scripted.Call("a", `{}`), echo)
		generate(t, m, user("first"))
		msg := generate(t, m, user("hello"), model.WithTools([]*schema.ToolInfo{{Name: "log"}}))
		assert.Equal(t, `you said "hello"; tools [log]`, msg.Content)
		assert.Equal(t, schema.Assistant, msg.Role)
		assert.Equal(t, []string{"call_2"}, ids(msg))
		require.NotNil(t, msg.ToolCalls[0].Index)
		assert.Equal(t, "function", msg.ToolCalls[0].Type)
		assert.Equal(t, "tool_calls", msg.ResponseMeta.FinishReason)
		assert.Equal(t, scripted.CompletionTokens(msg), msg.ResponseMeta.Usage.CompletionTokens)
	})
	t.Run("its own ResponseMeta is kept unless the turn overrides usage", func(t *testing.T) {
		own := scripted.Func(func(context.Context, []*schema.Message, *model.Options) (*schema.Message, error) {
			return &schema.Message{Content: "cut", ResponseMeta: &schema.ResponseMeta{
				FinishReason: "length", Usage: &schema.TokenUsage{PromptTokens: 5, TotalTokens: 5},
			}}, nil
		})
		m := scripted.New(own, own.WithoutUsage(), own.WithUsage(1, 2))
		first := generate(t, m, user("x"))
		assert.Equal(t, "length", first.ResponseMeta.FinishReason)
		assert.Equal(t, 5, first.ResponseMeta.Usage.TotalTokens)
		assert.Nil(t, generate(t, m, user("x")).ResponseMeta.Usage)
		assert.Equal(t, 3, generate(t, m, user("x")).ResponseMeta.Usage.TotalTokens)
	})
	t.Run("its error is returned unchanged", func(t *testing.T) {
		boom := errors.New("boom")
		m := scripted.New(scripted.Func(func(context.Context, []*schema.Message, *model.Options) (*schema.Message, error) {
			return nil, boom
		}))
		_, err := m.Generate(ctx, user("x"))
		assert.Same(t, boom, err)
	})
	t.Run("a nil function or a nil reply is an invalid turn", func(t *testing.T) {
		m := scripted.New(scripted.Func(nil), scripted.Func(func(context.Context, []*schema.Message, *model.Options) (*schema.Message, error) {
			return nil, nil
		}))
		_, err := m.Generate(ctx, user("x"))
		assert.ErrorIs(t, err, scripted.ErrInvalidTurn)
		_, err = m.Generate(ctx, user("x"))
		assert.ErrorIs(t, err, scripted.ErrInvalidTurn)
	})
}

func TestRepeatAndForever(t *testing.T) {
	t.Run("Repeat plays a turn n times, then moves on", func(t *testing.T) {
		m := scripted.New(scripted.Repeat(3, scripted.Reply("again")), scripted.Reply("done"))
		assert.Equal(t, 4, m.Remaining())
		for range 3 {
			assert.Equal(t, "again", generate(t, m, user("x")).Content)
		}
		assert.Equal(t, 1, m.Remaining())
		assert.Equal(t, "done", generate(t, m, user("x")).Content)
	})
	t.Run("Repeat with n <= 0 skips the turn", func(t *testing.T) {
		m := scripted.New(scripted.Repeat(0, scripted.Reply("never")), scripted.Repeat(-2, scripted.Reply("never")), scripted.Reply("now"))
		assert.Equal(t, "now", generate(t, m, user("x")).Content)
	})
	t.Run("Forever never exhausts", func(t *testing.T) {
		m := scripted.New(scripted.Reply("first"), scripted.Forever(scripted.Reply("ok")))
		generate(t, m, user("x"))
		for range 100 {
			assert.Equal(t, "ok", generate(t, m, user("x")).Content)
		}
		assert.Equal(t, -1, m.Remaining())
	})
	t.Run("Repeat replaces Forever", func(t *testing.T) {
		m := scripted.New(scripted.Repeat(1, scripted.Forever(scripted.Reply("once"))))
		generate(t, m, user("x"))
		_, err := m.Generate(ctx, user("x"))
		assert.ErrorIs(t, err, scripted.ErrScriptExhausted)
	})
}

func TestWithTools(t *testing.T) {
	search := &schema.ToolInfo{Name: "search", Desc: "web search"}
	fetch := &schema.ToolInfo{Name: "fetch"}
	m := scripted.New(scripted.Reply("1"), scripted.Reply("2"), scripted.Reply("3"), scripted.Reply("4"))
	bound, err := m.WithTools([]*schema.ToolInfo{search})
	require.NoError(t, err)

	assert.Equal(t, "1", generate(t, bound, user("x")).Content)
	assert.Equal(t, "2", generate(t, m, user("x")).Content, "the copy shares the cursor")
	generate(t, bound, user("x"), model.WithTools([]*schema.ToolInfo{fetch}))
	generate(t, bound, user("x"), model.WithTools(nil))

	reqs := m.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, []string{"search"}, reqs[0].ToolNames(), "bound tools are offered")
	assert.Empty(t, reqs[1].ToolNames(), "the original stays unbound")
	assert.Equal(t, []string{"fetch"}, reqs[2].ToolNames(), "call options take precedence")
	assert.True(t, reqs[3].ToolsWithheld(), "an empty WithTools withholds bound tools")
}

func TestCapture(t *testing.T) {
	t.Run("requests are copies taken at call time", func(t *testing.T) {
		m := scripted.New(scripted.Reply("a"))
		in := []*schema.Message{
			schema.SystemMessage("sys"),
			schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Function: schema.FunctionCall{Name: "x"}}}),
		}
		generate(t, m, in, model.WithTools([]*schema.ToolInfo{{Name: "x"}}))
		in[0].Content = "changed"
		in[1].ToolCalls[0].ID = "changed"
		in[0] = schema.UserMessage("replaced")

		r, ok := m.Request(0)
		require.True(t, ok)
		assert.Equal(t, "sys", r.Messages[0].Content)
		assert.Equal(t, "c1", r.Messages[1].ToolCalls[0].ID)
		assert.False(t, r.Stream)
	})
	t.Run("Request reports missing indices", func(t *testing.T) {
		m := scripted.New()
		_, ok := m.Request(0)
		assert.False(t, ok)
		_, ok = m.Request(-1)
		assert.False(t, ok)
	})
	t.Run("Stream calls and tool choice are recorded", func(t *testing.T) {
		m := scripted.New(scripted.Reply("a"))
		sr, err := m.Stream(ctx, user("x"),
			model.WithTools([]*schema.ToolInfo{{Name: "x"}, {Name: "y"}}),
			model.WithToolChoice(schema.ToolChoiceForced, "y"))
		require.NoError(t, err)
		sr.Close()
		r, _ := m.Request(0)
		assert.True(t, r.Stream)
		assert.Equal(t, schema.ToolChoiceForced, *r.ToolChoice)
		assert.Equal(t, []string{"y"}, r.AllowedToolNames)
	})
	t.Run("WithCapture(false) counts calls without recording them", func(t *testing.T) {
		m := scripted.New(scripted.Reply("a"), scripted.Reply("b"))
		quiet := m.WithCapture(false)
		generate(t, quiet, user("x"))
		generate(t, m, user("y"))
		assert.Equal(t, 2, m.Calls())
		require.Len(t, m.Requests(), 1)
		assert.True(t, m.Requests()[0].Contains("y"))
	})
}

func TestRequestQueries(t *testing.T) {
	forbidden := schema.ToolChoiceForbidden
	allowed := schema.ToolChoiceAllowed
	r := scripted.Request{
		Messages: []*schema.Message{
			schema.UserMessage("<reminder>budget</reminder> go"),
			nil,
			schema.UserMessage("<reminder>stall</reminder>"),
		},
		Tools: []*schema.ToolInfo{{Name: "a"}, nil, {Name: "b"}},
	}
	assert.True(t, r.Contains("stall"))
	assert.False(t, r.Contains("absent"))
	assert.Equal(t, 2, r.CountContaining("<reminder>"))
	assert.Equal(t, []string{"a", "b"}, r.ToolNames())
	assert.Equal(t, "<reminder>stall</reminder>", r.Last().Content)
	assert.Nil(t, scripted.Request{}.Last())

	tests := []struct {
		name     string
		req      scripted.Request
		withheld bool
	}{
		{"no tools offered means withheld", scripted.Request{}, true},
		{"tools offered means not withheld", scripted.Request{Tools: r.Tools}, false},
		{"tools allowed means not withheld", scripted.Request{Tools: r.Tools, ToolChoice: &allowed}, false},
		{"tool choice forbidden means withheld", scripted.Request{Tools: r.Tools, ToolChoice: &forbidden}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.withheld, tt.req.ToolsWithheld())
		})
	}
}

type recordingTB struct {
	errors []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestAssertRequest(t *testing.T) {
	m := scripted.New(scripted.Reply("a"))
	generate(t, m, user("hello"))

	t.Run("passes when the check passes", func(t *testing.T) {
		tb := &recordingTB{}
		ok := scripted.AssertRequest(tb, m, 0, func(r scripted.Request) error {
			if !r.Contains("hello") {
				return errors.New("no hello")
			}
			return nil
		})
		assert.True(t, ok)
		assert.Empty(t, tb.errors)
	})
	t.Run("reports the check's error", func(t *testing.T) {
		tb := &recordingTB{}
		ok := scripted.AssertRequest(tb, m, 0, func(scripted.Request) error { return errors.New("want tools") })
		assert.False(t, ok)
		assert.Equal(t, []string{"scripted: request 0: want tools"}, tb.errors)
	})
	t.Run("reports a missing request", func(t *testing.T) {
		tb := &recordingTB{}
		assert.False(t, scripted.AssertRequest(tb, m, 3, nil))
		assert.Equal(t, []string{"scripted: no request 3: the model captured 1"}, tb.errors)
	})
	t.Run("a nil check only asserts existence", func(t *testing.T) {
		tb := &recordingTB{}
		assert.True(t, scripted.AssertRequest(tb, m, 0, nil))
		assert.Empty(t, tb.errors)
	})
}

func TestCanceledContextTakesNoTurn(t *testing.T) {
	m := scripted.New(scripted.Reply("kept"))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := m.Generate(cctx, user("x"))
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, m.Calls())
	assert.Equal(t, "kept", generate(t, m, user("x")).Content)
}

func TestConcurrentCallsTakeDistinctTurns(t *testing.T) {
	const n = 64
	turns := make([]scripted.Turn, n)
	for i := range turns {
		turns[i] = scripted.Reply(fmt.Sprint(i)).Call("t", `{}`).Call("u", `{}`)
	}
	m := scripted.New(turns...)
	bound, err := m.WithTools([]*schema.ToolInfo{{Name: "t"}})
	require.NoError(t, err)

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		contents []string
		callIDs  []string
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var (
				msg *schema.Message
				err error
			)
			if i%2 == 0 {
				msg, err = m.Generate(ctx, user("x"))
			} else {
				var sr *schema.StreamReader[*schema.Message]
				sr, err = bound.Stream(ctx, user("x"))
				if err == nil {
					msg, err = schema.ConcatMessageStream(sr)
				}
			}
			if !assert.NoError(t, err) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			contents = append(contents, msg.Content)
			callIDs = append(callIDs, ids(msg)...)
		}()
		_ = m.Requests()
		_ = m.Calls()
	}
	wg.Wait()

	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprint(i)
	}
	sort.Strings(want)
	sort.Strings(contents)
	assert.Equal(t, want, contents)
	assert.Len(t, callIDs, 2*n)
	seen := map[string]bool{}
	for _, id := range callIDs {
		assert.False(t, seen[id], "duplicate ID %s", id)
		seen[id] = true
	}
	assert.Len(t, m.Requests(), n)
	assert.Equal(t, 0, m.Remaining())
}
