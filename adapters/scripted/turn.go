package scripted

import (
	"context"
	"slices"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// ReplyFunc computes a reply from the request. It receives the caller's
// input and the resolved options (tools bound with WithTools appear in
// opts.Tools unless the call overrides them). It runs outside the model's
// lock, so concurrent calls may run it concurrently; it must not modify
// input.
type ReplyFunc func(ctx context.Context, input []*schema.Message, opts *model.Options) (*schema.Message, error)

// ToolCall is one tool call in a scripted reply. An empty ID is filled with
// the next generated ID (call_1, call_2, ...) when the turn is played; the
// zero ToolCall calls a tool with an empty name and no arguments. It is a
// plain value, safe to copy and share.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text, passed through unchanged
}

type turnKind uint8

const (
	kindReply turnKind = iota
	kindFail
	kindFunc
)

type usageMode uint8

const (
	usageDefault usageMode = iota
	usageFixed
	usageNone
)

const (
	playsDefault = 0  // the zero value: play once
	playsNone    = -1 // Repeat with n <= 0
)

// Turn is one step of a script: a reply, an error or a function.
// Build turns with [Reply], [Call], [Calls], [Fail] and [Func], and adjust
// them with the methods, which return modified copies.
//
// The zero Turn is a reply with no text and no tool calls, played once.
// A Turn is an immutable value and safe to share between goroutines.
type Turn struct {
	kind  turnKind
	text  string
	calls []ToolCall
	err   error
	fn    ReplyFunc

	usage            usageMode
	prompt, complete int

	plays   int
	forever bool
}

// Reply is an assistant reply with text and no tool calls.
func Reply(text string) Turn { return Turn{text: text} }

// Call is an assistant reply that calls one tool with JSON arguments.
// Chain [Turn.Call] to add parallel calls.
func Call(name, arguments string) Turn {
	return Turn{calls: []ToolCall{{Name: name, Arguments: arguments}}}
}

// Calls is an assistant reply with several parallel tool calls.
func Calls(calls ...ToolCall) Turn { return Turn{calls: slices.Clone(calls)} }

// Fail is a turn whose call returns err unchanged, so errors.Is and
// errors.As see exactly what the script gave.
func Fail(err error) Turn { return Turn{kind: kindFail, err: err} }

// Func is a turn whose reply is computed by fn. The message fn returns is
// completed like a scripted reply: an empty role becomes assistant, tool
// calls without an ID or Index get one, and a missing ResponseMeta or
// Usage is filled in (see the package doc).
func Func(fn ReplyFunc) Turn { return Turn{kind: kindFunc, fn: fn} }

// Repeat plays t n times in a row; n <= 0 plays it not at all. It replaces
// any earlier Repeat or [Forever] on t. Each play of a tool-call turn gets
// fresh IDs.
func Repeat(n int, t Turn) Turn {
	t.forever = false
	if n <= 0 {
		t.plays = playsNone
	} else {
		t.plays = n
	}
	return t
}

// Forever plays t on every call from now on; turns after it are never
// reached and the script is never exhausted.
func Forever(t Turn) Turn {
	t.forever = true
	return t
}

// Call returns a copy of t with one more tool call, made in parallel with
// the calls t already has. On a Fail or Func turn it has no effect.
func (t Turn) Call(name, arguments string) Turn {
	t.calls = append(slices.Clip(t.calls), ToolCall{Name: name, Arguments: arguments})
	return t
}

// WithUsage returns a copy of t that reports the given token counts; the
// total is their sum.
func (t Turn) WithUsage(promptTokens, completionTokens int) Turn {
	t.usage, t.prompt, t.complete = usageFixed, promptTokens, completionTokens
	return t
}

// WithoutUsage returns a copy of t whose reply has ResponseMeta.Usage == nil,
// as a provider that reports no usage would.
func (t Turn) WithoutUsage() Turn {
	t.usage = usageNone
	return t
}

// count reports how many times t plays; forever turns report -1.
func (t Turn) count() int {
	switch {
	case t.forever:
		return -1
	case t.plays == playsDefault:
		return 1
	case t.plays == playsNone:
		return 0
	default:
		return t.plays
	}
}
