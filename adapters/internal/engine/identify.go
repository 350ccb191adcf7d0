package engine

import (
	"context"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
)

// Identifier is the callback handler that tells a run which model its
// model calls use: at the start of a chat model, the model named in the
// callback input's config (the model's own configuration, with a per-call
// override applied by the model) and the run info's type (the provider,
// such as "OpenAI"), for the run on the ctx. It is registered as a global
// Eino handler when the adapters are loaded; a program that replaces
// Eino's global handlers (callbacks.InitCallbackHandlers) can pass it
// with its own.
var Identifier callbacks.Handler = identifier{}

func init() { callbacks.AppendGlobalHandlers(Identifier) }

type identifier struct{}

// Needed limits the handler to the start of chat models.
func (identifier) Needed(_ context.Context, info *callbacks.RunInfo, timing callbacks.CallbackTiming) bool {
	return timing == callbacks.TimingOnStart && info != nil && info.Component == components.ComponentOfChatModel
}

func (identifier) OnStart(ctx context.Context, info *callbacks.RunInfo, input callbacks.CallbackInput) context.Context {
	r, _ := lookout.FromContext(ctx)
	if r == nil || info == nil {
		return ctx
	}
	name := ""
	if in := model.ConvCallbackInput(input); in != nil && in.Config != nil {
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
