package lookoutadk_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/recorder"
)

// The workload of scripts/instructions, which counts its instructions
// under valgrind's callgrind. Each configuration runs LOOKOUT_RUNS
// queries of LOOKOUT_ITERATIONS model+tool iterations each (0: the model
// answers at once); the script runs it at two sizes and divides the
// difference, so that the process's start and the agents' building cancel
// out, and subtracts the do-nothing middleware's figure.
var instructionCases = map[string]func(tb testing.TB, w workload) *subject{
	// nothing is the do-nothing middleware, the baseline.
	"nothing": func(tb testing.TB, w workload) *subject { return newSubject(tb, nothingAgent, w, nil) },
	// floor: the essential work of Lookout's features and nothing more
	// (see essential), the least any middleware doing it could cost.
	"floor": func(tb testing.TB, w workload) *subject {
		m := scripted.New(w.turns()...).WithCapture(false)
		return &subject{agent: newAgent(tb, agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, bare: true, maxIter: w.maxIter, handlers: []adk.ChatModelAgentMiddleware{&essential{}}})}
	},
	// limits: limits on time, tokens and tool calls and the Resource
	// observer every 10 calls, no Recorder, the agent wrapped.
	"limits": func(tb testing.TB, w workload) *subject { return lookoutSubject(tb, w, nil, true) },
	// memory: the same, recording to a memory sink.
	"memory": func(tb testing.TB, w workload) *subject { return newSubject(tb, lookoutAgent, w, nil) },
	// jsonl: the same, recording to a JSONL file.
	"jsonl": func(tb testing.TB, w workload) *subject {
		sink, err := recorder.NewFileSink(filepath.Join(tb.TempDir(), "run.jsonl"), nil)
		if err != nil {
			tb.Fatal(err)
		}
		return newSubject(tb, lookoutAgent, w, sink)
	},
	// observers: the four built-in observers after every call, recording
	// to memory.
	"observers": func(tb testing.TB, w workload) *subject {
		rec := recorder.New(recorder.NewMemorySink(), &recorder.Options{QueueSize: recordingQueue(w)})
		cfg := overheadConfig(10)
		cfg.Recorder = rec
		every := observer.Trigger{OnEveryCall: true}
		cfg.Observers = []observer.Spec{
			{Observer: resource.New(), Trigger: every},
			{Observer: stall.New(), Trigger: every},
			{Observer: cascade.New(), Trigger: every},
			{Observer: drift.New(), Trigger: every},
		}
		mw, err := lookoutadk.New(context.Background(), cfg)
		if err != nil {
			tb.Fatal(err)
		}
		m := scripted.New(w.turns()...).WithCapture(false)
		agent := newAgent(tb, agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, bare: true, maxIter: w.maxIter, handlers: []adk.ChatModelAgentMiddleware{mw}})
		return &subject{agent: mw.Agent(agent), rec: rec}
	},
	// callbacks: the peer, a plain Eino callbacks handler that appends
	// every event to a slice.
	"callbacks": func(tb testing.TB, w workload) *subject { return newSubject(tb, callbacksAgent, w, nil) },
	// otel: the peer, OTel SDK tracing through an Eino callbacks handler,
	// a span per model and tool call.
	"otel": func(tb testing.TB, w workload) *subject {
		m := scripted.New(w.turns()...).WithCapture(false)
		h := newOtelHandler()
		agent := newAgent(tb, agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, bare: true, maxIter: w.maxIter})
		return &subject{agent: agent, opts: []adk.AgentRunOption{adk.WithCallbacks(h.build())}}
	},
}

// answers is the workload of n queries that the model answers at once.
func answers(n int) workload {
	return workload{
		turns:   func() []scripted.Turn { return []scripted.Turn{scripted.Repeat(n, scripted.Reply("done"))} },
		maxIter: 1,
	}
}

func TestInstructionWorkload(t *testing.T) {
	name := os.Getenv("LOOKOUT_INSTRUCTIONS")
	if name == "" {
		t.Skip("the workload of scripts/instructions: set LOOKOUT_INSTRUCTIONS")
	}
	build, ok := instructionCases[name]
	if !ok {
		t.Fatalf("no configuration %q", name)
	}
	iterations, err := strconv.Atoi(os.Getenv("LOOKOUT_ITERATIONS"))
	if err != nil {
		t.Fatal("LOOKOUT_ITERATIONS:", err)
	}
	runs, err := strconv.Atoi(os.Getenv("LOOKOUT_RUNS"))
	if err != nil {
		t.Fatal("LOOKOUT_RUNS:", err)
	}
	// Each query of LOOKOUT_ITERATIONS iterations runs on an agent of its
	// own; queries that answer at once (0 iterations) run one after the
	// other on one agent, as a program's queries do, so that the cost of
	// a run leaves out the building of the middleware and the agent.
	subjects := make([]*subject, runs)
	if iterations == 0 {
		one := build(t, answers(runs))
		for i := range subjects {
			subjects[i] = one
		}
	} else {
		for i := range subjects {
			subjects[i] = build(t, sequential(iterations))
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, s := range subjects {
		if err := s.run(context.Background()); err != nil {
			t.Fatal(err)
		}
		s.flush(t)
	}
	runtime.ReadMemStats(&after)
	for _, s := range slices.Compact(subjects) {
		s.close(t)
	}
	fmt.Printf("instruction-workload allocs %d\n", after.Mallocs-before.Mallocs)
}
