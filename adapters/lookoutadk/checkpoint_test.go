package lookoutadk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lookout-go/lookout"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
	"github.com/lookout-go/lookout/session"
)

// memStore is an in-memory adk CheckPointStore.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *memStore) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[id] = append([]byte(nil), b...)
	return nil
}

// TestResumeKeepsTheSessionSlices interrupts a run and resumes it. The
// agent's wrapper sees the interrupted run's events end; the interrupted
// run is paused, not ended, so it must not record an end, and it releases
// the paused run's deadline.
func TestResumeKeepsTheSessionSlices(t *testing.T) {
	var opts []adk.AgentRunOption
	m := scripted.New(
		scripted.Call("prep", `{"step":1}`).WithUsage(100, 10),
		scripted.Call("approve", `{"change":"deploy"}`).WithUsage(200, 20),
		scripted.Reply("deployed").WithUsage(300, 30),
	)
	var resumed *session.Store
	var paused context.Context
	approve := fnTool{Name: "approve", Fn: func(ctx context.Context, _ string) (string, error) {
		if interrupted, _, _ := tool.GetInterruptState[any](ctx); !interrupted {
			paused = ctx
			return "", tool.Interrupt(ctx, "needs a human")
		}
		resumed, _ = lookoutadk.Session(ctx)
		return "approved", nil
	}}
	sink := recorder.NewMemorySink()
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("prep"), approve}, cfg: &lookout.Config{
		Recorder:  adaptertest.NewRecorder(t, sink, nil),
		Limits:    budget.Limits{MaxTokens: 10_000, Timeout: time.Hour},
		Observers: everyCall(),
		OnError:   func(_ context.Context, err error) { t.Errorf("lookout error: %v", err) },
	}})
	ctx := context.Background()
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: &memStore{}})

	first := drain(runner.Query(ctx, "deploy it", append(opts, adk.WithCheckPointID("c1"))...))
	require.NoError(t, first.err)
	last := first.events[len(first.events)-1]
	require.NotNil(t, last.Action, "the run stopped at the interrupt")
	require.NotNil(t, last.Action.Interrupted)
	// The wrapper releases the paused run's deadline once the run's
	// events end.
	select {
	case <-paused.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the wrapper did not release the paused run's deadline")
	}

	// Resume on a fresh ctx: the session must come back from the
	// checkpoint, not from anything kept in memory.
	iter, err := runner.Resume(context.Background(), "c1", opts...)
	require.NoError(t, err)
	second := drain(iter)
	require.NoError(t, second.err)
	require.NotNil(t, resumed)

	var tools []string
	for _, rec := range session.LogOf[observer.ToolCallRecord](resumed).All() {
		tools = append(tools, rec.ToolName)
	}
	assert.Equal(t, []string{"prep", "approve"}, tools, "the call made before the interrupt survived")
	b, _ := session.ValueOf[budget.Budget](resumed).Latest()
	assert.Equal(t, int64(3), b.ModelCalls, "usage from before the interrupt survived")
	assert.Equal(t, int64(100+10+200+20+300+30), b.TokensUsed)
	_, ok := session.ValueOf[observer.CurrentAssessment](resumed).Latest()
	assert.True(t, ok)

	// The recording continues the same run: one run id, dense seqs, one
	// run_started and one run_ended.
	records := flushedRecords(t, sink)
	assertDenseSeq(t, records)
	assert.Len(t, byRun(records), 1)
	k := kinds(records)
	assert.Equal(t, 1, k[recorder.KindRunStarted])
	assert.Equal(t, 1, k[recorder.KindRunEnded])
	assert.Equal(t, 3, k[recorder.KindModelResponse])
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	// The interrupted call ran again on the resume, and is one call, as
	// the budget counts it.
	assert.Equal(t, recorder.RunUsage{
		PromptTokens: 600, CompletionTokens: 60, TotalTokens: 660, ToolCalls: b.ToolCalls, ModelCalls: 3,
	}, end.Usage, "the run's usage from before the interrupt is kept")
	assert.Equal(t, int64(2), b.ToolCalls)
	assert.Equal(t, 2, k[recorder.KindToolStarted])
	assert.Equal(t, 2, k[recorder.KindToolEnded])
}

// snapshotCounter is a session value that counts the snapshots of its
// store.
type snapshotCounter struct{ n *atomic.Int64 }

func (c snapshotCounter) MarshalJSON() ([]byte, error) {
	c.n.Add(1)
	return []byte("{}"), nil
}

func TestARunSnapshotsItsSessionOnlyWhenEinoSavesACheckpoint(t *testing.T) {
	// A session shared by the runs of a long conversation can hold
	// thousands of calls; a snapshot of it costs as much as it holds.
	var snapshots atomic.Int64
	store := session.New(nil)
	session.ValueOf[snapshotCounter](store).Seed(snapshotCounter{n: &snapshots})
	ctx := session.NewContext(context.Background(), store)
	for range 2 {
		m := scripted.New(scripted.Call("prep", `{}`), scripted.Reply("done"))
		agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("prep")}})
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: &memStore{}})
		require.NoError(t, drain(runner.Query(ctx, "go", adk.WithCheckPointID("c1"))).err)
	}
	assert.Zero(t, snapshots.Load(), "runs that saved no checkpoint snapshot nothing")
	assert.Equal(t, 2, len(session.LogOf[observer.ToolCallRecord](store).Last(10)), "both runs used the session")
}

// unencodable is a session value that cannot be snapshotted.
type unencodable struct{}

func (unencodable) MarshalJSON() ([]byte, error) { return nil, errors.New("cannot encode") }

func TestASessionThatCannotBeSnapshottedDoesNotBreakTheInterrupt(t *testing.T) {
	store := session.New(nil)
	session.ValueOf[unencodable](store).Seed(unencodable{})
	ctx := session.NewContext(context.Background(), store)
	var mu sync.Mutex
	var reported []error
	m := scripted.New(scripted.Call("approve", `{}`), scripted.Reply("deployed"))
	approve := fnTool{Name: "approve", Fn: func(ctx context.Context, _ string) (string, error) {
		if interrupted, _, _ := tool.GetInterruptState[any](ctx); !interrupted {
			return "", tool.Interrupt(ctx, "needs a human")
		}
		return "approved", nil
	}}
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{approve}, cfg: &lookout.Config{
		OnError: func(_ context.Context, err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() },
	}})
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: &memStore{}})

	first := drain(runner.Query(ctx, "deploy it", adk.WithCheckPointID("c1")))
	require.NoError(t, first.err, "the interrupt is saved without the session")
	last := first.events[len(first.events)-1]
	require.NotNil(t, last.Action)
	require.NotNil(t, last.Action.Interrupted)
	mu.Lock()
	require.NotEmpty(t, reported)
	assert.ErrorContains(t, reported[0], "cannot encode")
	mu.Unlock()

	iter, err := runner.Resume(ctx, "c1")
	require.NoError(t, err)
	second := drain(iter)
	require.NoError(t, second.err)
	require.NotEmpty(t, second.messages)
	assert.Equal(t, "deployed", second.messages[len(second.messages)-1].Content)
}

// A sub-agent interrupted inside its tool call and resumed goes on with
// the run it recorded before: one run_started and one run_ended for it,
// dense seqs.
func TestAnInterruptedSubAgentResumesItsRecording(t *testing.T) {
	{
		var opts []adk.AgentRunOption
		ctx := context.Background()
		sink := recorder.NewMemorySink()
		cfg := &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil), Limits: budget.Limits{Timeout: time.Hour}}
		approve := fnTool{Name: "approve", Fn: func(ctx context.Context, _ string) (string, error) {
			if interrupted, _, _ := tool.GetInterruptState[any](ctx); !interrupted {
				return "", tool.Interrupt(ctx, "needs a human")
			}
			return "approved", nil
		}}
		child := newAgent(t, agentSpec{name: "deployer", model: scripted.New(
			scripted.Call("approve", `{}`), scripted.Reply("deployed"),
		), tools: []tool.BaseTool{approve}, cfg: cfg})
		parent := newAgent(t, agentSpec{name: "lead", model: scripted.New(
			scripted.Calls(scripted.ToolCall{ID: "call_deploy", Name: "deployer", Arguments: `{"request":"deploy"}`}),
			scripted.Reply("all done"),
		), tools: []tool.BaseTool{adk.NewAgentTool(ctx, child)}, cfg: cfg})
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: parent, CheckPointStore: &memStore{}})

		first := drain(runner.Query(ctx, "deploy it", append(opts, adk.WithCheckPointID("c1"))...))
		require.NoError(t, first.err)
		iter, err := runner.Resume(context.Background(), "c1", opts...)
		require.NoError(t, err)
		second := drain(iter)
		require.NoError(t, second.err)

		records := adaptertest.Ended(t, sink)
		assertDenseSeq(t, records)
		runs := byRun(records)
		assert.Equal(t, 2, len(runs), "the parent and one child run")
		for id, recs := range runs {
			k := kinds(recs)
			assert.Equal(t, 1, k[recorder.KindRunStarted], "run %s", id)
			assert.Equal(t, 1, k[recorder.KindRunEnded], "run %s", id)
			// The call to the sub-agent, and the sub-agent's call that
			// interrupted, ran again on the resume: one call each.
			assert.Equal(t, 1, k[recorder.KindToolStarted], "run %s", id)
			assert.Equal(t, 1, k[recorder.KindToolEnded], "run %s", id)
			end := recs[len(recs)-1].Payload.(*recorder.RunEnded)
			assert.Equal(t, int64(1), end.Usage.ToolCalls, "run %s", id)
		}
	}
}

// A run that continues a conversation records its own efficacy counts,
// also after an interrupt: the checkpoint keeps the counts the session
// had when the run started.
func TestResumeKeepsTheRunsEfficacyBase(t *testing.T) {
	name := adaptertest.Probe{}.Name()
	store := session.New(nil)
	session.ValueOf[observer.Efficacy](store).Seed(observer.Efficacy{
		ByObserver: map[string]observer.EfficacyCounts{name: {Shown: 5, ChangedCourse: 5}},
	})
	m := scripted.New(
		scripted.Call("prep", `{"step":1}`),
		scripted.Call("approve", `{"change":"deploy"}`),
		scripted.Call("check", `{"change":"deploy"}`),
		scripted.Reply("deployed"),
	)
	approve := fnTool{Name: "approve", Fn: func(ctx context.Context, _ string) (string, error) {
		if interrupted, _, _ := tool.GetInterruptState[any](ctx); !interrupted {
			return "", tool.Interrupt(ctx, "needs a human")
		}
		return "approved", nil
	}}
	sink := recorder.NewMemorySink()
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("prep"), approve, echo("check")}, cfg: &lookout.Config{
		Recorder: adaptertest.NewRecorder(t, sink, nil), Observers: everyCall(),
		OnError: func(_ context.Context, err error) { t.Errorf("lookout error: %v", err) },
	}})
	runner := adk.NewRunner(context.Background(), adk.RunnerConfig{Agent: agent, CheckPointStore: &memStore{}})
	ctx := session.NewContext(context.Background(), store)
	require.NoError(t, drain(runner.Query(ctx, "deploy it", adk.WithCheckPointID("c1"))).err)
	iter, err := runner.Resume(context.Background(), "c1")
	require.NoError(t, err)
	require.NoError(t, drain(iter).err)

	var shown []int64
	for _, rec := range flushedRecords(t, sink) {
		if ext, ok := rec.Payload.(*recorder.Extension); ok && ext.Name == summary.EfficacyExtension {
			var ev observer.EfficacyEvent
			require.NoError(t, json.Unmarshal(ext.Body, &ev))
			shown = append(shown, ev.Counts.Shown)
		}
	}
	require.NotEmpty(t, shown)
	for i, n := range shown {
		assert.Equal(t, int64(i+1), n, "efficacy record %d counts the run's own shown assessments", i+1)
	}
}

// interruptOnce is a tool that interrupts the run the first time it is
// called and answers "approved" when the run resumes.
func interruptOnce(name string) fnTool {
	return fnTool{Name: name, Fn: func(ctx context.Context, _ string) (string, error) {
		if interrupted, _, _ := tool.GetInterruptState[any](ctx); !interrupted {
			return "", tool.Interrupt(ctx, "needs a human")
		}
		return "approved", nil
	}}
}

// An interrupted call runs again when the run resumes, and is one call:
// counted once by the budget and recorded with one tool_started. The
// interrupt must not spend a call the resumed run needs.
func TestAnInterruptedCallIsCountedOnce(t *testing.T) {
	m := scripted.New(
		scripted.Call("prep", `{}`),
		scripted.Call("approve", `{}`),
		scripted.Reply("deployed"),
	)
	sink := recorder.NewMemorySink()
	store := session.New(nil)
	ctx := session.NewContext(context.Background(), store)
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("prep"), interruptOnce("approve")}, cfg: &lookout.Config{
		Recorder: adaptertest.NewRecorder(t, sink, nil), Limits: budget.Limits{MaxToolCalls: 2},
	}})
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: &memStore{}})
	require.NoError(t, drain(runner.Query(ctx, "deploy it", adk.WithCheckPointID("c1"))).err)
	iter, err := runner.Resume(ctx, "c1")
	require.NoError(t, err)
	o := drain(iter)
	require.NoError(t, o.err)

	var results []string
	for _, msg := range o.messages {
		if msg.Role == schema.Tool {
			results = append(results, msg.Content)
		}
	}
	assert.Equal(t, []string{"approved"}, results, "the approved call ran on the resume, within the limit")
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(2), b.ToolCalls)
	var calls []string
	for _, rec := range session.LogOf[observer.ToolCallRecord](store).All() {
		calls = append(calls, rec.ToolName+" "+rec.Result)
	}
	assert.Equal(t, []string{"prep prep ok {}", "approve approved"}, calls)

	records := flushedRecords(t, sink)
	k := kinds(records)
	assert.Equal(t, 2, k[recorder.KindToolStarted], "one tool_started per call")
	assert.Equal(t, 2, k[recorder.KindToolEnded])
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, int64(2), end.Usage.ToolCalls)
	report := summary.Analyze(records)
	require.Len(t, report.Runs, 1)
	assert.Equal(t, 2, report.Runs[0].ToolCalls)
	for _, tool := range report.Runs[0].Tools {
		assert.Zero(t, tool.Unfinished, "tool %s", tool.Name)
	}
}

// A run resumed from a checkpoint keeps the deadline its budget started
// with: the ctx it resumes on expires when the budget's time runs out, not
// a whole timeout after the resume.
func TestAResumedRunKeepsItsDeadline(t *testing.T) {
	c := adaptertest.NewClock()
	m := scripted.New(scripted.Call("approve", `{}`), scripted.Reply("never reached"))
	approve := fnTool{Name: "approve", Fn: func(ctx context.Context, _ string) (string, error) {
		if interrupted, _, _ := tool.GetInterruptState[any](ctx); !interrupted {
			return "", tool.Interrupt(ctx, "needs a human")
		}
		deadline, ok := ctx.Deadline()
		if !ok || time.Until(deadline) > time.Minute {
			return "", fmt.Errorf("the resumed call's deadline is %v away", time.Until(deadline))
		}
		<-ctx.Done()
		return "", ctx.Err()
	}}
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{approve}, cfg: &lookout.Config{
		Now: c.Now, WrapUpAt: -1, Limits: budget.Limits{Timeout: time.Hour},
	}})
	runner := adk.NewRunner(context.Background(), adk.RunnerConfig{Agent: agent, CheckPointStore: &memStore{}})
	require.NoError(t, drain(runner.Query(context.Background(), "deploy it", adk.WithCheckPointID("c1"))).err)

	// The human answers with 20ms of the hour left.
	c.Advance(time.Hour - 20*time.Millisecond)
	iter, err := runner.Resume(context.Background(), "c1")
	require.NoError(t, err)
	o := drain(iter)
	adaptertest.RequireExceeded(t, o.err, budget.Time)
	assert.ErrorIs(t, o.err, context.DeadlineExceeded)
	assert.Equal(t, 1, m.Calls(), "the run ended before the next model call")
}

// A resumed run continues the recorded run, whose input was recorded
// before the interrupt; so was a sub-agent's.
func TestAResumedRunDoesNotRecordItsInputAgain(t *testing.T) {
	t.Run("a root run", func(t *testing.T) {
		m := scripted.New(scripted.Call("approve", `{}`), scripted.Reply("deployed"))
		sink := recorder.NewMemorySink()
		agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{interruptOnce("approve")}, cfg: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)}})
		ctx := context.Background()
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: &memStore{}})
		require.NoError(t, drain(runner.Query(ctx, "deploy it", adk.WithCheckPointID("c1"))).err)
		iter, err := runner.Resume(ctx, "c1")
		require.NoError(t, err)
		require.NoError(t, drain(iter).err)
		assert.Equal(t, []string{"You are a test agent.", "deploy it"}, recordedMessages(flushedRecords(t, sink)))
	})
	t.Run("a sub-agent", func(t *testing.T) {
		ctx := context.Background()
		sink := recorder.NewMemorySink()
		cfg := &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)}
		child := newAgent(t, agentSpec{name: "deployer", model: scripted.New(
			scripted.Call("approve", `{}`), scripted.Reply("deployed"),
		), tools: []tool.BaseTool{interruptOnce("approve")}, cfg: cfg})
		parent := newAgent(t, agentSpec{name: "lead", model: scripted.New(
			scripted.Calls(scripted.ToolCall{ID: "call_deploy", Name: "deployer", Arguments: `{"request":"deploy"}`}),
			scripted.Reply("all done"),
		), tools: []tool.BaseTool{adk.NewAgentTool(ctx, child)}, cfg: cfg})
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: parent, CheckPointStore: &memStore{}})
		require.NoError(t, drain(runner.Query(ctx, "deploy it", adk.WithCheckPointID("c1"))).err)
		before := map[string][]string{}
		for id, recs := range byRun(flushedRecords(t, sink)) {
			before[id] = recordedMessages(recs)
		}
		iter, err := runner.Resume(ctx, "c1")
		require.NoError(t, err)
		require.NoError(t, drain(iter).err)
		after := map[string][]string{}
		for id, recs := range byRun(flushedRecords(t, sink)) {
			after[id] = recordedMessages(recs)
		}
		assert.Len(t, after, 2)
		assert.Equal(t, before, after, "each run's input, recorded once before the interrupt")
	})
}

// recordedMessages returns the contents of the message records among
// records.
func recordedMessages(records []recorder.Record) []string {
	var out []string
	for _, rec := range records {
		if p, ok := rec.Payload.(*recorder.Message); ok {
			out = append(out, p.Message.Content)
		}
	}
	return out
}
