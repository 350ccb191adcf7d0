package lookoutadk_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/summary"
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

func runWith(t *testing.T, agent adk.Agent, streaming bool) outcome {
	t.Helper()
	ctx := context.Background()
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: streaming})
	return drain(runner.Query(ctx, "do the task", lookoutadk.RunOption()))
}

func TestTheTrajectoryIsRecordedAsASideEffect(t *testing.T) {
	sink := recorder.NewMemorySink()
	m := scripted.New(
		scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`).Call("search", `{"q":"c"}`),
		scripted.Reply("done"),
	)
	agent := newAgent(t, agentSpec{name: "searcher", model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{
		Sink: sink, Observers: everyCall(), Limits: budget.Limits{MaxTokens: 10_000},
	}})
	require.NoError(t, runWith(t, agent, false).err)

	records := sink.Records()
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
	assert.GreaterOrEqual(t, k[recorder.KindMessage], 2, "the instruction and the user's query")

	started := records[0].Payload.(*recorder.RunStarted)
	assert.Equal(t, "searcher", started.AgentName)
	assert.Equal(t, int64(10_000), started.Limits.MaxTokens)
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, recorder.OutcomeCompleted, end.Outcome)
	assert.Equal(t, int64(2), end.Usage.ModelCalls)

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

func TestStreamingRunsAreRecordedWithTheirReplies(t *testing.T) {
	sink := recorder.NewMemorySink()
	m := scripted.New(scripted.Call("search", `{"q":"a"}`), scripted.Reply("all done"))
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{Sink: sink}})
	require.NoError(t, runWith(t, agent, true).err)
	var replies []string
	for _, r := range sink.Records() {
		if resp, ok := r.Payload.(*recorder.ModelResponse); ok {
			require.NotNil(t, resp.Message)
			assert.True(t, resp.UsageReported)
			replies = append(replies, resp.Message.Content)
		}
	}
	assert.Equal(t, []string{"", "all done"}, replies)
}

func TestABudgetStopIsRecorded(t *testing.T) {
	sink := recorder.NewMemorySink()
	m := scripted.New(scripted.Call("search", `{}`).WithUsage(150, 0), scripted.Reply("never"))
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{
		Sink: sink, Limits: budget.Limits{MaxTokens: 100}, WrapUpAt: -1,
	}})
	require.ErrorIs(t, runWith(t, agent, false).err, budget.ErrExceeded)
	records := sink.Records()
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

func TestAnErrorEndIsRecordedThroughTheRunOption(t *testing.T) {
	sink := recorder.NewMemorySink()
	m := scripted.New(scripted.Call("search", `{}`), scripted.Fail(errors.New("provider unavailable")))
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{Sink: sink}})
	o := runWith(t, agent, false)
	require.Error(t, o.err)
	// The end is written by the goroutine that reads the agent's events;
	// wait for it by flushing until it appears.
	require.Eventually(t, func() bool {
		recs := sink.Records()
		_, ok := recs[len(recs)-1].Payload.(*recorder.RunEnded)
		return ok
	}, 5e9, 1e6)
	recs := sink.Records()
	end := recs[len(recs)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, recorder.OutcomeError, end.Outcome)
	assert.Contains(t, end.Error, "provider unavailable")
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

func TestAFailingSinkWithTheDropPolicyNeverBreaksTheRun(t *testing.T) {
	sink := &failingSink{}
	var reported int
	rec := recorder.New(sink, &recorder.Options{ErrorHandler: func(error) { reported++ }})
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("done"))
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{Recorder: rec}})
	o := runWith(t, agent, false)
	require.NoError(t, o.err)
	assert.Equal(t, "done", o.messages[len(o.messages)-1].Content)
	assert.Equal(t, uint64(sink.writes), rec.Dropped(), "every failed write is counted")
	assert.Equal(t, sink.writes, reported)
	assert.Positive(t, sink.writes)
}

func TestAFailingSinkWithTheEscalatePolicyEndsTheRunWithItsError(t *testing.T) {
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("never"))
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{
		Sink: &failingSink{}, RecorderOptions: &recorder.Options{Policy: recorder.Escalate},
	}})
	o := runWith(t, agent, false)
	require.Error(t, o.err)
	assert.ErrorIs(t, o.err, errDiskFull)
	assert.ErrorIs(t, o.err, recorder.ErrSinkFailed)
	assert.Zero(t, m.Calls(), "the run ended before the first model call")
}

func TestASubAgentIsRecordedAsALinkedChildRun(t *testing.T) {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	cfg := &lookoutadk.Config{Sink: sink}
	child := newAgent(t, agentSpec{name: "researcher", model: scripted.New(
		scripted.Call("lookup", `{"id":1}`), scripted.Reply("child answer"),
	), tools: []tool.BaseTool{echo("lookup")}, cfg: cfg})
	parent := newAgent(t, agentSpec{name: "lead", model: scripted.New(
		scripted.Calls(scripted.ToolCall{ID: "call_research", Name: "researcher", Arguments: `{"request":"find it"}`}),
		scripted.Reply("parent answer"),
	), tools: []tool.BaseTool{adk.NewAgentTool(ctx, child)}, cfg: cfg})
	require.NoError(t, runWith(t, parent, false).err)

	records := sink.Records()
	assertDenseSeq(t, records)
	runs := byRun(records)
	require.Len(t, runs, 2)
	var childStart *recorder.RunStarted
	var childRec recorder.Record
	for _, recs := range runs {
		if recs[0].ParentRunID != "" {
			childRec = recs[0]
			childStart = recs[0].Payload.(*recorder.RunStarted)
		}
	}
	require.NotNil(t, childStart)
	assert.Equal(t, 1, childRec.Depth)
	assert.Equal(t, "researcher", childStart.AgentName)
	assert.Equal(t, "call_research", childStart.Metadata[atif.ParentToolCallKey])

	traj, err := atif.FromRecords(records, nil)
	require.NoError(t, err)
	doc, err := json.Marshal(traj)
	require.NoError(t, err)
	assert.Empty(t, atif.Validate(doc))
	require.Len(t, traj.SubagentTrajectories, 1)
}

func TestFeedbackEfficacyIsRecordedAndTheTaskSeeded(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		feedbackEfficacy(t, streaming)
	}
}

func feedbackEfficacy(t *testing.T, streaming bool) {
	sink := recorder.NewMemorySink()
	m := scripted.New(
		scripted.Call("search", `{"q":"a"}`),
		scripted.Call("fetch", `{"url":"b"}`), // a different tool after the first assessment
		scripted.Reply("done"),                // no tools after the second: wrapped up
	)
	store := session.New(nil)
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search"), echo("fetch")}, cfg: &lookoutadk.Config{
		Sink: sink, Observers: everyCall(),
	}})
	ctx := session.NewContext(context.Background(), store)
	require.NoError(t, drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: streaming}).Query(ctx, "find the billing owner", lookoutadk.RunOption())).err)

	var reactions []observer.Reaction
	for _, r := range sink.Records() {
		if ext, ok := r.Payload.(*recorder.Extension); ok && ext.Name == summary.EfficacyExtension {
			var ev observer.EfficacyEvent
			require.NoError(t, json.Unmarshal(ext.Body, &ev))
			reactions = append(reactions, ev.Reaction)
		}
	}
	assert.Equal(t, []observer.Reaction{observer.ChangedCourse, observer.WrappedUp}, reactions, "streaming=%v", streaming)
	task, ok := session.ValueOf[observer.Task](store).Latest()
	require.True(t, ok)
	assert.Equal(t, "find the billing owner", task.Prompt)
}
