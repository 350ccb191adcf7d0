package otelexport_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/lookout-go/lookout/otelexport"
	"github.com/lookout-go/lookout/recorder"
)

// exporter records what it is given, in batches, and fails while err is
// set.
type exporter struct {
	mu       sync.Mutex
	batches  [][]sdktrace.ReadOnlySpan
	err      error
	shutdown int
}

func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return e.err
	}
	e.batches = append(e.batches, spans)
	return ctx.Err()
}

func (e *exporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shutdown++
	return nil
}

func (e *exporter) spans() []sdktrace.ReadOnlySpan {
	e.mu.Lock()
	defer e.mu.Unlock()
	var all []sdktrace.ReadOnlySpan
	for _, b := range e.batches {
		all = append(all, b...)
	}
	return all
}

// writeAll writes records to s directly, as a Recorder's goroutine would.
func writeAll(t *testing.T, s recorder.Sink, records []recorder.Record) {
	t.Helper()
	for i := range records {
		require.NoError(t, s.Write(context.Background(), &records[i]))
	}
}

func newSink(t *testing.T, exp sdktrace.SpanExporter, o otelexport.SinkOptions) *otelexport.Sink {
	t.Helper()
	o.Resource = resource.Empty()
	s, err := otelexport.NewSink(exp, &o)
	require.NoError(t, err)
	return s
}

func TestTheSinkExportsWhatSpansGivesForTheSameRecords(t *testing.T) {
	records := tree(t)
	exp := &exporter{}
	s := newSink(t, exp, otelexport.SinkOptions{})
	writeAll(t, s, records)
	require.NoError(t, s.Close(context.Background()))

	want, err := otelexport.Spans(records, &otelexport.Options{Resource: resource.Empty()})
	require.NoError(t, err)
	got := exp.spans()
	require.Len(t, got, len(want))
	byID := map[string]sdktrace.ReadOnlySpan{}
	for _, sp := range got {
		byID[sp.SpanContext().SpanID().String()] = sp
	}
	for _, w := range want {
		g := byID[w.SpanContext().SpanID().String()]
		require.NotNil(t, g, w.Name())
		assert.Equal(t, w.Name(), g.Name())
		assert.Equal(t, w.Parent(), g.Parent(), w.Name())
		assert.Equal(t, w.StartTime(), g.StartTime(), w.Name())
		assert.Equal(t, w.EndTime(), g.EndTime(), w.Name())
		assert.Equal(t, w.Attributes(), g.Attributes(), w.Name())
		assert.Equal(t, w.Events(), g.Events(), w.Name())
		assert.Equal(t, w.Status(), g.Status(), w.Name())
	}
	assert.Equal(t, 1, exp.shutdown, "Close shuts the exporter down")
}

func TestTheSinkExportsWhenARootRunEnds(t *testing.T) {
	records := tree(t)
	exp := &exporter{}
	s := newSink(t, exp, otelexport.SinkOptions{ExportAfter: -1})
	writeAll(t, s, records[:18])
	assert.Empty(t, exp.spans(), "spans wait for a batch while the root runs")
	writeAll(t, s, records[18:])
	assert.Len(t, exp.spans(), 7)
	assert.Len(t, exp.batches, 1)
}

func TestTheSinkExportsOnceExportAfterHasPassedOnTheRecordsTimes(t *testing.T) {
	records := tree(t)
	exp := &exporter{}
	s := newSink(t, exp, otelexport.SinkOptions{ExportAfter: 2 * time.Second})
	// The lead's first chat span ends at record 2.
	writeAll(t, s, records[:4])
	assert.Empty(t, exp.spans(), "record 3 is a second after the span ended")
	writeAll(t, s, records[4:5])
	require.Len(t, exp.spans(), 1, "record 4 is two seconds after")
	assert.Equal(t, "chat gpt-4o-mini", exp.spans()[0].Name())
}

func TestTheSinkExportsFullBatches(t *testing.T) {
	records := tree(t)
	exp := &exporter{}
	s := newSink(t, exp, otelexport.SinkOptions{BatchSize: 2, ExportAfter: -1})
	writeAll(t, s, records[:10]) // two spans ended: lead chat, researcher chat
	assert.Len(t, exp.spans(), 2)
	writeAll(t, s, records[10:12]) // search ended: a third, waiting
	assert.Len(t, exp.spans(), 2)
	require.NoError(t, s.Flush(context.Background()))
	assert.Len(t, exp.spans(), 3, "Flush exports the spans that have ended")
}

func TestCloseEndsTheRunsStillOpenAndLaterCallsFail(t *testing.T) {
	records := tree(t)
	exp := &exporter{}
	s := newSink(t, exp, otelexport.SinkOptions{})
	writeAll(t, s, records[:6])
	ctx := context.Background()
	require.NoError(t, s.Close(ctx))
	got := byName(exp.spans())
	require.Contains(t, got, "invoke_agent lead")
	require.Contains(t, got, "invoke_agent researcher")
	assert.Equal(t, at(5), got["invoke_agent lead"].EndTime(), "at its child's end, past its own last record")
	assert.Equal(t, otelexport.IncompleteType, attrs(got["invoke_agent lead"].Attributes())["error.type"].AsString())

	assert.ErrorIs(t, s.Write(ctx, &records[6]), recorder.ErrClosed)
	assert.ErrorIs(t, s.Flush(ctx), recorder.ErrClosed)
	assert.NoError(t, s.Close(ctx))
	assert.Equal(t, 1, exp.shutdown)
}

func TestAFailedExportIsReturnedAndItsSpansDropped(t *testing.T) {
	records := tree(t)
	boom := errors.New("collector down")
	exp := &exporter{err: boom}
	s := newSink(t, exp, otelexport.SinkOptions{ExportAfter: -1})
	writeAll(t, s, records[:3])
	err := s.Flush(context.Background())
	assert.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "exporting 1 spans")

	exp.mu.Lock()
	exp.err = nil
	exp.mu.Unlock()
	require.NoError(t, s.Flush(context.Background()))
	assert.Empty(t, exp.spans(), "the failed batch is not sent again")
}

func TestAWriteWithAnEndedContextKeepsTheRecordAndExportsLater(t *testing.T) {
	records := tree(t)
	exp := &exporter{}
	s := newSink(t, exp, otelexport.SinkOptions{BatchSize: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	writeAll(t, s, records[:2])
	require.NoError(t, s.Write(ctx, &records[2]))
	assert.Empty(t, exp.spans())
	require.NoError(t, s.Flush(context.Background()))
	assert.Len(t, exp.spans(), 1)
}

func TestNewSinkNeedsAnExporter(t *testing.T) {
	_, err := otelexport.NewSink(nil, nil)
	assert.ErrorIs(t, err, otelexport.ErrNoExporter)
}

func TestTheSinkWorksBehindARecorder(t *testing.T) {
	exp := &exporter{}
	s := newSink(t, exp, otelexport.SinkOptions{})
	ctx := context.Background()
	rec := recorder.New(s, &recorder.Options{Clock: ticking()})
	run, err := rec.StartRun(ctx, recorder.RunInfo{RunID: "r", AgentName: "a"})
	require.NoError(t, err)
	require.NoError(t, run.ToolStarted(ctx, recorder.ToolStarted{Name: "t"}))
	require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Name: "t"}))
	require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
	require.NoError(t, rec.Close(ctx))
	assert.Equal(t, []string{"execute_tool t", "invoke_agent a"}, names(exp.spans()))
	assert.Equal(t, 1, exp.shutdown)
}

// blocking is an exporter that says it has been called and waits for its
// ctx to end.
type blocking struct{ called chan struct{} }

func (b blocking) ExportSpans(ctx context.Context, _ []sdktrace.ReadOnlySpan) error {
	close(b.called)
	<-ctx.Done()
	return ctx.Err()
}
func (blocking) Shutdown(context.Context) error { return nil }

func TestAnExportThatHangsEndsWithTheWritesContext(t *testing.T) {
	records := tree(t)
	exp := blocking{called: make(chan struct{})}
	s := newSink(t, exp, otelexport.SinkOptions{BatchSize: 1})
	writeAll(t, s, records[:2])
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Write(ctx, &records[2]) }() // ends the first chat span: a batch is due
	<-exp.called
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
}

func TestOneSinkServesRecordersOnSeveralGoroutines(t *testing.T) {
	exp := &exporter{}
	s := newSink(t, exp, otelexport.SinkOptions{})
	ctx := context.Background()
	var wg sync.WaitGroup
	recs := make([]*recorder.Recorder, 4)
	for g := range recs {
		rec := recorder.New(s, &recorder.Options{Clock: ticking()})
		recs[g] = rec
		wg.Add(1)
		go func() {
			defer wg.Done()
			run, err := rec.StartRun(ctx, recorder.RunInfo{RunID: "run-" + string(rune('a'+g)), AgentName: "a"})
			if err != nil {
				t.Error(err)
				return
			}
			for range 50 {
				_ = run.ToolStarted(ctx, recorder.ToolStarted{Name: "t"})
				_ = run.ToolEnded(ctx, recorder.ToolEnded{Name: "t"})
			}
			_ = run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
			if err := rec.Flush(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, rec := range recs {
		require.NoError(t, rec.Close(ctx)) // the first closes the shared sink; the others find it closed
	}
	assert.Len(t, exp.spans(), 4*51)
	assert.Equal(t, 1, exp.shutdown)
}

func TestTheSinkExportsToolContentWhenAskedFor(t *testing.T) {
	records := tree(t)
	exp := &exporter{}
	s := newSink(t, exp, otelexport.SinkOptions{ToolContent: true})
	writeAll(t, s, records)
	require.NoError(t, s.Close(context.Background()))
	search := attrs(byName(exp.spans())["execute_tool search"].Attributes())
	assert.Equal(t, `{"q":"go release"}`, search["gen_ai.tool.call.arguments"].AsString())
}
