package otelexport

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/lookout-go/lookout/recorder"
)

// Defaults used when a SinkOptions field is zero.
const (
	DefaultBatchSize   = 512
	DefaultExportAfter = 5 * time.Second
)

// SinkOptions tune NewSink. A nil *SinkOptions and the zero value mean the
// defaults.
type SinkOptions struct {
	// Resource describes where the spans come from. Nil means
	// resource.Default(), as for an SDK TracerProvider: it reads
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
	Resource *resource.Resource

	// MaxEvents bounds the events of one span; see Options.MaxEvents.
	MaxEvents int

	// ToolContent exports tool calls' arguments and results; see
	// Options.ToolContent.
	ToolContent bool

	// MeterProvider, when set, records the GenAI client metrics
	// gen_ai.client.token.usage and gen_ai.client.operation.duration of
	// each model call whose response is recorded, as WriteMetricsJSON
	// counts them, through a meter of the scope ScopeName. Nil records
	// no metrics.
	MeterProvider metric.MeterProvider

	// BatchSize is how many ended spans are exported together. Zero
	// means DefaultBatchSize.
	BatchSize int

	// ExportAfter is how long ended spans wait for more: when a record
	// is stamped this long after the oldest waiting span ended, they are
	// exported. It is measured on the records' times, not a clock. Zero
	// means DefaultExportAfter; negative means spans wait for a full
	// batch, the end of a root run, Flush or Close.
	ExportAfter time.Duration
}

// Sink is a recorder.Sink that turns records into spans and exports them
// through an OpenTelemetry SDK SpanExporter, such as otlptracehttp's or
// otlptracegrpc's. Put it behind a Recorder, alone or in a
// recorder.FanOut: the Recorder's queue and goroutine keep the export off
// the agent's path.
//
// A span is exported once it has ended: a chat span at its model_response,
// an execute_tool span at its tool_ended, an invoke_agent span at its
// run_ended. Ended spans are exported in batches: when BatchSize have
// ended, when a root run ends, when ExportAfter has passed, on Flush and
// on Close. A batch the exporter fails is dropped, as the SDK's batch
// processor drops it, and the Write, Flush or Close that exported it
// returns the exporter's error; the Recorder reports it to its error
// handler. Close ends the spans of runs still open at their last record
// (see IncompleteType), exports them and shuts the exporter down.
//
// Ids are derived from the records (see TraceID), so the spans a Sink
// exports are, resource aside, the spans that Spans gives for the same
// records read back from a file. That is why Sink takes an exporter, not a
// TracerProvider, whose IDGenerator and clock would choose ids and times.
//
// A Sink is safe for concurrent use.
type Sink struct {
	mu      sync.Mutex
	exp     sdktrace.SpanExporter
	b       *builder
	pending []sdktrace.ReadOnlySpan
	trees   int // roots ended while spans were pending
	batch   int
	after   time.Duration
	closed  bool
}

// NewSink returns a Sink that exports through exp. The Sink owns exp from
// then on: its Close shuts exp down.
func NewSink(exp sdktrace.SpanExporter, opts *SinkOptions) (*Sink, error) {
	if exp == nil {
		return nil, ErrNoExporter
	}
	var o SinkOptions
	if opts != nil {
		o = *opts
	}
	if o.Resource == nil {
		o.Resource = resource.Default()
	}
	s := &Sink{exp: exp, batch: o.BatchSize, after: o.ExportAfter}
	if s.batch <= 0 {
		s.batch = DefaultBatchSize
	}
	if s.after == 0 {
		s.after = DefaultExportAfter
	}
	s.b = newBuilder(&Options{Resource: o.Resource, MaxEvents: o.MaxEvents, ToolContent: o.ToolContent}, s.ended)
	if o.MeterProvider != nil {
		in, err := newInstruments(o.MeterProvider)
		if err != nil {
			return nil, err
		}
		s.b.measure = func(span *tracetest.SpanStub, p *recorder.ModelResponse) { in.record(measure(span, p)) }
	}
	return s, nil
}

// ended queues a span that has ended.
func (s *Sink) ended(span *tracetest.SpanStub) {
	s.pending = append(s.pending, span.Snapshot())
	if !span.Parent.IsValid() {
		s.trees++
	}
}

// Write takes one record, and exports the ended spans when a batch is
// due. A record of a run this Sink has not seen start opens that run at
// the record. With ctx ended the record is still taken and the export
// waits for a later call.
func (s *Sink) Write(ctx context.Context, r *recorder.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return recorder.ErrClosed
	}
	s.b.add(r)
	if ctx.Err() != nil || !s.due(r.RecordedAt) {
		return nil
	}
	return s.export(ctx)
}

// due reports whether the pending spans are to be exported at now, the
// time of the latest record: a batch is full, a trace has ended, or the
// first span waited ExportAfter. The caller holds s.mu.
func (s *Sink) due(now time.Time) bool {
	if len(s.pending) == 0 {
		return false
	}
	return len(s.pending) >= s.batch || s.trees > 0 ||
		(s.after > 0 && now.Sub(s.pending[0].EndTime()) >= s.after)
}

// Flush exports the spans that have ended. Spans of runs still open are
// not: a span is exported once, when it has ended.
func (s *Sink) Flush(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return recorder.ErrClosed
	}
	return s.export(ctx)
}

// Close ends the spans of runs still open at their last record, exports
// every span and shuts the exporter down. Later calls return nil.
func (s *Sink) Close(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.b.finish()
	err := s.export(ctx)
	if serr := s.exp.Shutdown(ctx); serr != nil {
		err = errors.Join(err, fmt.Errorf("otelexport: shutting the exporter down: %w", serr))
	}
	return err
}

// export hands the pending spans to the exporter, which drops them if it
// fails.
func (s *Sink) export(ctx context.Context) error {
	if len(s.pending) == 0 {
		return nil
	}
	spans := s.pending
	s.pending, s.trees = nil, 0
	if err := s.exp.ExportSpans(ctx, spans); err != nil {
		return fmt.Errorf("otelexport: exporting %d spans: %w", len(spans), err)
	}
	return nil
}
