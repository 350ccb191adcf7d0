package engine

import (
	"context"
	"sync"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/drive"
)

// Identifier is the callback handler that tells a run which model its
// model calls use: at the start of a chat model, the model named in the
// callback input's config (the model's own configuration, with a per-call
// override applied by the model) and the run info's type (the provider,
// such as "OpenAI"), for the run on the ctx. The adapters hand it to the
// program, which passes it with a run's callbacks: it is not registered
// globally, since any Eino handler makes every component of every graph
// pay for the callback machinery.
var Identifier callbacks.Handler = identifier{}

type identifier struct{}

// Needed limits the handler to the start of chat models.
func (identifier) Needed(_ context.Context, info *callbacks.RunInfo, timing callbacks.CallbackTiming) bool {
	return timing == callbacks.TimingOnStart && info != nil && info.Component == components.ComponentOfChatModel
}

func (identifier) OnStart(ctx context.Context, info *callbacks.RunInfo, input callbacks.CallbackInput) context.Context {
	r, _ := drive.FromContext(ctx)
	if r == nil || info == nil {
		return ctx
	}
	// A model that fires its own callbacks passes its typed input, with
	// its config; the input a graph passes for other models has none.
	name := ""
	if in, ok := input.(*model.CallbackInput); ok && in != nil && in.Config != nil {
		name = in.Config.Model
	}
	r.IdentifyModel(name, info.Type)
	return ctx
}

func (identifier) OnEnd(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackOutput) context.Context {
	return ctx
}

func (identifier) OnError(ctx context.Context, _ *callbacks.RunInfo, _ error) context.Context {
	return ctx
}

func (identifier) OnStartWithStreamInput(ctx context.Context, _ *callbacks.RunInfo, in *schema.StreamReader[callbacks.CallbackInput]) context.Context {
	in.Close()
	return ctx
}

func (identifier) OnEndWithStreamOutput(ctx context.Context, _ *callbacks.RunInfo, out *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
	out.Close()
	return ctx
}

// asking returns the ctx to call a model with so that it tells r its
// model and provider, the way Identifier would: a callback handler of its
// own that reads them at the model's start and hands each callback on to
// the handlers ctx already carries, so that they see what they would
// have seen. Eino's clients (OpenAI, Ark, Claude, Gemini, Ollama,
// DeepSeek, Qwen...) all report their model at their start. With global
// handlers registered, which the handler's own callbacks would run a
// second time, it returns ctx: then the model is known through
// Identifier only.
func asking(ctx context.Context, r *drive.Run) context.Context {
	if globalHandlers() {
		return ctx
	}
	return callbacks.InitCallbacks(ctx, nil, &relay{outer: ctx, run: r})
}

// globalHandlers reports whether Eino has global callback handlers: a
// callback context made with none carries no run info. Eino has them
// registered at init, before any graph runs, so the first model call
// asked finds out for the process.
var globalHandlers = sync.OnceValue(func() bool {
	ctx := callbacks.InitCallbacks(context.Background(), &callbacks.RunInfo{})
	return callbacks.EnsureRunInfo(ctx, "", components.ComponentOfChatModel) == ctx
})

// relay is the handler asking puts on a model call's ctx. One relay
// serves one call, whose callbacks come one after the other.
type relay struct {
	outer context.Context
	run   *drive.Run
	// started is the ctx the handlers of outer returned at the start,
	// which the callbacks after it are handed on with.
	started context.Context
}

// to returns the ctx to hand a callback on with: the one the start
// returned, or else outer, with the run info the model would have found
// there.
func (h *relay) to(info *callbacks.RunInfo) context.Context {
	switch {
	case h.started != nil:
		return h.started
	case info == nil:
		return h.outer
	}
	return callbacks.EnsureRunInfo(h.outer, info.Type, info.Component)
}

func (h *relay) OnStart(_ context.Context, info *callbacks.RunInfo, input callbacks.CallbackInput) context.Context {
	if in, ok := input.(*model.CallbackInput); ok && in != nil && in.Config != nil && info != nil {
		h.run.IdentifyModel(in.Config.Model, info.Type)
	}
	h.started = callbacks.OnStart(h.to(info), input)
	return h.started
}

func (h *relay) OnEnd(_ context.Context, info *callbacks.RunInfo, output callbacks.CallbackOutput) context.Context {
	return callbacks.OnEnd(h.to(info), output)
}

func (h *relay) OnError(_ context.Context, info *callbacks.RunInfo, err error) context.Context {
	return callbacks.OnError(h.to(info), err)
}

func (h *relay) OnStartWithStreamInput(_ context.Context, info *callbacks.RunInfo, in *schema.StreamReader[callbacks.CallbackInput]) context.Context {
	ctx, rest := callbacks.OnStartWithStreamInput(h.to(info), in)
	rest.Close()
	h.started = ctx
	return ctx
}

func (h *relay) OnEndWithStreamOutput(_ context.Context, info *callbacks.RunInfo, out *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
	ctx, rest := callbacks.OnEndWithStreamOutput(h.to(info), out)
	rest.Close()
	return ctx
}
