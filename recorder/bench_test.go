package recorder_test

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// smallResult is a typical short tool result: a little JSON, no secrets.
const smallResult = `{"files":["main.go","go.mod","README.md"],"count":3,"dir":"/src/billing-service"}`

// largeResult is a 4 KiB tool result, the default truncation size.
var largeResult = strings.Repeat(`{"line":"2025-06-01 INFO request served path=/v1/items status=200"}`+"\n", 4096/68)

// runLength is how many records a benchmarked run holds before the
// benchmark starts a new one with an empty memory sink.
const runLength = 10_000

func reportRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkRecorderMemorySink(b *testing.B) {
	for _, bc := range []struct {
		name   string
		opts   recorder.Options
		result string
	}{
		{"no redaction", recorder.Options{KeepSecrets: true, Clock: fixedClock}, smallResult},
		{"default redaction", recorder.Options{Clock: fixedClock}, smallResult},
		{"default redaction 4KiB result", recorder.Options{Clock: fixedClock}, largeResult},
		{"real clock default redaction", recorder.Options{}, smallResult},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchmarkEmit(b, func() recorder.Sink { return recorder.NewMemorySink() }, bc.opts, bc.result, true)
		})
	}
}

// benchmarkEmit measures the emitting side: stamping, redacting and
// handing a record to the queue. The options block, so no record is lost
// and the sink's pace shows once the queue is full. Each run of runLength
// records gets a fresh recorder and sink, so the numbers show the
// recorder, not the garbage collector scanning millions of records kept
// alive. Closing the old recorder is not timed: with drain it waits for
// the sink to take every record; without, it gives up at once and the
// records still queued are dropped unwritten, so a slow sink does not
// make the benchmark last for hours.
func benchmarkEmit(b *testing.B, newSink func() recorder.Sink, opts recorder.Options, result string, drain bool) {
	ctx := context.Background()
	opts.Block = true
	opts.BlockTimeout = time.Minute
	opts.OnError = func(context.Context, error) {}
	var rec *recorder.Recorder
	var run *recorder.Trace
	giveUp, cancel := context.WithCancel(ctx)
	cancel()
	closeRec := func() {
		if rec == nil {
			return
		}
		if drain {
			if err := rec.Close(ctx); err != nil {
				b.Fatal(err)
			}
			if rec.Dropped() != 0 {
				b.Fatalf("%d records dropped", rec.Dropped())
			}
			return
		}
		rec.Close(giveUp)
		rec.Close(ctx) // waits for the goroutine to exit
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%runLength == 0 {
			b.StopTimer()
			closeRec()
			rec = recorder.New(newSink(), &opts)
			run = rec.ResumeRun(recorder.RunInfo{RunID: "bench"}, 0)
			b.StartTimer()
		}
		if err := run.ToolEnded(ctx, recorder.ToolEnded{CallID: "c1", Name: "ls", Result: result, CallIndex: i}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	closeRec()
}

// slowSink takes a millisecond per write, like a sink on a remote store.
type slowSink struct{}

func (slowSink) Write(ctx context.Context, _ *recorder.Record) error {
	t := time.NewTimer(time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// BenchmarkRecorderSlowSink compares what the emitting side pays with a
// sink taking 1 ms per write and with the memory sink. The queue holds
// every record of a run, so the caller feels only the hand-off; closing
// each recorder, which waits for the slow sink, is not timed.
func BenchmarkRecorderSlowSink(b *testing.B) {
	opts := recorder.Options{Clock: fixedClock, QueueSize: runLength}
	b.Run("memory sink", func(b *testing.B) {
		benchmarkEmit(b, func() recorder.Sink { return recorder.NewMemorySink() }, opts, smallResult, false)
	})
	b.Run("1ms sink", func(b *testing.B) {
		benchmarkEmit(b, func() recorder.Sink { return slowSink{} }, opts, smallResult, false)
	})
}

func BenchmarkRecorderMemorySinkParallelRuns(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var rec *recorder.Recorder
		defer func() {
			if rec != nil {
				rec.Close(ctx)
			}
		}()
		var run *recorder.Trace
		for i := 0; pb.Next(); i++ {
			if i%runLength == 0 {
				if rec != nil {
					rec.Close(ctx)
				}
				rec = recorder.New(recorder.NewMemorySink(), &recorder.Options{Clock: fixedClock, Block: true, BlockTimeout: time.Minute})
				run = rec.ResumeRun(recorder.RunInfo{}, 0)
			}
			if err := run.ToolEnded(ctx, recorder.ToolEnded{CallID: "c1", Name: "ls", Result: smallResult, CallIndex: i}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkFileSink(b *testing.B) {
	ctx := context.Background()
	b.Run("sink write", func(b *testing.B) {
		s, err := recorder.NewFileSink(filepath.Join(b.TempDir(), "run.jsonl"), nil)
		if err != nil {
			b.Fatal(err)
		}
		r := recorder.Record{SchemaVersion: 1, RunID: "0b6f3d0e-5a5e-4c1b-9d51-2f7f9b1d2c3a", RecordedAt: t0}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			r.Seq = uint64(i)
			r.Payload = &recorder.ToolEnded{CallID: "c1", Name: "ls", Result: smallResult, ResultBytes: len(smallResult), CallIndex: i}
			if err := s.Write(ctx, &r); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Close(ctx); err != nil { // the rate includes writing everything out
			b.Fatal(err)
		}
		reportRate(b)
	})
	b.Run("through recorder", func(b *testing.B) {
		s, err := recorder.NewFileSink(filepath.Join(b.TempDir(), "run.jsonl"), nil)
		if err != nil {
			b.Fatal(err)
		}
		rec := recorder.New(s, &recorder.Options{Block: true, BlockTimeout: time.Minute})
		run := rec.ResumeRun(recorder.RunInfo{}, 0)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if err := run.ToolEnded(ctx, recorder.ToolEnded{CallID: "c1", Name: "ls", Result: smallResult, CallIndex: i}); err != nil {
				b.Fatal(err)
			}
		}
		if err := rec.Close(ctx); err != nil { // the rate includes writing everything out
			b.Fatal(err)
		}
		reportRate(b)
	})
}

func BenchmarkAppendJSON(b *testing.B) {
	r := recorder.Record{SchemaVersion: 1, RunID: "0b6f3d0e-5a5e-4c1b-9d51-2f7f9b1d2c3a", RecordedAt: t0,
		Payload: &recorder.ToolEnded{CallID: "c1", Name: "ls", Result: smallResult, ResultBytes: len(smallResult)}}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = r.AppendJSON(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReader(b *testing.B) {
	r := recorder.Record{SchemaVersion: 1, RunID: "0b6f3d0e-5a5e-4c1b-9d51-2f7f9b1d2c3a", RecordedAt: t0,
		Payload: &recorder.ToolEnded{CallID: "c1", Name: "ls", Result: smallResult, ResultBytes: len(smallResult)}}
	var data []byte
	for i := range 1000 {
		r.Seq = uint64(i)
		data, _ = r.AppendJSON(data)
		data = append(data, '\n')
	}
	b.SetBytes(int64(len(data)) / 1000)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if n%1000 == 0 {
			b.StopTimer()
			rd := bytes.NewReader(data)
			b.StartTimer()
			recs, _, err := recorder.ReadAll(rd)
			if err != nil || len(recs) != 1000 {
				b.Fatal(err)
			}
		}
		n++
	}
	reportRate(b)
}

func BenchmarkSecrets(b *testing.B) {
	withSecret := largeResult[:2000] + " api_key=abcdef0123456789 " + largeResult[2000:]
	for _, bc := range []struct{ name, in string }{
		{"small clean", smallResult},
		{"4KiB clean", largeResult},
		{"4KiB one secret", withSecret},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := recorder.Secrets()
			b.SetBytes(int64(len(bc.in)))
			b.ReportAllocs()
			for b.Loop() {
				_ = r.Redact(bc.in)
			}
		})
	}
}

// iterationRecords are the records of one model and tool call of an
// agent, as Lookout records them: the request with the assessment it
// injects, the response with its tool call, the budget charge and the
// tool call's start and end.
func iterationRecords(i int) []recorder.Payload {
	index := 0
	assessment := "## Trajectory Assessment\n\n_Generated after tool call #10_\n\n### Resources [info]\n\nYou have 59 minutes remaining before the deadline. You have used 755 of 1,099,511,627,776 tokens (0% of budget).\n"
	return []recorder.Payload{
		&recorder.ModelRequest{MessageCount: 2*i + 2, Tools: []string{"noop"}, Injected: []recorder.InjectedMessage{{Kind: recorder.InjectedAssessment, Role: "user", Content: assessment, AfterCallIndex: 10}}},
		&recorder.ModelResponse{
			Message: &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{Index: &index, ID: "call_" + strconv.Itoa(i), Type: "function", Function: schema.FunctionCall{Name: "noop", Arguments: "{}"}}},
				ResponseMeta: &schema.ResponseMeta{FinishReason: "tool_calls", Usage: &schema.TokenUsage{PromptTokens: 13*i + 15, CompletionTokens: 2, TotalTokens: 13*i + 17}},
				Extra:        map[string]any{"_eino_msg_id": "5a46244e-fd66-4239-94c8-c5336eadea59"}},
			Usage: recorder.TokenUsage{PromptTokens: int64(13*i + 15), CompletionTokens: 2, TotalTokens: int64(13*i + 17)}, UsageReported: true, FinishReason: "tool_calls", Latency: 1412,
		},
		&recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: int64(13*i + 17), Used: int64(7*i*i + 17), Limit: 1 << 40},
		&recorder.ToolStarted{CallID: "call_" + strconv.Itoa(i), Name: "noop", Arguments: "{}", ArgumentsBytes: 2, CallIndex: i},
		&recorder.ToolEnded{CallID: "call_" + strconv.Itoa(i), Name: "noop", Result: "noop ok {}", ResultBytes: 10, Duration: 811, CallIndex: i},
	}
}

// BenchmarkFileSinkAgentIteration measures a FileSink encoding the
// records of an agent's model and tool call.
func BenchmarkFileSinkAgentIteration(b *testing.B) {
	ctx := context.Background()
	s := recorder.NewWriterSink(io.Discard, nil)
	const iterations = 64
	var recs []recorder.Record
	for i := range iterations {
		for _, p := range iterationRecords(i) {
			recs = append(recs, recorder.Record{SchemaVersion: 1, Seq: uint64(len(recs)), RunID: "fbbeffbe-b0ef-440a-aa29-78510d945b1e",
				RecordedAt: t0.Add(time.Duration(len(recs)) * 31 * time.Microsecond), Payload: p})
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for j := range 5 {
			if err := s.Write(ctx, &recs[i%iterations*5+j]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
