package simulate

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
)

// ToolCall is one tool call the agent made, with the result its tool
// returned. Answered is false when no tool message with the call's id came
// back (the turn ended or failed before the result). Failed is true when the
// tool message reports an error the way Lookout's middleware writes one: its
// text starts with ToolErrorPrefix ("Error: ").
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type ToolCall struct {
	Turn      int    `json:"turn"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Result    string `json:"result,omitempty"`
	Answered  bool   `json:"answered"`
	Failed    bool   `json:"failed,omitempty"`
}

// ToolErrorPrefix starts the tool message of a failed tool call: Lookout's
// middleware (lookoutadk, lookoutreact) hands a tool's error back to the
// model as "Error: " and the error's text.
const ToolErrorPrefix = "Error: "

// Args decodes the call's JSON arguments into v.
func (c ToolCall) Args(v any) error { return json.Unmarshal([]byte(c.Arguments), v) }

// Evidence is what the agent did so far: its tool calls in order, and the
// turns. Goals are judged on it. Treat it as read-only.
//
// Evidence is shared by the goals of a turn; it is safe for concurrent
// reads only.
type Evidence struct {
	ToolCalls []ToolCall
	Traces    []StepTrace
}

// Calls returns the calls to the named tool, in order.
func (e Evidence) Calls(name string) []ToolCall {
	var out []ToolCall
	for _, c := range e.ToolCalls {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// Goal is a checkable end: a predicate over what the agent actually did.
// When a scenario declares goals, the goal is reached only once every one is
// met, whatever the user model claims; and the run stops as soon as they
// are, rather than playing out the turns that remain. A goal stays met once
// it has been met.
//
// A Goal is safe for concurrent use by several runs when Met is.
type Goal struct {
	Name string
	Met  func(ctx context.Context, e Evidence) (bool, error)
}

// GoalResult is the outcome of one goal. Turn is the turn in which it was
// first met, or -1.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type GoalResult struct {
	Name  string `json:"name"`
	Met   bool   `json:"met"`
	Turn  int    `json:"turn"`
	Error string `json:"error,omitempty"`
}

// ToolCalled is a goal met once the agent has called the named tool and got
// a result back that is not an error (see ToolCall.Failed).
func ToolCalled(name string) Goal {
	return ToolCalledWith(name, nil)
}

// ToolCalledWith is a goal met once the agent has called the named tool, got
// a result back that is not an error, and match (when not nil) accepts the
// call. Use ToolCall.Args to read the arguments.
func ToolCalledWith(name string, match func(ToolCall) bool) Goal {
	return toolGoal("called "+name, name, false, match)
}

// ToolTried is a goal met once the agent has called the named tool and got
// a result back, failed or not, and match (when not nil) accepts the call:
// for scenarios where trying is what counts, such as handling a tool that
// is down.
func ToolTried(name string, match func(ToolCall) bool) Goal {
	return toolGoal("tried "+name, name, true, match)
}

// toolGoal is met by an answered call to tool that match accepts, and that
// did not fail unless failures are accepted.
func toolGoal(label, tool string, failures bool, match func(ToolCall) bool) Goal {
	t := toolCallTest{tool: tool, failures: failures, match: match}
	return Goal{
		Name: label,
		Met: func(_ context.Context, e Evidence) (bool, error) {
			return slices.ContainsFunc(e.ToolCalls, t.accepts), nil
		},
	}
}

// toolCallTest is what a tool goal looks for among the calls: an answered
// call to tool that match, when not nil, accepts, and that did not fail
// unless failures are accepted.
type toolCallTest struct {
	tool     string
	failures bool
	match    func(ToolCall) bool
}

// accepts reports whether the call c is one the test looks for.
func (t toolCallTest) accepts(c ToolCall) bool {
	return c.Name == t.tool && c.Answered && (t.failures || !c.Failed) && (t.match == nil || t.match(c))
}

// appendToolCalls adds the calls made in one turn's agent messages, pairing
// each with its tool message by call id.
func appendToolCalls(calls []ToolCall, turn int, msgs []*schema.Message) []ToolCall {
	start := len(calls)
	for _, m := range msgs {
		if m == nil {
			continue
		}
		switch m.Role {
		case schema.Assistant:
			calls = appendRequested(calls, turn, m)
		case schema.Tool:
			answer(calls[start:], m)
		}
	}
	return calls
}

// appendRequested adds the tool calls that the assistant message m, of
// the given turn, requests.
func appendRequested(calls []ToolCall, turn int, m *schema.Message) []ToolCall {
	for _, tc := range m.ToolCalls {
		calls = append(calls, ToolCall{Turn: turn, ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return calls
}

// answer records the tool message m as the result of the first call among
// calls that it answers, if there is one.
func answer(calls []ToolCall, m *schema.Message) {
	i := unanswered(calls, m)
	if i < 0 {
		return
	}
	c := &calls[i]
	c.Result = msgtext.Of(m)
	c.Answered = true
	c.Failed = strings.HasPrefix(c.Result, ToolErrorPrefix)
}

// unanswered finds the first call without a result that the tool message
// answers: by call id, or by tool name when the message carries no id.
func unanswered(calls []ToolCall, m *schema.Message) int {
	for i, c := range calls {
		if !c.Answered && answers(m, c) {
			return i
		}
	}
	return -1
}

// answers reports whether the tool message m answers the call c: by call
// id, or by tool name when m carries no id.
func answers(m *schema.Message, c ToolCall) bool {
	if m.ToolCallID != "" {
		return c.ID == m.ToolCallID
	}
	return c.Name == m.ToolName
}
