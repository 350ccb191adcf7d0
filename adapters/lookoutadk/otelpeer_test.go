package lookoutadk_test

import (
	"context"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// otelHandler is the OpenTelemetry peer of scripts/instructions: an Eino
// callbacks handler that traces each model and tool call as an OTel SDK
// span, with the call's component and name as attributes, exported to
// memory as each span ends.
type otelHandler struct {
	tracer   trace.Tracer
	exporter *tracetest.InMemoryExporter
}

func newOtelHandler() *otelHandler {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	return &otelHandler{tracer: tp.Tracer("peer"), exporter: exp}
}

type spanKey struct{}

func traced(info *callbacks.RunInfo) bool {
	return info != nil && (info.Component == components.ComponentOfChatModel || info.Component == components.ComponentOfTool)
}

func (h *otelHandler) build() callbacks.Handler {
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
			if !traced(info) {
				return ctx
			}
			ctx, span := h.tracer.Start(ctx, string(info.Component)+" "+info.Name)
			return context.WithValue(ctx, spanKey{}, span)
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackOutput) context.Context {
			if span, ok := ctx.Value(spanKey{}).(trace.Span); ok && traced(info) {
				span.End()
			}
			return ctx
		}).
		OnErrorFn(func(ctx context.Context, info *callbacks.RunInfo, err error) context.Context {
			if span, ok := ctx.Value(spanKey{}).(trace.Span); ok && traced(info) {
				span.RecordError(err)
				span.End()
			}
			return ctx
		}).
		Build()
}
