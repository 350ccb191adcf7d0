package lookoutreact_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/session"
)

var (
	kinds = adaptertest.Kinds
	byRun = adaptertest.ByRun
)

func assertDenseSeq(t *testing.T, records []recorder.Record) {
	t.Helper()
	adaptertest.AssertDenseSeq(t, records)
}

// ended waits for the run_ended record of a root run and returns the
// records. A streamed run is ended by the goroutine that reads the
// handler's copy of the output stream, just after the caller's copy ends.
func ended(t *testing.T, sink *recorder.MemorySink) []recorder.Record {
	t.Helper()
	require.Eventually(t, func() bool {
		recs := sink.Records()
		if len(recs) == 0 {
			return false
		}
		_, ok := recs[len(recs)-1].Payload.(*recorder.RunEnded)
		return ok && recs[len(recs)-1].ParentRunID == ""
	}, 5*time.Second, time.Millisecond)
	return sink.Records()
}

func TestTheTrajectoryIsRecordedAsASideEffect(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		sink := recorder.NewMemorySink()
		m := scripted.New(
			scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`).Call("search", `{"q":"c"}`),
			scripted.Reply("done"),
		)
		a := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{
			Sink: sink, Observers: everyCall(), Limits: budget.Limits{MaxTokens: 10_000},
		}})
		require.NoError(t, a.run(t, nil, streaming).err)

		records := ended(t, sink)
		assertDenseSeq(t, records)
		k := kinds(records)
		assert.Equal(t, 1, k[recorder.KindRunStarted])
		assert.Equal(t, 1, k[recorder.KindRunEnded])
		assert.Equal(t, 2, k[recorder.KindModelRequest])
		assert.Equal(t, 2, k[recorder.KindModelResponse])
		assert.Equal(t, 3, k[recorder.KindToolStarted])
		assert.Equal(t, 3, k[recorder.KindToolEnded])
		assert.Equal(t, 3, k[recorder.KindAssessment])
		assert.Equal(t, 2, k[recorder.KindBudget], "one charge per model call")
		assert.Equal(t, 1, k[recorder.KindMessage], "the user's message")

		started := records[0].Payload.(*recorder.RunStarted)
		assert.Equal(t, "ReActAgent", started.AgentName)
		assert.Equal(t, int64(10_000), started.Limits.MaxTokens)
		end := records[len(records)-1].Payload.(*recorder.RunEnded)
		assert.Equal(t, recorder.OutcomeCompleted, end.Outcome)
		assert.Equal(t, int64(2), end.Usage.ModelCalls, "the last reply was charged before the end, streaming=%v", streaming)

		var replies []string
		for _, r := range records {
			if resp, ok := r.Payload.(*recorder.ModelResponse); ok {
				require.NotNil(t, resp.Message)
				assert.True(t, resp.UsageReported)
				replies = append(replies, resp.Message.Content)
			}
		}
		assert.Equal(t, []string{"", "done"}, replies)

		traj, err := atif.FromRecords(records, nil)
		require.NoError(t, err)
		doc, err := json.Marshal(traj)
		require.NoError(t, err)
		assert.Empty(t, atif.Validate(doc))
		var withCalls int
		for _, s := range traj.Steps {
			if len(s.ToolCalls) == 3 {
				withCalls++
				require.NotNil(t, s.Observation)
				assert.Len(t, s.Observation.Results, 3, "parallel calls share one step")
			}
		}
		assert.Equal(t, 1, withCalls)
	}
}

func TestABudgetStopIsRecorded(t *testing.T) {
	sink := recorder.NewMemorySink()
	m := scripted.New(scripted.Call("search", `{}`).WithUsage(150, 0), scripted.Reply("never"))
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{
		Sink: sink, Limits: budget.Limits{MaxTokens: 100}, WrapUpAt: -1,
	}}).run(t, nil, false)
	require.ErrorIs(t, o.err, budget.ErrExceeded)
	records := ended(t, sink)
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, recorder.OutcomeBudgetExceeded, end.Outcome)
	assert.Equal(t, "tokens budget exceeded", end.StopReason)
	var exceeded int
	for _, r := range records {
		if b, ok := r.Payload.(*recorder.Budget); ok && b.Event == recorder.BudgetExceeded {
			exceeded++
			assert.Equal(t, "tokens", b.Resource)
		}
	}
	assert.Equal(t, 1, exceeded)
}

func TestAnErrorEndIsRecorded(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		sink := recorder.NewMemorySink()
		m := scripted.New(scripted.Call("search", `{}`), scripted.Fail(errors.New("provider unavailable")))
		o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{Sink: sink}}).run(t, nil, streaming)
		require.Error(t, o.err)
		records := ended(t, sink)
		end := records[len(records)-1].Payload.(*recorder.RunEnded)
		assert.Equal(t, recorder.OutcomeError, end.Outcome)
		assert.Contains(t, end.Error, "provider unavailable")
	}
}

// failingSink fails every write.
type failingSink struct {
	mu     sync.Mutex
	writes int
}

var errDiskFull = errors.New("disk full")

func (f *failingSink) Write(context.Context, *recorder.Record) error {
	f.mu.Lock()
	f.writes++
	f.mu.Unlock()
	return errDiskFull
}

func (f *failingSink) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
}

func TestAFailingSinkWithTheDropPolicyNeverBreaksTheRun(t *testing.T) {
	sink := &failingSink{}
	var mu sync.Mutex
	reported := 0
	rec := recorder.New(sink, &recorder.Options{ErrorHandler: func(error) { mu.Lock(); reported++; mu.Unlock() }})
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("done"))
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{Recorder: rec}}).run(t, nil, false)
	require.NoError(t, o.err)
	assert.Equal(t, "done", o.out.Content)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, uint64(sink.count()), rec.Dropped(), "every failed write is counted")
	assert.Equal(t, sink.count(), reported)
	assert.Positive(t, sink.count())
}

func TestAFailingSinkWithTheEscalatePolicyEndsTheRunWithItsError(t *testing.T) {
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("never"))
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{
		Sink: &failingSink{}, RecorderOptions: &recorder.Options{Policy: recorder.Escalate},
	}}).run(t, nil, false)
	require.Error(t, o.err)
	assert.ErrorIs(t, o.err, errDiskFull)
	assert.ErrorIs(t, o.err, recorder.ErrSinkFailed)
	assert.Zero(t, m.Calls(), "the run ended before the first model call")
}

func TestANestedAgentIsRecordedAsALinkedChildRun(t *testing.T) {
	// The inner agent inherits the handler from the tool's ctx; passing
	// the run option again must not start a second child run.
	for _, withOption := range []bool{false, true} {
		sink := recorder.NewMemorySink()
		l, err := lookoutreact.New(&lookoutreact.Config{Sink: sink})
		require.NoError(t, err)
		inner := newAgent(t, agentSpec{model: scripted.New(
			scripted.Call("lookup", `{"id":1}`), scripted.Reply("inner answer"),
		), tools: []tool.BaseTool{echo("lookup")}, lookout: l})
		research := fnTool{Name: "research", Fn: func(ctx context.Context, args string) (string, error) {
			var opts []agent.AgentOption
			if withOption {
				opts = append(opts, l.AgentOption())
			}
			out, err := inner.Generate(ctx, []*schema.Message{schema.UserMessage(args)}, opts...)
			if err != nil {
				return "", err
			}
			return out.Content, nil
		}}
		outer := newAgent(t, agentSpec{model: scripted.New(
			scripted.Calls(scripted.ToolCall{ID: "call_research", Name: "research", Arguments: `{"request":"find it"}`}),
			scripted.Reply("outer answer"),
		), tools: []tool.BaseTool{research}, lookout: l})
		require.NoError(t, outer.run(t, nil, false).err)

		records := ended(t, sink)
		assertDenseSeq(t, records)
		runs := byRun(records)
		require.Len(t, runs, 2, "withOption=%v", withOption)
		var childStart *recorder.RunStarted
		var childRecs []recorder.Record
		for _, recs := range runs {
			if recs[0].ParentRunID != "" {
				childRecs = recs
				childStart = recs[0].Payload.(*recorder.RunStarted)
			}
		}
		require.NotNil(t, childStart)
		assert.Equal(t, 1, childRecs[0].Depth)
		assert.Equal(t, "call_research", childStart.Metadata[atif.ParentToolCallKey])
		childEnd, ok := childRecs[len(childRecs)-1].Payload.(*recorder.RunEnded)
		require.True(t, ok, "the child run was ended when its graph ended")
		assert.Equal(t, recorder.OutcomeCompleted, childEnd.Outcome)
		assert.Equal(t, 1, kinds(childRecs)[recorder.KindRunEnded])
		assert.Equal(t, 1, kinds(childRecs)[recorder.KindToolEnded], "the child's lookup is in the child run")

		traj, err := atif.FromRecords(records, nil)
		require.NoError(t, err)
		doc, err := json.Marshal(traj)
		require.NoError(t, err)
		assert.Empty(t, atif.Validate(doc))
		require.Len(t, traj.SubagentTrajectories, 1)
	}
}

func TestAnInterruptPausesTheRunWithoutEndingIt(t *testing.T) {
	sink := recorder.NewMemorySink()
	approve := fnTool{Name: "deploy", Fn: func(ctx context.Context, _ string) (string, error) {
		return "", compose.Interrupt(ctx, "approve the deploy?")
	}}
	m := scripted.New(scripted.Call("deploy", `{}`), scripted.Reply("never reached"))
	store := session.New(nil)
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{approve}, cfg: &lookoutreact.Config{Sink: sink}}).run(t, store, false)
	require.Error(t, o.err)
	_, interrupted := compose.ExtractInterruptInfo(o.err)
	require.True(t, interrupted, "the run was interrupted: %v", o.err)

	k := kinds(sink.Records())
	assert.Equal(t, 1, k[recorder.KindRunStarted])
	assert.Zero(t, k[recorder.KindRunEnded], "an interrupt is a pause, not an end")
	assert.Zero(t, k[recorder.KindToolEnded], "the interrupted call has no outcome yet")
	assert.Zero(t, session.LogOf[observer.ToolCallRecord](store).Total())
}

func TestANilMessageInTheInputIsHarmless(t *testing.T) {
	sink := recorder.NewMemorySink()
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("done"))
	a := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{Sink: sink, Observers: everyCall()}})
	out, err := a.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi"), nil}, a.lookout.AgentOption())
	require.NoError(t, err)
	assert.Equal(t, "done", out.Content)
	assert.Equal(t, 1, kinds(ended(t, sink))[recorder.KindMessage], "the user's message, not the nil one")
}
