package lookoutadk_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lookout-go/lookout"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
)

// loadQueries is how many queries run at once in the load test.
const loadQueries = 500

// loadCalls is how many tool calls each query of the load test makes
// before it answers.
const loadCalls = 4

// loadDuration is how long the load test keeps its queries coming:
// LOOKOUT_LOAD_DURATION (a time.ParseDuration string, "60s" say), or two
// seconds.
func loadDuration(t *testing.T) time.Duration {
	v := os.Getenv("LOOKOUT_LOAD_DURATION")
	if v == "" {
		return 2 * time.Second
	}
	d, err := time.ParseDuration(v)
	require.NoError(t, err, "LOOKOUT_LOAD_DURATION")
	return d
}

// loadQueue is the Recorder's queue in the load test:
// LOOKOUT_LOAD_QUEUE, or the default.
func loadQueue(t *testing.T) int {
	v := os.Getenv("LOOKOUT_LOAD_QUEUE")
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "LOOKOUT_LOAD_QUEUE")
	return n
}

// TestUnderLoadEveryRunHasItsStartAndItsEnd runs loadQueries queries at
// once, one after another on each of loadQueries goroutines, through the
// middleware on an ADK Runner and a scripted model with no latency, into
// one Recorder with a JSONL file, for loadDuration: the Recorder's
// goroutine cannot keep up, and records are lost. With the default policy
// and with Block, every run in the file still has its run_started and its
// run_ended, and each run's records are in seq order. The drops are
// logged by kind (go test -v).
//
//	LOOKOUT_LOAD_DURATION=60s go test -run UnderLoad -v -timeout 10m ./adapters/lookoutadk
//
// LOOKOUT_LOAD_QUEUE sets Options.QueueSize.
func TestUnderLoadEveryRunHasItsStartAndItsEnd(t *testing.T) {
	d := loadDuration(t)
	for _, block := range []bool{false, true} {
		name := map[bool]string{false: "drop policy", true: "block"}[block]
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "runs.jsonl")
			sink, err := recorder.NewFileSink(path, nil)
			require.NoError(t, err)
			var lost lossTally
			rec := recorder.New(sink, &recorder.Options{Block: block, QueueSize: loadQueue(t), OnError: lost.add})
			agent := loadAgent(t, rec)

			start := time.Now()
			queries := runUntil(agent, start.Add(d))
			took := time.Since(start)
			require.NoError(t, rec.Close(context.Background()))

			recs, tear, err := recorder.ReadFile(path)
			require.NoError(t, err)
			require.Nil(t, tear)
			runs := checkFramed(t, recs)
			require.Equal(t, queries, runs, "one run per query")
			t.Logf("%s, %v: %d queries (%.0f/s), %d records written, %d dropped (%.1f%%): %s",
				name, took.Round(time.Millisecond), queries, float64(queries)/took.Seconds(), len(recs), rec.Dropped(),
				100*float64(rec.Dropped())/float64(uint64(len(recs))+rec.Dropped()), lost.String())
		})
	}
}

// loadAgent returns the load test's agent: a ChatModelAgent with the
// middleware recording into rec, limits and the Resource observer every
// 10 calls, on a scripted model that calls a tool loadCalls times and then
// answers, whatever query it is in.
func loadAgent(t *testing.T, rec *recorder.Recorder) adk.Agent {
	t.Helper()
	mw, err := lookoutadk.New(context.Background(), &lookout.Config{
		Limits:    overheadLimits,
		Observers: []observer.Spec{{Observer: resource.New(), Trigger: observer.Trigger{EveryNCalls: 10}}},
		Recorder:  rec,
	})
	require.NoError(t, err)
	m := scripted.New(scripted.Forever(scripted.Func(func(_ context.Context, in []*schema.Message, _ *model.Options) (*schema.Message, error) {
		calls := 0
		for _, msg := range in {
			if msg.Role == schema.Tool {
				calls++
			}
		}
		if calls == loadCalls {
			return schema.AssistantMessage("done", nil), nil
		}
		return schema.AssistantMessage("", []schema.ToolCall{{Function: schema.FunctionCall{Name: "noop", Arguments: `{"path":"a/b.go"}`}}}), nil
	}))).WithCapture(false)
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, bare: true, maxIter: loadCalls + 1,
		handlers: []adk.ChatModelAgentMiddleware{mw}})
	return mw.Agent(agent)
}

// runUntil runs queries on agent, loadQueries at a time, until deadline,
// and returns how many ran.
func runUntil(agent adk.Agent, deadline time.Time) int {
	var wg sync.WaitGroup
	counts := make([]int, loadQueries)
	for i := range loadQueries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			for time.Now().Before(deadline) {
				drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go"))
				counts[i]++
			}
		}()
	}
	wg.Wait()
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// checkFramed checks that every run in recs starts with run_started,
// ends with run_ended, and has its records in seq order, and returns how
// many runs there are.
func checkFramed(t *testing.T, recs []recorder.Record) int {
	t.Helper()
	type seen struct {
		last           uint64
		records        int
		started, ended bool
	}
	runs := map[string]*seen{}
	for _, r := range recs {
		s := runs[r.RunID]
		if s == nil {
			s = &seen{}
			runs[r.RunID] = s
		}
		if s.records > 0 && r.Seq <= s.last {
			t.Fatalf("run %s: seq %d after %d", r.RunID, r.Seq, s.last)
		}
		if s.ended {
			t.Fatalf("run %s: %s after run_ended", r.RunID, r.Kind())
		}
		switch r.Kind() {
		case recorder.KindRunStarted:
			s.started = s.records == 0 && r.Seq == 0
		case recorder.KindRunEnded:
			s.ended = true
		}
		s.last = r.Seq
		s.records++
	}
	var unframed []string
	for id, s := range runs {
		if !s.started || !s.ended {
			unframed = append(unframed, id)
		}
	}
	require.Empty(t, unframed, "runs without run_started as seq 0 or without run_ended")
	return len(runs)
}

// lossTally counts lost records by kind, as the Recorder reports them.
type lossTally struct {
	mu     sync.Mutex
	byKind map[recorder.Kind]int
	other  int
}

func (l *lossTally) add(_ context.Context, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var se *recorder.SinkError
	if !errors.As(err, &se) {
		l.other++
		return
	}
	if l.byKind == nil {
		l.byKind = map[recorder.Kind]int{}
	}
	l.byKind[se.Kind]++
}

func (l *lossTally) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var parts []string
	for k, n := range l.byKind {
		parts = append(parts, string(k)+" "+strconv.Itoa(n))
	}
	sort.Strings(parts)
	if l.other > 0 {
		parts = append(parts, "other errors "+strconv.Itoa(l.other))
	}
	if len(parts) == 0 {
		return "none lost"
	}
	return strings.Join(parts, ", ")
}
