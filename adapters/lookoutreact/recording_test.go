package lookoutreact_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
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

func TestANestedAgentIsRecordedAsALinkedChildRun(t *testing.T) {
	// The inner agent, run through its own Hooks.Agent with the tool's
	// ctx, finds the outer run there and is its child; with a name of its
	// own, it is recorded under it.
	for _, name := range []string{"", "researcher"} {
		rec, sink := newRecorder(t)
		l, err := lookoutreact.New(context.Background(), &lookout.Config{Recorder: rec})
		require.NoError(t, err)
		inner := newAgent(t, agentSpec{model: scripted.New(
			scripted.Call("lookup", `{"id":1}`), scripted.Reply("inner answer"),
		), tools: []tool.BaseTool{echo("lookup")}, lookout: l})
		wrapped := l.Agent(inner.raw)
		if name != "" {
			wrapped.Name = name
		}
		research := fnTool{Name: "research", Fn: func(ctx context.Context, args string) (string, error) {
			out, err := wrapped.Generate(ctx, []*schema.Message{schema.UserMessage(args)})
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

		records := flushed(t, rec, sink)
		assertDenseSeq(t, records)
		runs := byRun(records)
		require.Len(t, runs, 2, "name=%q", name)
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
		assert.Equal(t, "call_research", childStart.ParentToolCallID)
		assert.Empty(t, childStart.Metadata, "the parent call is a field, not metadata")
		if name == "" {
			name = "ReActAgent"
		}
		assert.Equal(t, name, childStart.AgentName)
		childEnd, ok := childRecs[len(childRecs)-1].Payload.(*recorder.RunEnded)
		require.True(t, ok, "the child run was ended when its Generate returned")
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
	rec, sink := newRecorder(t)
	approve := fnTool{Name: "deploy", Fn: func(ctx context.Context, _ string) (string, error) {
		return "", compose.Interrupt(ctx, "approve the deploy?")
	}}
	m := scripted.New(scripted.Call("deploy", `{}`), scripted.Reply("never reached"))
	store := session.New(nil)
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{approve}, cfg: &lookout.Config{Recorder: rec}}).run(t, store, false)
	require.Error(t, o.err)
	_, interrupted := compose.ExtractInterruptInfo(o.err)
	require.True(t, interrupted, "the run was interrupted: %v", o.err)

	require.NoError(t, rec.Flush(context.Background()))
	k := kinds(sink.Records())
	assert.Equal(t, 1, k[recorder.KindRunStarted])
	assert.Zero(t, k[recorder.KindRunEnded], "an interrupt is a pause, not an end")
	assert.Zero(t, k[recorder.KindToolEnded], "the interrupted call has no outcome yet")
	assert.Empty(t, lookout.ToolCallsOf(store, 0))
}

func TestANilMessageInTheInputIsHarmless(t *testing.T) {
	rec, sink := newRecorder(t)
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("done"))
	a := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookout.Config{Recorder: rec, Observers: everyCall()}})
	out, err := a.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi"), nil})
	require.NoError(t, err)
	assert.Equal(t, "done", out.Content)
	assert.Equal(t, 1, kinds(flushed(t, rec, sink))[recorder.KindMessage], "the user's message, not the nil one")
}

// Models number their tool calls within a turn, so agents nested two deep
// can both call "call_0"; each level is still its own recorded run.
func TestNestedAgentsWhoseCallsShareAnIDAreSeparateRuns(t *testing.T) {
	rec, sink := newRecorder(t)
	l, err := lookoutreact.New(context.Background(), &lookout.Config{Recorder: rec})
	require.NoError(t, err)
	asTool := func(name string, a reactAgent) fnTool {
		return fnTool{Name: name, Fn: func(ctx context.Context, args string) (string, error) {
			out, err := a.Generate(ctx, []*schema.Message{schema.UserMessage(args)})
			if err != nil {
				return "", err
			}
			return out.Content, nil
		}}
	}
	leaf := newAgent(t, agentSpec{model: scripted.New(scripted.Reply("leaf answer")), tools: []tool.BaseTool{echo("n")}, lookout: l})
	mid := newAgent(t, agentSpec{model: scripted.New(
		scripted.Calls(scripted.ToolCall{ID: "call_0", Name: "deeper", Arguments: `{}`}), scripted.Reply("mid answer"),
	), tools: []tool.BaseTool{asTool("deeper", leaf)}, lookout: l})
	top := newAgent(t, agentSpec{model: scripted.New(
		scripted.Calls(scripted.ToolCall{ID: "call_0", Name: "research", Arguments: `{}`}), scripted.Reply("top answer"),
	), tools: []tool.BaseTool{asTool("research", mid)}, lookout: l})
	require.NoError(t, top.run(t, nil, false).err)

	records := flushed(t, rec, sink)
	assertDenseSeq(t, records)
	runs := byRun(records)
	require.Equal(t, 3, len(runs), "top, mid and leaf")
	depths := map[int]int{}
	for _, recs := range runs {
		depths[recs[0].Depth]++
		assert.Equal(t, 1, kinds(recs)[recorder.KindRunEnded])
	}
	assert.Equal(t, map[int]int{0: 1, 1: 1, 2: 1}, depths)
}

// Three calls of one tool run a nested agent each, in parallel, through
// Generate or Stream: three child runs, each recorded and ended, on one
// budget.
func TestNestedAgentsInParallelCallsShareTheBudgetAndRecordTheirOwnRuns(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		rec, sink := newRecorder(t)
		l, err := lookoutreact.New(context.Background(), &lookout.Config{Recorder: rec, Limits: budget.Limits{MaxTokens: 100_000}})
		require.NoError(t, err)
		innerModel := scripted.New(scripted.Forever(scripted.Func(func(_ context.Context, in []*schema.Message, _ *model.Options) (*schema.Message, error) {
			if len(toolMessages(in)) == 0 {
				return schema.AssistantMessage("", []schema.ToolCall{{Function: schema.FunctionCall{Name: "lookup", Arguments: "{}"}}}), nil
			}
			return schema.AssistantMessage("inner "+in[0].Content, nil), nil
		}).WithUsage(10, 1)))
		inner := newAgent(t, agentSpec{model: innerModel, tools: []tool.BaseTool{echo("lookup")}, lookout: l})
		research := fnTool{Name: "research", Fn: func(ctx context.Context, args string) (string, error) {
			in := []*schema.Message{schema.UserMessage(args)}
			// Local: the calls run in parallel.
			var out *schema.Message
			var err error
			if streaming {
				sr, err := inner.Stream(ctx, in)
				if err != nil {
					return "", err
				}
				if out, err = concat(sr); err != nil {
					return "", err
				}
			} else if out, err = inner.Generate(ctx, in); err != nil {
				return "", err
			}
			return out.Content, nil
		}}
		outerModel := scripted.New(
			scripted.Calls(
				scripted.ToolCall{Name: "research", Arguments: `{"q":"a"}`},
				scripted.ToolCall{Name: "research", Arguments: `{"q":"b"}`},
				scripted.ToolCall{Name: "research", Arguments: `{"q":"c"}`},
			).WithUsage(100, 10),
			scripted.Reply("outer answer").WithUsage(200, 20),
		)
		store := session.New(nil)
		o := newAgent(t, agentSpec{model: outerModel, tools: []tool.BaseTool{research}, lookout: l}).run(t, store, streaming)
		require.NoError(t, o.err)

		records := flushed(t, rec, sink)
		assertDenseSeq(t, records)
		runs := byRun(records)
		assert.Len(t, runs, 4, "the outer run and three child runs, streaming=%v", streaming)
		for _, recs := range runs {
			assert.Equal(t, 1, kinds(recs)[recorder.KindRunEnded])
		}
		b, _ := lookout.BudgetOf(store)
		assert.Equal(t, int64(2+3*2), b.ModelCalls)
		assert.Equal(t, int64(110+220+3*2*11), b.TokensUsed)
		assert.Len(t, lookout.ToolCallsOf(store, 0), 3+3)
	}
}

// A caller that closes the stream before its end ends the run with
// context.Canceled. That end is recorded by the wrapper's goroutine once
// it notices the close, so the test waits for it.
func TestClosingTheStreamEarlyEndsTheRunAsCancelled(t *testing.T) {
	rec, sink := newRecorder(t)
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("one two three four five six"))
	a := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookout.Config{Recorder: rec}})
	sr, err := a.Stream(context.Background(), []*schema.Message{schema.UserMessage("go")})
	require.NoError(t, err)
	chunk, err := sr.Recv()
	require.NoError(t, err)
	assert.Equal(t, "one ", chunk.Content)
	sr.Close()

	var end *recorder.RunEnded
	require.Eventually(t, func() bool {
		require.NoError(t, rec.Flush(context.Background()))
		recs := sink.Records()
		end, _ = recs[len(recs)-1].Payload.(*recorder.RunEnded)
		return end != nil
	}, 5*time.Second, time.Millisecond)
	assert.Equal(t, recorder.OutcomeCancelled, end.Outcome)
	k := kinds(sink.Records())
	assert.Equal(t, 1, k[recorder.KindRunEnded])
	assert.Equal(t, 2, k[recorder.KindModelResponse], "the reply the caller stopped reading is recorded")
	assert.Equal(t, 2, k[recorder.KindBudget], "and charged")
}
