package lookoutadk_test

import (
	"context"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lookout-go/lookout"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
)

// The agents the side-by-side benchmarks compare. Each is the same
// ChatModelAgent on a scripted model with zero latency:
//
//   - bareAgent has no middleware;
//   - nothingAgent has a middleware that does nothing (an empty struct
//     embedding adk.BaseChatModelAgentMiddleware): Eino's handler
//     machinery, which any middleware pays for;
//   - callbacksAgent is bare, run with a plain Eino callbacks handler that
//     appends every event to a slice (appendingHandler): the floor of any
//     recorder built on callbacks;
//   - lookoutAgent has the whole of Lookout: limits on time, tokens and
//     tool calls, the Resource observer every 10 calls, a Recorder into a
//     memory sink, and the agent wrapped with Middleware.Agent so that the
//     run's end is recorded.
const (
	bareAgent = iota
	nothingAgent
	callbacksAgent
	lookoutAgent
	agentKinds
)

var kindNames = [agentKinds]string{"bare", "nothing", "callbacks", "lookout"}

// nothing is the do-nothing middleware.
type nothing struct {
	adk.BaseChatModelAgentMiddleware
}

// workload is what an agent's scripted model does in one run.
type workload struct {
	turns   func() []scripted.Turn
	maxIter int
}

// sequential makes n sequential tool calls, one per model call, and then
// answers.
func sequential(n int) workload {
	return workload{
		turns: func() []scripted.Turn {
			return []scripted.Turn{scripted.Repeat(n, scripted.Call("noop", "{}")), scripted.Reply("done")}
		},
		maxIter: n + 1,
	}
}

// parallel makes turns model calls of width parallel tool calls each, and
// then answers.
func parallel(turns, width int) workload {
	calls := make([]scripted.ToolCall, width)
	for i := range calls {
		calls[i] = scripted.ToolCall{Name: "noop", Arguments: `{"i":` + strconv.Itoa(i) + `}`}
	}
	return workload{
		turns: func() []scripted.Turn {
			return []scripted.Turn{scripted.Repeat(turns, scripted.Calls(calls...)), scripted.Reply("done")}
		},
		maxIter: turns + 1,
	}
}

// subject is one agent built for one run, with what the run needs.
type subject struct {
	agent   adk.Agent
	opts    []adk.AgentRunOption
	rec     *recorder.Recorder // Lookout's, nil for the others
	shared  bool               // rec records other subjects' runs too (see batchRecorder)
	sink    recorder.Sink
	handler *appendingHandler // the callbacks agent's
}

// recordingQueue returns the Recorder's queue for an agent doing w: room
// for every record of the run (a model+tool iteration makes five to
// eight, a run a few more) within 3/4 of it, where the records shed first
// are refused, so that none is dropped however far the Recorder's
// goroutine falls behind on a busy machine, and the default when that is
// enough. The queue grows only as far as records wait, so the bound costs
// nothing while the goroutine keeps up.
func recordingQueue(w workload) int {
	return max(recorder.DefaultQueueSize, 8*w.maxIter*4/3)
}

// newSubject builds an agent of the given kind doing w. A Lookout subject
// records into sink, a new memory sink when sink is nil.
func newSubject(tb testing.TB, kind int, w workload, sink recorder.Sink) *subject {
	tb.Helper()
	m := scripted.New(w.turns()...).WithCapture(false)
	s := &subject{}
	spec := agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, bare: true, maxIter: w.maxIter}
	switch kind {
	case nothingAgent:
		spec.handlers = []adk.ChatModelAgentMiddleware{&nothing{}}
	case callbacksAgent:
		s.handler = &appendingHandler{}
		s.opts = []adk.AgentRunOption{adk.WithCallbacks(s.handler.build())}
	case lookoutAgent:
		if sink == nil {
			sink = recorder.NewMemorySink()
		}
		return lookoutSubject(tb, w, sink, true)
	}
	s.agent = newAgent(tb, spec)
	return s
}

// lookoutSubject builds Lookout's agent doing w: recording into sink
// unless it is nil, and wrapped by Middleware.Agent when wrapped is true.
func lookoutSubject(tb testing.TB, w workload, sink recorder.Sink, wrapped bool) *subject {
	tb.Helper()
	var rec *recorder.Recorder
	if sink != nil {
		rec = recorder.New(sink, &recorder.Options{QueueSize: recordingQueue(w)})
	}
	s := lookoutOn(tb, w, rec, wrapped)
	s.sink = sink
	return s
}

// lookoutOn builds Lookout's agent doing w, recording through rec unless
// it is nil, and wrapped by Middleware.Agent when wrapped is true.
func lookoutOn(tb testing.TB, w workload, rec *recorder.Recorder, wrapped bool) *subject {
	tb.Helper()
	s := &subject{rec: rec}
	cfg := overheadConfig(10)
	if rec != nil {
		cfg.Recorder = rec
	}
	mw, err := lookoutadk.New(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	m := scripted.New(w.turns()...).WithCapture(false)
	spec := agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, bare: true, maxIter: w.maxIter, handlers: []adk.ChatModelAgentMiddleware{mw}}
	s.agent = newAgent(tb, spec)
	if wrapped {
		s.agent = mw.Agent(s.agent)
	}
	return s
}

// run runs the subject's query to its last event.
func (s *subject) run(ctx context.Context) error {
	o := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: s.agent}).Query(ctx, "go", s.opts...))
	if s.handler != nil {
		s.handler.wait()
	}
	return o.err
}

// flush waits until the Recorder has handed every queued record to the
// sink.
func (s *subject) flush(tb testing.TB) {
	if s.rec == nil {
		return
	}
	if err := s.rec.Flush(context.Background()); err != nil {
		tb.Fatal(err)
	}
}

// close closes the subject's Recorder and returns how many records it
// dropped; a Recorder shared with other subjects is only flushed, and its
// batchRecorder counts what it dropped.
func (s *subject) close(tb testing.TB) uint64 {
	if s.rec == nil {
		return 0
	}
	if s.shared {
		s.flush(tb)
		return 0
	}
	if err := s.rec.Close(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return s.rec.Dropped()
}

// measured is what one run of a subject took.
type measured struct {
	took   time.Duration
	allocs uint64 // heap allocations, the Recorder's goroutine included
	gcs    uint32 // garbage collections that began during the run
}

// measure runs s once after a garbage collection, so that it does not pay
// for the garbage of the run before. The time is the Runner's, from the
// query to its last event; the allocations also count what the Recorder
// allocates delivering the run's records.
func measure(b *testing.B, s *subject) measured {
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := s.run(ctx)
	took := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	s.flush(b)
	runtime.ReadMemStats(&after)
	return measured{took: took, allocs: after.Mallocs - before.Mallocs, gcs: after.NumGC - before.NumGC}
}

// BenchmarkMiddlewareOverhead holds the gates on the cost of a model+tool
// iteration. Every benchmark iteration runs the four agents (bareAgent and
// the others), each making agentCalls sequential tool calls, one after
// the other, rotating their order so none always runs first, and each
// after a garbage collection. Pairing the runs of one iteration cancels
// most of the drift of a shared machine; the figures are medians over the
// iterations of the per-iteration differences:
//
//   - us-above-nothing/iter and allocs-above-nothing/iter: what Lookout
//     adds to one iteration (a model call and a tool call) over the
//     do-nothing middleware (targets: 2 µs and 4 allocations);
//   - us-above-bare/iter: what it adds over the bare agent;
//   - callbacks-us-above-bare/iter and callbacks-allocs-above-bare/iter:
//     what the appending callbacks handler adds over the bare agent;
//   - lookout-per-callbacks: Lookout's added cost over bare divided by the
//     handler's (target: at most 0.25);
//   - ratio-to-bare: Lookout's run time over bare's, tracked, not gated;
//   - <agent>-gcs/run: the garbage collections that began during each
//     agent's run, which decide much of its time on two cores;
//   - dropped-records: records the Recorder lost (expected 0).
func BenchmarkMiddlewareOverhead(b *testing.B) {
	var took [agentKinds][]float64 // µs per iteration
	var allocs, gcs [agentKinds][]float64
	var aboveNothing, aboveBare, callbacksAboveBare, ratio []float64
	var allocsAboveNothing, callbacksAllocsAboveBare []float64
	var dropped uint64
	w := sequential(agentCalls)
	b.ReportAllocs()
	for i := range b.N {
		var m [agentKinds]measured
		for j := range agentKinds {
			kind := (i + j) % agentKinds
			s := newSubject(b, kind, w, nil)
			m[kind] = measure(b, s)
			dropped += s.close(b)
		}
		for k := range agentKinds {
			took[k] = append(took[k], perCall(m[k].took))
			allocs[k] = append(allocs[k], float64(m[k].allocs)/agentCalls)
			gcs[k] = append(gcs[k], float64(m[k].gcs))
		}
		aboveNothing = append(aboveNothing, perCall(m[lookoutAgent].took-m[nothingAgent].took))
		aboveBare = append(aboveBare, perCall(m[lookoutAgent].took-m[bareAgent].took))
		callbacksAboveBare = append(callbacksAboveBare, perCall(m[callbacksAgent].took-m[bareAgent].took))
		ratio = append(ratio, float64(m[lookoutAgent].took)/float64(m[bareAgent].took))
		allocsAboveNothing = append(allocsAboveNothing, (float64(m[lookoutAgent].allocs)-float64(m[nothingAgent].allocs))/agentCalls)
		callbacksAllocsAboveBare = append(callbacksAllocsAboveBare, (float64(m[callbacksAgent].allocs)-float64(m[bareAgent].allocs))/agentCalls)
	}
	for k := range agentKinds {
		b.ReportMetric(median(took[k]), kindNames[k]+"-us/iter")
		b.ReportMetric(median(gcs[k]), kindNames[k]+"-gcs/run")
	}
	b.ReportMetric(median(allocs[lookoutAgent]), "lookout-allocs/iter")
	b.ReportMetric(median(aboveNothing), "us-above-nothing/iter")
	b.ReportMetric(median(allocsAboveNothing), "allocs-above-nothing/iter")
	b.ReportMetric(median(aboveBare), "us-above-bare/iter")
	b.ReportMetric(median(callbacksAboveBare), "callbacks-us-above-bare/iter")
	b.ReportMetric(median(callbacksAllocsAboveBare), "callbacks-allocs-above-bare/iter")
	b.ReportMetric(median(aboveBare)/median(callbacksAboveBare), "lookout-per-callbacks")
	b.ReportMetric(median(ratio), "ratio-to-bare")
	b.ReportMetric(float64(dropped), "dropped-records")
}

// perCall is d spread over the agentCalls iterations of a run, in µs.
func perCall(d time.Duration) float64 {
	return float64(d.Nanoseconds()) / agentCalls / 1e3
}

// fixedRuns is how many runs of each agent BenchmarkRunFixedCost times
// back to back in each iteration: one run is tens of µs, too short to
// time alone on a noisy machine.
const fixedRuns = 25

// oneAnswer is a run with no tool call: one model call that answers.
var oneAnswer = sequential(0)

// BenchmarkRunFixedCost holds the gate on the fixed cost of a run: one
// model call that answers at once, no tool call. Every benchmark iteration
// times fixedRuns runs of each of the four agents back to back, rotating
// the agents' order, after a garbage collection, and reports the medians
// of the per-run figures: each agent's time (bare-us/run and so on),
// Lookout's time and allocations above the do-nothing middleware
// (us-above-nothing/run, target 10 µs; allocs-above-nothing/run), and the
// callbacks handler's time above bare. Lookout's runs of one batch share
// a Recorder (batchRecorder); BenchmarkRunFixedCostFreshRecorder makes
// one per run.
func BenchmarkRunFixedCost(b *testing.B) {
	br := newBatchRecorder(b)
	builders := make([]func(*testing.B) *subject, agentKinds)
	for k := range agentKinds {
		builders[k] = func(b *testing.B) *subject { return newSubject(b, k, oneAnswer, nil) }
	}
	builders[lookoutAgent] = func(b *testing.B) *subject { return br.subject(b, oneAnswer, true) }
	took, allocs := fixedCosts(b, builders)
	for k := range agentKinds {
		b.ReportMetric(median(took[k]), kindNames[k]+"-us/run")
	}
	b.ReportMetric(median(differences(took[lookoutAgent], took[nothingAgent])), "us-above-nothing/run")
	b.ReportMetric(median(differences(allocs[lookoutAgent], allocs[nothingAgent])), "allocs-above-nothing/run")
	b.ReportMetric(median(differences(took[callbacksAgent], took[bareAgent])), "callbacks-us-above-bare/run")
}

// BenchmarkRunFixedCostFreshRecorder is BenchmarkRunFixedCost for a
// program that runs one query and exits: Lookout's every run records
// through a Recorder made for it, and pays for starting it (its
// goroutine, its first wake-up). It compares that agent with the
// do-nothing middleware only: the goroutines of a batch's Recorders,
// still lingering, would slow the batches of other agents after it.
func BenchmarkRunFixedCostFreshRecorder(b *testing.B) {
	builders := []func(*testing.B) *subject{
		func(b *testing.B) *subject { return newSubject(b, nothingAgent, oneAnswer, nil) },
		func(b *testing.B) *subject { return newSubject(b, lookoutAgent, oneAnswer, nil) },
	}
	took, allocs := fixedCosts(b, builders)
	b.ReportMetric(median(differences(took[1], took[0])), "us-above-nothing/run")
	b.ReportMetric(median(differences(allocs[1], allocs[0])), "allocs-above-nothing/run")
}

// batchRecorder gives the Lookout subjects of BenchmarkRunFixedCost one
// Recorder for every fixedRuns of them, the runs fixedCosts times back to
// back, as a program keeps one Recorder from query to query: a run's
// fixed cost is then what the run adds, not what starting a Recorder
// (its goroutine, its first wake-up) costs, which
// BenchmarkRunFixedCostFreshRecorder shows. A Recorder that drops a
// record fails the benchmark.
type batchRecorder struct {
	rec  *recorder.Recorder
	made int
}

func newBatchRecorder(b *testing.B) *batchRecorder {
	br := &batchRecorder{}
	b.Cleanup(func() { br.close(b) })
	return br
}

// subject builds a wrapped or unwrapped Lookout subject doing w on the
// batch's Recorder, making the next Recorder every fixedRuns subjects.
func (br *batchRecorder) subject(b *testing.B, w workload, wrapped bool) *subject {
	if br.made%fixedRuns == 0 {
		br.close(b)
		br.rec = recorder.New(recorder.NewMemorySink(), &recorder.Options{QueueSize: recordingQueue(w)})
	}
	br.made++
	s := lookoutOn(b, w, br.rec, wrapped)
	s.shared = true
	return s
}

func (br *batchRecorder) close(b *testing.B) {
	if br.rec == nil {
		return
	}
	if err := br.rec.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
	if n := br.rec.Dropped(); n > 0 {
		b.Fatalf("the Recorder dropped %d records", n)
	}
	br.rec = nil
}

// BenchmarkRunFixedCostByPart splits Lookout's fixed cost of a run, as
// BenchmarkRunFixedCost measures it, between its parts: it reports each
// one's time and allocations per run above the do-nothing middleware,
// for Lookout alone ("plain": limits and the observer), with the
// Recorder ("recorded"), and with the Recorder and the agent wrapper
// ("lookout", the whole), the Recorders shared as batchRecorder shares
// them.
func BenchmarkRunFixedCostByPart(b *testing.B) {
	recorded, wrapped := newBatchRecorder(b), newBatchRecorder(b)
	builders := []func(*testing.B) *subject{
		func(b *testing.B) *subject { return newSubject(b, nothingAgent, oneAnswer, nil) },
		func(b *testing.B) *subject { return lookoutSubject(b, oneAnswer, nil, false) },
		func(b *testing.B) *subject { return recorded.subject(b, oneAnswer, false) },
		func(b *testing.B) *subject { return wrapped.subject(b, oneAnswer, true) },
	}
	took, allocs := fixedCosts(b, builders)
	for k, name := range []string{"plain", "recorded", "lookout"} {
		b.ReportMetric(median(differences(took[k+1], took[0])), name+"-us-above-nothing/run")
		b.ReportMetric(median(differences(allocs[k+1], allocs[0])), name+"-allocs-above-nothing/run")
	}
}

// fixedCosts times, in every benchmark iteration, fixedRuns runs of a
// subject of each builder back to back, rotating the builders' order,
// after a garbage collection, and returns the time (µs) and allocations
// of one run, per builder and iteration. The allocations count those of
// the Recorders delivering the runs' records.
func fixedCosts(b *testing.B, builders []func(*testing.B) *subject) (took, allocs [][]float64) {
	took = make([][]float64, len(builders))
	allocs = make([][]float64, len(builders))
	var dropped uint64
	ctx := context.Background()
	b.ReportAllocs()
	for i := range b.N {
		for j := range builders {
			k := (i + j) % len(builders)
			subjects := make([]*subject, fixedRuns)
			for r := range subjects {
				subjects[r] = builders[k](b)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			for _, s := range subjects {
				if err := s.run(ctx); err != nil {
					b.Fatal(err)
				}
			}
			d := time.Since(start)
			for _, s := range subjects {
				s.flush(b)
			}
			runtime.ReadMemStats(&after)
			took[k] = append(took[k], float64(d.Nanoseconds())/1e3/fixedRuns)
			allocs[k] = append(allocs[k], float64(after.Mallocs-before.Mallocs)/fixedRuns)
			for _, s := range subjects {
				dropped += s.close(b)
			}
		}
	}
	b.ReportMetric(float64(dropped), "dropped-records")
	return took, allocs
}

// differences returns a[i] - b[i] for each i.
func differences(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
}

// slowSink is a memory sink whose every Write takes a millisecond, the
// latency of a remote store.
type slowSink struct {
	*recorder.MemorySink
}

func (s slowSink) Write(ctx context.Context, r *recorder.Record) error {
	t := time.NewTimer(time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.MemorySink.Write(ctx, r)
}

// BenchmarkSlowSink shows that a slow sink does not slow the agent: the
// Recorder's goroutine waits for the sink, the agent only queues. Every
// benchmark iteration runs Lookout's agent twice, recording into the
// memory sink and into slowSink (1 ms per Write), in rotating order after
// a garbage collection; the model makes slowTurns turns of slowWidth
// parallel tool calls. The time is the Runner's, from the query to its
// last event; the Recorder is closed, writing out its queue, after it.
// It reports the medians of both runs' times (memory-us/run,
// slow-us/run), their difference (slow-minus-memory-us/run), both spread
// over the run's records (memory-ns/record, slow-ns/record), the records
// per run, and the records dropped (expected 0: the queue holds a run).
func BenchmarkSlowSink(b *testing.B) {
	const slowTurns, slowWidth = 2, 64
	var took [2][]float64
	var diff []float64
	var records, dropped uint64
	w := parallel(slowTurns, slowWidth)
	ctx := context.Background()
	b.ReportAllocs()
	for i := range b.N {
		var d [2]time.Duration // memory, slow
		for j := range 2 {
			k := (i + j) % 2
			slow := k == 1
			mem := recorder.NewMemorySink()
			var sink recorder.Sink = mem
			if slow {
				sink = slowSink{mem}
			}
			s := newSubject(b, lookoutAgent, w, sink)
			runtime.GC()
			start := time.Now()
			if err := s.run(ctx); err != nil {
				b.Fatal(err)
			}
			d[k] = time.Since(start)
			dropped += s.close(b)
			records = uint64(mem.Len())
		}
		for k := range 2 {
			took[k] = append(took[k], float64(d[k].Nanoseconds())/1e3)
		}
		diff = append(diff, float64((d[1]-d[0]).Nanoseconds())/1e3)
	}
	b.ReportMetric(median(took[0]), "memory-us/run")
	b.ReportMetric(median(took[1]), "slow-us/run")
	b.ReportMetric(median(diff), "slow-minus-memory-us/run")
	b.ReportMetric(median(took[0])*1e3/float64(records), "memory-ns/record")
	b.ReportMetric(median(took[1])*1e3/float64(records), "slow-ns/record")
	b.ReportMetric(float64(records), "records/run")
	b.ReportMetric(float64(dropped), "dropped-records")
}

// appendingHandler is a plain Eino callbacks handler that appends every
// event to a slice: the least a recorder built on callbacks does. It
// closes the stream copies it is given, and reads its copy of each
// agent's events to the end, appending each.
type appendingHandler struct {
	mu     sync.Mutex
	events []callbackEvent
	agents sync.WaitGroup
}

type callbackEvent struct {
	info    *callbacks.RunInfo
	timing  callbacks.CallbackTiming
	payload any
}

func (h *appendingHandler) add(info *callbacks.RunInfo, timing callbacks.CallbackTiming, payload any) {
	h.mu.Lock()
	h.events = append(h.events, callbackEvent{info: info, timing: timing, payload: payload})
	h.mu.Unlock()
}

func (h *appendingHandler) build() callbacks.Handler {
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, info *callbacks.RunInfo, in callbacks.CallbackInput) context.Context {
			h.add(info, callbacks.TimingOnStart, in)
			return ctx
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			h.add(info, callbacks.TimingOnEnd, out)
			if o, ok := out.(*adk.AgentCallbackOutput); ok && o.Events != nil {
				h.agents.Add(1)
				go func() {
					defer h.agents.Done()
					for {
						ev, ok := o.Events.Next()
						if !ok {
							return
						}
						h.add(info, callbacks.TimingOnEnd, ev)
					}
				}()
			}
			return ctx
		}).
		OnErrorFn(func(ctx context.Context, info *callbacks.RunInfo, err error) context.Context {
			h.add(info, callbacks.TimingOnError, err)
			return ctx
		}).
		OnStartWithStreamInputFn(func(ctx context.Context, info *callbacks.RunInfo, in *schema.StreamReader[callbacks.CallbackInput]) context.Context {
			h.add(info, callbacks.TimingOnStartWithStreamInput, nil)
			in.Close()
			return ctx
		}).
		OnEndWithStreamOutputFn(func(ctx context.Context, info *callbacks.RunInfo, out *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
			h.add(info, callbacks.TimingOnEndWithStreamOutput, nil)
			out.Close()
			return ctx
		}).
		Build()
}

// wait waits until the handler has read every agent's events.
func (h *appendingHandler) wait() { h.agents.Wait() }

// overheadConfig is Lookout's configuration in the benchmarks, without a
// Recorder: limits on time, tokens and tool calls, and the Resource
// observer every `every` calls or after 3 consecutive errors.
func overheadConfig(every int) *lookout.Config {
	return &lookout.Config{
		Limits: overheadLimits,
		Observers: []observer.Spec{{
			Observer: resource.New(),
			Trigger:  observer.Trigger{EveryNCalls: every, AfterConsecutiveErrors: 3},
		}},
	}
}

// lookoutAgentWith is the agent of BenchmarkHooksInAgent: Lookout as
// configured by overheadConfig(every), without a Recorder or the agent
// wrapper, passed through wrap.
func lookoutAgentWith(b *testing.B, every int, wrap func(adk.ChatModelAgentMiddleware) adk.ChatModelAgentMiddleware) adk.Agent {
	mw, err := lookoutadk.New(context.Background(), overheadConfig(every))
	if err != nil {
		b.Fatal(err)
	}
	return scriptedAgent(b, wrap(mw))
}

// scriptedAgent returns an agent making agentCalls sequential tool calls,
// with handlers as its middleware.
func scriptedAgent(b *testing.B, handlers ...adk.ChatModelAgentMiddleware) adk.Agent {
	m := scripted.New(sequential(agentCalls).turns()...).WithCapture(false)
	return newAgent(b, agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, bare: true, handlers: handlers, maxIter: agentCalls + 1})
}

// agentCalls is how many tool calls the benchmarks' agent makes, each
// after a model call.
const agentCalls = 1000

// timedRun builds a subject with build and runs it to the end after a
// garbage collection, and returns how long the run took.
func timedRun(b *testing.B, build func(*testing.B) *subject) time.Duration {
	b.StopTimer()
	s := build(b)
	ctx := context.Background()
	runtime.GC()
	b.StartTimer()
	start := time.Now()
	err := s.run(ctx)
	elapsed := time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	s.close(b)
	b.StartTimer()
	return elapsed
}

// plain is a subject of an agent alone.
func plain(a adk.Agent) *subject { return &subject{agent: a} }

// BenchmarkAgentRun runs one of BenchmarkOverheadByConfig's agents per
// sub-benchmark ("bare", "nothing" and "lookout" are BenchmarkMiddlewareOverhead's),
// for profilers and for counting what a run executes. Under cachegrind (see
// docs/performance.md) the difference between two of them is what the
// middleware's parts cost, counted exactly: instructions, and
// instruction-cache misses, which are what that cost mostly is inside an
// agent.
func BenchmarkAgentRun(b *testing.B) {
	for _, c := range breakdown {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				timedRun(b, c.agent)
			}
		})
	}
}

// BenchmarkHooksInAgent times Lookout's hooks inside the agent of
// BenchmarkMiddlewareOverhead, without its Recorder and agent wrapper, where they run with the CPU caches holding
// Eino's code and data rather than their own. A wrapping middleware
// times each hook, leaving out the model and the tool it calls, and
// reports per iteration (one model call and one tool call): the state
// rewrite before the model call, the model wrapper, the tool wrapper,
// their sum, and the whole iteration. "every-10" has the Resource
// observer every 10 calls, as BenchmarkMiddlewareOverhead does; "quiet"
// never runs it. The difference is what running the observer, showing
// its block and tracking the reaction costs, spread over 10 iterations.
// The timing itself reads the clock six times per iteration, about
// 0.3 µs.
func BenchmarkHooksInAgent(b *testing.B) {
	for _, every := range []int{10, observer.MaxTriggerCalls} {
		name := "every-10"
		if every != 10 {
			name = "quiet"
		}
		b.Run(name, func(b *testing.B) {
			var t hookTimes
			var wall time.Duration
			for range b.N {
				b.StopTimer()
				agent := lookoutAgentWith(b, every, func(mw adk.ChatModelAgentMiddleware) adk.ChatModelAgentMiddleware {
					return &timedHooks{ChatModelAgentMiddleware: mw, t: &t}
				})
				ctx := context.Background()
				runtime.GC()
				b.StartTimer()
				start := time.Now()
				if o := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")); o.err != nil {
					b.Fatal(o.err)
				}
				wall += time.Since(start)
			}
			n := float64(b.N) * agentCalls
			b.ReportMetric(float64(t.before)/n, "before-ns/iter")
			b.ReportMetric(float64(t.model)/n, "model-ns/iter")
			b.ReportMetric(float64(t.tool)/n, "tool-ns/iter")
			b.ReportMetric(float64(t.before+t.model+t.tool)/n, "hooks-ns/iter")
			b.ReportMetric(float64(wall)/n, "wall-ns/iter")
		})
	}
}

// hookTimes accumulates the time spent in each kind of hook. The agent
// makes one call at a time, so no lock is needed.
type hookTimes struct {
	before, model, tool time.Duration
}

// timedHooks times the hooks of the middleware it wraps.
type timedHooks struct {
	adk.ChatModelAgentMiddleware
	t *hookTimes
}

func (h *timedHooks) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, mc *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	start := time.Now()
	ctx, state, err := h.ChatModelAgentMiddleware.BeforeModelRewriteState(ctx, state, mc)
	h.t.before += time.Since(start)
	return ctx, state, err
}

func (h *timedHooks) WrapModel(ctx context.Context, inner model.BaseChatModel, mc *adk.ModelContext) (model.BaseChatModel, error) {
	start := time.Now()
	tm := &timedModel{t: h.t}
	var err error
	tm.wrapped, err = h.ChatModelAgentMiddleware.WrapModel(ctx, timedInner{m: inner, spent: &tm.inside}, mc)
	h.t.model += time.Since(start)
	return tm, err
}

func (h *timedHooks) WrapInvokableToolCall(ctx context.Context, next adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	start := time.Now()
	var inside time.Duration
	wrapped, err := h.ChatModelAgentMiddleware.WrapInvokableToolCall(ctx, func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		start := time.Now()
		out, err := next(ctx, args, opts...)
		inside += time.Since(start)
		return out, err
	}, tc)
	h.t.tool += time.Since(start)
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		start := time.Now()
		out, err := wrapped(ctx, args, opts...)
		h.t.tool += time.Since(start) - inside
		return out, err
	}, err
}

// timedModel is the model Lookout's wrapper returned, timed without the
// model it wraps.
type timedModel struct {
	t       *hookTimes
	wrapped model.BaseChatModel
	inside  time.Duration
}

func (m *timedModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	start := time.Now()
	out, err := m.wrapped.Generate(ctx, input, opts...)
	m.t.model += time.Since(start) - m.inside
	return out, err
}

func (m *timedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return m.wrapped.Stream(ctx, input, opts...)
}

// timedInner is the model Lookout wraps, measuring its own time.
type timedInner struct {
	m     model.BaseChatModel
	spent *time.Duration
}

func (m timedInner) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	start := time.Now()
	out, err := m.m.Generate(ctx, input, opts...)
	*m.spent += time.Since(start)
	return out, err
}

func (m timedInner) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return m.m.Stream(ctx, input, opts...)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// BenchmarkHooks calls the middleware's hooks for one model call and one
// tool call, as an agent's iteration does, without Eino or a model: the
// state rewrite, the charging model wrapper and the tool wrapper, with the
// Resource observer every 10 calls and limits on time, tokens and tool
// calls. "warm" runs them back to back, so their code and data stay in the
// CPU caches; "cold" first walks 8 MiB of memory, as an agent's own work
// between hooks does, and reports only the hooks' time as hook-ns/op.
// The gap between the two is the cost of cache misses, which is most of
// what the middleware adds inside a real agent (BenchmarkMiddlewareOverhead).
func BenchmarkHooks(b *testing.B) {
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			cfg := overheadConfig(10)
			// Outside an agent's graph the session cannot be registered
			// for checkpoints; that is expected here.
			cfg.OnError = func(context.Context, error) {}
			mw, err := lookoutadk.New(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			ctx, _, err = mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{})
			if err != nil {
				b.Fatal(err)
			}
			reply := &schema.Message{Role: schema.Assistant,
				ToolCalls:    []schema.ToolCall{{ID: "call", Function: schema.FunctionCall{Name: "noop", Arguments: "{}"}}},
				ResponseMeta: &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 100, CompletionTokens: 5, TotalTokens: 105}}}
			result := schema.ToolMessage("{}", "call")
			model := fixedModel{reply}
			tc := &adk.ToolContext{Name: "noop", CallID: "call"}
			run := func(_ context.Context, args string, _ ...tool.Option) (string, error) { return args, nil }
			state := &adk.ChatModelAgentState{Messages: make([]*schema.Message, 1, 4096)}
			state.Messages[0] = schema.UserMessage("go")
			memory := make([]byte, 8<<20)
			var hooks time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if cold {
					for i := 0; i < len(memory); i += 64 {
						memory[i]++
					}
				}
				if len(state.Messages) > 4000 {
					state.Messages = state.Messages[:1]
				}
				start := time.Now()
				_, st, err := mw.BeforeModelRewriteState(ctx, state, nil)
				if err != nil {
					b.Fatal(err)
				}
				state = st
				m, _ := mw.WrapModel(ctx, model, nil)
				out, _ := m.Generate(ctx, state.Messages)
				state.Messages = append(state.Messages, out)
				call, _ := mw.WrapInvokableToolCall(ctx, run, tc)
				if _, err := call(ctx, "{}"); err != nil {
					b.Fatal(err)
				}
				state.Messages = append(state.Messages, result)
				hooks += time.Since(start)
			}
			b.ReportMetric(float64(hooks.Nanoseconds())/float64(b.N), "hook-ns/op")
		})
	}
}

// fixedModel answers every call with the same message.
type fixedModel struct{ reply *schema.Message }

func (m fixedModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return m.reply, nil
}

func (m fixedModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return schema.StreamReaderFromArray([]*schema.Message{m.reply}), nil
}
