package scripted

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// Model is a chat model that plays a script of turns in order. It
// implements model.ToolCallingChatModel.
//
// The zero Model has an empty script: every call fails with
// [ErrScriptExhausted]. A Model is safe for concurrent use; concurrent
// calls each take the next turn, in the order they reach the model.
type Model struct {
	once  sync.Once
	state *script

	tools     []*schema.ToolInfo
	callbacks bool
	noCapture bool
}

var (
	_ model.ToolCallingChatModel = (*Model)(nil)
	_ components.Checker         = (*Model)(nil)
	_ components.Typer           = (*Model)(nil)
)

// New returns a model that plays turns in order.
func New(turns ...Turn) *Model {
	return &Model{state: &script{turns: slices.Clone(turns)}}
}

func (m *Model) script() *script {
	m.once.Do(func() {
		if m.state == nil {
			m.state = &script{}
		}
	})
	return m.state
}

// derive returns a copy of m that shares its script, captures and ID counter.
func (m *Model) derive() *Model {
	return &Model{state: m.script(), tools: m.tools, callbacks: m.callbacks, noCapture: m.noCapture}
}

// WithTools returns a copy of m bound to tools. The copy shares the script
// cursor, the captured requests and the ID counter with m. Tools passed to
// a call with model.WithTools take precedence over bound ones.
func (m *Model) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	c := m.derive()
	c.tools = slices.Clone(tools)
	return c, nil
}

// WithCallbacks returns a copy of m, sharing its script, that fires model
// callbacks itself when enabled is true. See the package doc for what this
// changes; by default a Model fires none.
func (m *Model) WithCallbacks(enabled bool) *Model {
	c := m.derive()
	c.callbacks = enabled
	return c
}

// WithCapture returns a copy of m, sharing its script, that records the
// requests it receives only when enabled is true (the default). Turning
// capture off keeps long benchmarks from copying the whole history on
// every call; Calls still counts every call.
func (m *Model) WithCapture(enabled bool) *Model {
	c := m.derive()
	c.noCapture = !enabled
	return c
}

// IsCallbacksEnabled reports whether m fires model callbacks itself. Eino
// wraps models that return false with its own callbacks.
func (m *Model) IsCallbacksEnabled() bool { return m.callbacks }

// GetType returns "Scripted", the type name shown in callbacks' RunInfo.
func (m *Model) GetType() string { return "Scripted" }

// Requests returns a copy of every captured request, in arrival order.
func (m *Model) Requests() []Request {
	s := m.script()
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Request returns the i-th captured request (0-based).
func (m *Model) Request(i int) (Request, bool) {
	s := m.script()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 || i >= len(s.requests) {
		return Request{}, false
	}
	return s.requests[i], true
}

// Calls counts the Generate and Stream calls received, including calls
// that failed.
func (m *Model) Calls() int {
	s := m.script()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Remaining counts the turns not yet played, or returns -1 when a
// [Forever] turn is still ahead.
func (m *Model) Remaining() int {
	s := m.script()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := s.pos; i < len(s.turns); i++ {
		c := s.turns[i].count()
		if c < 0 {
			return -1
		}
		n += c
	}
	return n - s.repeats
}

// Generate plays the next turn.
func (m *Model) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	o := m.options(opts)
	ctx = m.start(ctx, input, o)
	msg, err := m.play(ctx, input, o, false)
	if err != nil {
		return nil, m.fail(ctx, err)
	}
	if m.callbacks {
		callbacks.OnEnd(ctx, callbackOutput(msg, o))
	}
	return msg, nil
}

// Stream plays the next turn as a stream of chunks whose concatenation
// (schema.ConcatMessages) equals the reply Generate would return. The
// usage, if any, and the finish reason come on the last chunk.
func (m *Model) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	o := m.options(opts)
	ctx = m.start(ctx, input, o)
	msg, err := m.play(ctx, input, o, true)
	if err != nil {
		return nil, m.fail(ctx, err)
	}
	sr := schema.StreamReaderFromArray(split(msg))
	if !m.callbacks {
		return sr, nil
	}
	return endStream(ctx, sr, o), nil
}

// start fires OnStart when m fires its own callbacks, and returns the ctx
// the call goes on with.
func (m *Model) start(ctx context.Context, input []*schema.Message, o *model.Options) context.Context {
	if !m.callbacks {
		return ctx
	}
	ctx = callbacks.EnsureRunInfo(ctx, m.GetType(), components.ComponentOfChatModel)
	return callbacks.OnStart(ctx, callbackInput(input, o))
}

// fail fires OnError when m fires its own callbacks, and returns err.
func (m *Model) fail(ctx context.Context, err error) error {
	if m.callbacks {
		callbacks.OnError(ctx, err)
	}
	return err
}

// endStream hands the chunks of sr to the OnEnd callbacks as they are
// read, and returns the chunks the caller reads.
func endStream(ctx context.Context, sr *schema.StreamReader[*schema.Message], o *model.Options) *schema.StreamReader[*schema.Message] {
	outs := schema.StreamReaderWithConvert(sr, func(c *schema.Message) (callbacks.CallbackOutput, error) {
		return callbackOutput(c, o), nil
	})
	_, outs = callbacks.OnEndWithStreamOutput(ctx, outs)
	return schema.StreamReaderWithConvert(outs, func(c callbacks.CallbackOutput) (*schema.Message, error) {
		out, ok := c.(*model.CallbackOutput)
		if !ok || out.Message == nil {
			return nil, schema.ErrNoValue
		}
		return out.Message, nil
	})
}

func (m *Model) options(opts []model.Option) *model.Options {
	return model.GetCommonOptions(&model.Options{Tools: m.tools}, opts...)
}

// play records the request, takes the next turn and turns it into a reply.
func (m *Model) play(ctx context.Context, input []*schema.Message, o *model.Options, stream bool) (*schema.Message, error) {
	s := m.script()
	t, msg, err := m.take(ctx, s, input, o, stream)
	if err != nil {
		return nil, err
	}
	if t.kind != kindReply {
		msg, err = s.perform(ctx, t, input, o)
		if err != nil {
			return nil, err
		}
	}
	finish(msg, t, input)
	return msg, nil
}

// take counts the call, captures the request unless capture is off, and
// takes the next turn of s. A scripted reply is built before s.mu is
// released, so that its tool-call IDs follow the order of the calls.
func (m *Model) take(ctx context.Context, s *script, input []*schema.Message, o *model.Options, stream bool) (Turn, *schema.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if !m.noCapture {
		s.requests = append(s.requests, Request{
			Messages:         captureMessages(input),
			Tools:            captureTools(o.Tools),
			ToolChoice:       o.ToolChoice,
			AllowedToolNames: slices.Clone(o.AllowedToolNames),
			Stream:           stream,
		})
	}
	if err := ctx.Err(); err != nil {
		return Turn{}, nil, err
	}
	t, ok := s.next()
	if !ok {
		return Turn{}, nil, &ExhaustedError{Call: s.calls, Played: s.played}
	}
	if t.kind == kindReply {
		return t, s.reply(t), nil
	}
	return t, nil, nil
}

// perform plays a Fail or Func turn, outside s.mu: it returns the turn's
// error, or the completed reply of its function.
func (s *script) perform(ctx context.Context, t Turn, input []*schema.Message, o *model.Options) (*schema.Message, error) {
	if t.kind == kindFail {
		if t.err == nil {
			return nil, fmt.Errorf("%w: Fail was given a nil error", ErrInvalidTurn)
		}
		return nil, t.err
	}
	if t.fn == nil {
		return nil, fmt.Errorf("%w: Func was given a nil function", ErrInvalidTurn)
	}
	out, err := t.fn(ctx, input, o)
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("%w: Func returned neither a message nor an error", ErrInvalidTurn)
	}
	return s.complete(out), nil
}

// script is the state shared by a Model and its copies.
type script struct {
	mu       sync.Mutex
	turns    []Turn
	pos      int // index of the turn to play next
	repeats  int // plays of turns[pos] so far
	played   int // turns played in all
	calls    int
	ids      int
	requests []Request
}

// next takes the next turn. The caller holds s.mu.
func (s *script) next() (Turn, bool) {
	for s.pos < len(s.turns) {
		t := s.turns[s.pos]
		c := t.count()
		if c < 0 {
			s.played++
			return t, true
		}
		if s.repeats < c {
			s.repeats++
			s.played++
			if s.repeats == c {
				s.pos, s.repeats = s.pos+1, 0
			}
			return t, true
		}
		s.pos, s.repeats = s.pos+1, 0
	}
	return Turn{}, false
}

// nextID returns a fresh tool-call ID. The caller holds s.mu.
func (s *script) nextID() string {
	s.ids++
	return "call_" + strconv.Itoa(s.ids)
}

// reply builds the message for a scripted reply. The caller holds s.mu.
func (s *script) reply(t Turn) *schema.Message {
	msg := &schema.Message{Role: schema.Assistant, Content: t.text}
	if len(t.calls) == 0 {
		return msg
	}
	msg.ToolCalls = make([]schema.ToolCall, len(t.calls))
	for i, c := range t.calls {
		id := c.ID
		if id == "" {
			id = s.nextID()
		}
		index := i
		msg.ToolCalls[i] = schema.ToolCall{
			Index:    &index,
			ID:       id,
			Type:     "function",
			Function: schema.FunctionCall{Name: c.Name, Arguments: c.Arguments},
		}
	}
	return msg
}

// complete copies a message returned by a Func turn and fills in what a
// scripted reply would have.
func (s *script) complete(in *schema.Message) *schema.Message {
	msg := *in
	if msg.Role == "" {
		msg.Role = schema.Assistant
	}
	if in.ResponseMeta != nil {
		meta := *in.ResponseMeta
		msg.ResponseMeta = &meta
	}
	if len(in.ToolCalls) == 0 {
		return &msg
	}
	msg.ToolCalls = slices.Clone(in.ToolCalls)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range msg.ToolCalls {
		s.completeCall(&msg.ToolCalls[i], i)
	}
	return &msg
}

// completeCall fills in the ID, type and index of the i-th tool call of a
// Func turn's reply where they are missing. The caller holds s.mu.
func (s *script) completeCall(c *schema.ToolCall, i int) {
	if c.ID == "" {
		c.ID = s.nextID()
	}
	if c.Type == "" {
		c.Type = "function"
	}
	if c.Index == nil {
		index := i
		c.Index = &index
	}
}

// finish sets the finish reason and the usage the turn asks for.
func finish(msg *schema.Message, t Turn, input []*schema.Message) {
	if msg.ResponseMeta == nil {
		msg.ResponseMeta = &schema.ResponseMeta{}
	}
	meta := msg.ResponseMeta
	if meta.FinishReason == "" {
		meta.FinishReason = defaultFinishReason(msg)
	}
	meta.Usage = t.usageOf(msg, input)
}

// defaultFinishReason is "tool_calls" for a reply that calls tools and
// "stop" for any other.
func defaultFinishReason(msg *schema.Message) string {
	if len(msg.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// usageOf returns the usage the reply msg to input reports under t: the
// turn's fixed counts, none, or the reply's own usage, estimated from the
// text when it has none.
func (t Turn) usageOf(msg *schema.Message, input []*schema.Message) *schema.TokenUsage {
	switch t.usage {
	case usageFixed:
		return &schema.TokenUsage{PromptTokens: t.prompt, CompletionTokens: t.complete, TotalTokens: t.prompt + t.complete}
	case usageNone:
		return nil
	}
	if u := msg.ResponseMeta.Usage; u != nil {
		return u
	}
	p, c := PromptTokens(input), CompletionTokens(msg)
	return &schema.TokenUsage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}
}

func callbackInput(input []*schema.Message, o *model.Options) *model.CallbackInput {
	return &model.CallbackInput{
		Messages:   input,
		Tools:      o.Tools,
		ToolChoice: o.ToolChoice,
		Config:     callbackConfig(o),
	}
}

func callbackConfig(o *model.Options) *model.Config {
	c := &model.Config{Stop: o.Stop}
	if o.Model != nil {
		c.Model = *o.Model
	}
	if o.MaxTokens != nil {
		c.MaxTokens = *o.MaxTokens
	}
	if o.Temperature != nil {
		c.Temperature = *o.Temperature
	}
	if o.TopP != nil {
		c.TopP = *o.TopP
	}
	return c
}

func callbackOutput(msg *schema.Message, o *model.Options) *model.CallbackOutput {
	out := &model.CallbackOutput{Message: msg, Config: callbackConfig(o)}
	if msg.ResponseMeta != nil && msg.ResponseMeta.Usage != nil {
		u := msg.ResponseMeta.Usage
		out.TokenUsage = &model.TokenUsage{
			PromptTokens:            u.PromptTokens,
			PromptTokenDetails:      model.PromptTokenDetails{CachedTokens: u.PromptTokenDetails.CachedTokens, CacheWriteTokens: u.PromptTokenDetails.CacheWriteTokens},
			CompletionTokens:        u.CompletionTokens,
			TotalTokens:             u.TotalTokens,
			CompletionTokensDetails: model.CompletionTokensDetails{ReasoningTokens: u.CompletionTokensDetails.ReasoningTokens},
		}
	}
	return out
}
