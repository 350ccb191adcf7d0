package abharness

import (
	"context"
	"slices"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// System is the system prompt a live model is given.
const System = "You are an agent that works on a project and its server through tools. " +
	"Use the tools to do the task. When it is done, or you cannot go on, answer in plain text without calling a tool."

// Tools are the tools a live model is given, for every scenario.
func Tools() []*schema.ToolInfo {
	str := func(desc string) *schema.ParameterInfo {
		return &schema.ParameterInfo{Type: schema.String, Desc: desc, Required: true}
	}
	tool := func(name, desc string, params map[string]*schema.ParameterInfo) *schema.ToolInfo {
		return &schema.ToolInfo{Name: name, Desc: desc, ParamsOneOf: schema.NewParamsOneOfByParams(params)}
	}
	return []*schema.ToolInfo{
		tool("read_file", "Read a file.", map[string]*schema.ParameterInfo{"path": str("the file's path")}),
		tool("write_file", "Write a file, replacing it.", map[string]*schema.ParameterInfo{"path": str("the file's path"), "content": str("what to write")}),
		tool("list_dir", "List a directory.", map[string]*schema.ParameterInfo{"path": str("the directory's path")}),
		tool("make_dir", "Make a directory and its parents.", map[string]*schema.ParameterInfo{"path": str("the directory's path")}),
		tool("stop_service", "Stop a service on the server.", map[string]*schema.ParameterInfo{"name": str("the service's name")}),
	}
}

// Live is an agent played by a model with Tools bound: each turn it is
// sent the conversation so far, with the block, when there is one, as a
// last user message, as the Eino adapters inject it. Only the first of
// several tool calls in a reply is made.
type Live struct {
	m       model.BaseChatModel
	history []*schema.Message
	pending *schema.ToolCall
}

// NewLive returns a live agent on s for m, which must have Tools bound.
func NewLive(m model.BaseChatModel, s Scenario) *Live {
	return &Live{m: m, history: []*schema.Message{schema.SystemMessage(System), schema.UserMessage(s.Prompt)}}
}

// Next sends the model its turn and returns its call, or answer true when
// it replied without one.
func (a *Live) Next(ctx context.Context, block string, last *Call) (Call, bool, error) {
	if last != nil && a.pending != nil {
		content := last.Result
		if last.Err != "" {
			content = "error: " + last.Err
		}
		a.history = append(a.history, schema.ToolMessage(content, a.pending.ID, schema.WithToolName(a.pending.Function.Name)))
	}
	in := a.history
	if block != "" {
		in = append(slices.Clip(in), schema.UserMessage(block))
	}
	msg, err := a.m.Generate(ctx, in)
	if err != nil {
		return Call{}, false, err
	}
	if len(msg.ToolCalls) == 0 {
		return Call{}, true, nil
	}
	reply := *msg
	reply.ToolCalls = msg.ToolCalls[:1]
	a.history = append(a.history, &reply)
	a.pending = &reply.ToolCalls[0]
	return Call{Tool: a.pending.Function.Name, Args: a.pending.Function.Arguments}, false, nil
}
