package engine

import (
	"context"

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
