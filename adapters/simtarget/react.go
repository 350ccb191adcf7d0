package simtarget

import (
	"context"
	"reflect"
	"sync"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/simulate"
)

// ReactAgent is the agent React runs: a react agent (*react.Agent), or,
// to observe it with Lookout, the same agent run through lookoutreact's
// Lookout.Agent (*lookoutreact.Agent), which makes each Generate one
// Lookout run.
type ReactAgent interface {
	Generate(ctx context.Context, input []*schema.Message, opts ...agent.AgentOption) (*schema.Message, error)
}

// React adapts a react agent (flow/agent/react). Each Respond calls Generate
// on the whole history, with a callbacks handler added to opts, and returns
// every message the run produced, as the agent's own history holds them:
// each model reply (tool-call messages and the final answer) and, after
// each tool-call message, its tool results in the order of the calls,
// refusals and tool errors turned into messages by a tool middleware
// included.
//
// With Lookout, build the agent with lookoutreact's model wrapper and tool
// middleware and pass it run through Lookout.Agent, so each turn is one
// run, ended (and its end recorded) before Respond returns:
//
//	l, err := lookoutreact.New(ctx, &lookout.Config{Limits: limits})
//	ra, err := react.NewAgent(ctx, &react.AgentConfig{
//		ToolCallingModel: l.WrapModel(chatModel),
//		ToolsConfig: compose.ToolsNodeConfig{
//			Tools:               tools,
//			ToolCallMiddlewares: []compose.ToolMiddleware{l.ToolMiddleware()},
//		},
//	})
//	target := simtarget.React(l.Agent(ra))
//
// Only the agent's own model and tools node count: a tool that runs
// another agent, or calls a model, with its ctx hands the handler down to
// it (Eino passes callbacks down through the ctx), and those messages are
// left out. A run that fails returns what it produced before the error,
// with the error.
//
// The target is safe for concurrent use when the agent is.
func React(a ReactAgent, opts ...agent.AgentOption) simulate.Target {
	if isNil(a) {
		a = nil
	}
	return &reactTarget{a: a, opts: opts}
}

// isNil reports whether a is nil or holds a nil pointer.
func isNil(a any) bool {
	if a == nil {
		return true
	}
	v := reflect.ValueOf(a)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

type reactTarget struct {
	a    ReactAgent
	opts []agent.AgentOption
}

func (t *reactTarget) Respond(ctx context.Context, history []*schema.Message) ([]*schema.Message, error) {
	if t.a == nil {
		return nil, ErrNilAgent
	}
	c := &turnCollector{}
	opts := append(append(make([]agent.AgentOption, 0, len(t.opts)+1), t.opts...),
		agent.WithComposeOptions(compose.WithCallbacks(c)))
	final, err := t.a.Generate(ctx, history, opts...)
	out := c.messages()
	if err != nil {
		return out, err
	}
	if len(out) == 0 && final != nil {
		out = append(out, final)
	}
	return out, nil
}

// turnCollector is the callbacks handler of one react run. It keeps the
// replies of the agent's model node and the output of its tools node: the
// nodes one level below the graph that started first, the agent's. A graph
// or model run inside a tool has a longer address and is left out.
type turnCollector struct {
	mu      sync.Mutex
	root    compose.Address
	claimed bool
	out     []*schema.Message
}

var (
	_ callbacks.Handler       = (*turnCollector)(nil)
	_ callbacks.TimingChecker = (*turnCollector)(nil)
)

func (c *turnCollector) messages() []*schema.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out
}

// own reports whether ctx is the ctx of a node of the agent's graph.
func (c *turnCollector) own(ctx context.Context) bool {
	addr := compose.GetCurrentAddress(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.claimed && len(addr) == len(c.root)+1 && addr[:len(c.root)].Equals(c.root)
}

func (c *turnCollector) add(msgs ...*schema.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range msgs {
		if m != nil {
			c.out = append(c.out, m)
		}
	}
}

// Needed asks Eino for the start of graphs, until the agent's has been
// seen, and for the end of chat models and tools nodes. Respond runs the
// agent with Generate, so every node ends without a stream.
func (c *turnCollector) Needed(_ context.Context, info *callbacks.RunInfo, timing callbacks.CallbackTiming) bool {
	if info == nil {
		return false
	}
	switch timing {
	case callbacks.TimingOnStart:
		c.mu.Lock()
		defer c.mu.Unlock()
		return !c.claimed
	case callbacks.TimingOnEnd:
		return info.Component == components.ComponentOfChatModel || info.Component == compose.ComponentOfToolsNode
	default:
		return false
	}
}

func (c *turnCollector) OnStart(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.claimed {
		c.root, c.claimed = compose.GetCurrentAddress(ctx), true
	}
	return ctx
}

func (c *turnCollector) OnEnd(ctx context.Context, info *callbacks.RunInfo, output callbacks.CallbackOutput) context.Context {
	if info != nil && c.own(ctx) {
		c.addOutput(info.Component, output)
	}
	return ctx
}

// addOutput keeps the reply of the agent's chat model or the tool
// messages of its tools node.
func (c *turnCollector) addOutput(component components.Component, output callbacks.CallbackOutput) {
	switch component {
	case components.ComponentOfChatModel:
		if out := model.ConvCallbackOutput(output); out != nil {
			c.add(out.Message)
		}
	case compose.ComponentOfToolsNode:
		if msgs, ok := output.([]*schema.Message); ok {
			c.add(msgs...)
		}
	}
}

func (c *turnCollector) OnError(ctx context.Context, _ *callbacks.RunInfo, _ error) context.Context {
	return ctx
}

func (c *turnCollector) OnStartWithStreamInput(ctx context.Context, _ *callbacks.RunInfo, input *schema.StreamReader[callbacks.CallbackInput]) context.Context {
	input.Close()
	return ctx
}

func (c *turnCollector) OnEndWithStreamOutput(ctx context.Context, _ *callbacks.RunInfo, output *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
	output.Close()
	return ctx
}

// Runnable adapts a compiled compose graph or chain that maps the history
// to one reply. Only that reply is returned: the graph's intermediate tool
// messages are not visible from outside it, so prefer React (or an ADK
// agent) when goals need the agent's tool calls.
//
// The target is safe for concurrent use when the runnable is.
func Runnable(r compose.Runnable[[]*schema.Message, *schema.Message], opts ...compose.Option) simulate.Target {
	return simulate.TargetFunc(func(ctx context.Context, history []*schema.Message) ([]*schema.Message, error) {
		if r == nil {
			return nil, ErrNilAgent
		}
		msg, err := r.Invoke(ctx, history, opts...)
		if err != nil {
			return nil, err
		}
		if msg == nil {
			return nil, nil
		}
		return []*schema.Message{msg}, nil
	})
}
