package lookoutadk_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/lookout-go/lookout"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
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
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/messages"
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
	return drain(runner.Query(ctx, "do the task"))
}

func TestASubAgentIsRecordedAsALinkedChildRun(t *testing.T) {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	cfg := &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)}
	child := newAgent(t, agentSpec{name: "researcher", model: scripted.New(
		scripted.Call("lookup", `{"id":1}`), scripted.Reply("child answer"),
	), tools: []tool.BaseTool{echo("lookup")}, cfg: cfg})
	parent := newAgent(t, agentSpec{name: "lead", model: scripted.New(
		scripted.Calls(scripted.ToolCall{ID: "call_research", Name: "researcher", Arguments: `{"request":"find it"}`}),
		scripted.Reply("parent answer"),
	), tools: []tool.BaseTool{adk.NewAgentTool(ctx, child)}, cfg: cfg})
	require.NoError(t, runWith(t, parent, false).err)

	records := flushedRecords(t, sink)
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
	assert.Equal(t, "call_research", childStart.ParentToolCallID)
	assert.Empty(t, childStart.Metadata, "the parent call is a field, not metadata")

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
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search"), echo("fetch")}, cfg: &lookout.Config{
		Recorder: adaptertest.NewRecorder(t, sink, nil), Observers: everyCall(),
	}})
	ctx := session.NewContext(context.Background(), store)
	require.NoError(t, drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: streaming}).Query(ctx, "find the billing owner")).err)

	var reactions []observer.Reaction
	for _, r := range flushedRecords(t, sink) {
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

// A run that Eino ends with an error never reaches AfterAgent. The
// agent's wrapper releases the run's deadline when its events end, rather
// than holding the run and its session in memory until the deadline.
func TestTheWrapperReleasesTheDeadlineOfAFailedRun(t *testing.T) {
	errModel := errors.New("model unavailable")
	var runCtx context.Context
	m := scripted.New(scripted.Func(func(ctx context.Context, _ []*schema.Message, _ *model.Options) (*schema.Message, error) {
		runCtx = ctx
		return nil, errModel
	}))
	agent := newAgent(t, agentSpec{model: m, cfg: &lookout.Config{Limits: budget.Limits{Timeout: time.Hour}}})
	o := runAgent(t, agent, nil, false)
	require.ErrorIs(t, o.err, errModel)
	require.NotNil(t, runCtx)
	select {
	case <-runCtx.Done():
		assert.ErrorIs(t, runCtx.Err(), context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the failed run's deadline is still armed")
	}
}

// A conversation's later run is given the turns before it, which the
// earlier runs recorded: only what follows them, its own user message, is
// recorded, so the trajectory of the session holds each message once, and
// the later run's model call still rebuilds from it.
func TestALaterRunRecordsOnlyWhatFollowsItsHistory(t *testing.T) {
	sink := recorder.NewMemorySink()
	store := session.New(nil)
	ctx := session.NewContext(context.Background(), store)
	history := []*schema.Message{schema.UserMessage("turn one")}
	rec := adaptertest.NewRecorder(t, sink, nil) // one recorder keeps the turns in order
	for turn, reply := range []string{"first answer", "second answer"} {
		m := scripted.New(scripted.Reply(reply).WithUsage(100*(turn+1), 10*(turn+1)))
		agent := newAgent(t, agentSpec{model: m, cfg: &lookout.Config{Recorder: rec}})
		if turn == 1 {
			history = append(history, schema.AssistantMessage("first answer", nil), schema.UserMessage("turn two"))
		}
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent})
		require.NoError(t, drain(runner.Run(ctx, history)).err)
	}

	var users, systems []string
	for _, rec := range flushedRecords(t, sink) {
		if p, ok := rec.Payload.(*recorder.Message); ok {
			switch p.Message.Role {
			case schema.User:
				users = append(users, p.Message.Content)
			case schema.System:
				systems = append(systems, p.Message.Content)
			}
		}
	}
	assert.Equal(t, []string{"turn one", "turn two"}, users)
	assert.Len(t, systems, 1, "the instruction, which the first run recorded, is not recorded again")
	records := flushedRecords(t, sink)
	runs := adaptertest.ByRun(records)
	var last string
	for id, recs := range runs {
		if recs[0].Payload.(*recorder.RunStarted).Turn == 1 {
			last = id
		}
	}
	in, err := messages.ModelInput(records, &messages.Options{RunID: last}, 0)
	require.NoError(t, err)
	var texts []string
	for _, m := range in {
		texts = append(texts, string(m.Role)+": "+m.Content.Text)
	}
	assert.Equal(t, []string{"system: You are a test agent.", "user: turn one", "assistant: first answer", "user: turn two"}, texts)

	// Each run's end holds what that run used, not the session's totals.
	var usages []recorder.RunUsage
	for _, rec := range flushedRecords(t, sink) {
		if p, ok := rec.Payload.(*recorder.RunEnded); ok {
			usages = append(usages, p.Usage)
		}
	}
	assert.Equal(t, []recorder.RunUsage{
		{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110, ModelCalls: 1},
		{PromptTokens: 200, CompletionTokens: 20, TotalTokens: 220, ModelCalls: 1},
	}, usages)
}

// Runs that share a session share its efficacy counts. Each run records
// its own, so the analytics of a conversation count every assessment the
// model was shown once.
func TestEfficacyCountsAreRecordedPerRunOfAConversation(t *testing.T) {
	sink := recorder.NewMemorySink()
	store := session.New(nil)
	ctx := session.NewContext(context.Background(), store)
	for range 2 {
		m := scripted.New(
			scripted.Call("search", `{"q":"a"}`),
			scripted.Call("fetch", `{"url":"b"}`),
			scripted.Reply("done"),
		)
		agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search"), echo("fetch")}, cfg: &lookout.Config{
			Recorder: adaptertest.NewRecorder(t, sink, nil), Observers: everyCall(),
		}})
		require.NoError(t, drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "find the billing owner")).err)
	}
	shownInSession := observerEfficacy(t, store)
	report := summary.Analyze(flushedRecords(t, sink))
	require.Len(t, report.Runs, 2)
	require.Len(t, report.Total.Efficacy, 1)
	total := report.Total.Efficacy[0]
	assert.Equal(t, 4, total.Reactions)
	assert.Equal(t, shownInSession, total.Shown, "the conversation's total counts each shown assessment once")
	for _, run := range report.Runs {
		require.Len(t, run.Efficacy, 1)
		assert.Equal(t, int64(2), run.Efficacy[0].Shown, "run %s", run.RunID)
	}
}

// observerEfficacy returns how many assessments of the one observer in
// store's efficacy counts were shown.
func observerEfficacy(t *testing.T, store *session.Store) int64 {
	t.Helper()
	eff, ok := session.ValueOf[observer.Efficacy](store).Latest()
	require.True(t, ok)
	require.Len(t, eff.ByObserver, 1)
	for _, c := range eff.ByObserver {
		return c.Shown
	}
	return 0
}

// gate is a middleware, registered outside Lookout's, that closes done
// once call first has come back through Lookout's tool wrapper and, when
// hold is set, keeps call then from reaching Lookout's wrapper until
// then.
type gate struct {
	*adk.BaseChatModelAgentMiddleware
	first, then string
	hold        bool
	done        chan struct{}
}

func (g *gate) WrapInvokableToolCall(_ context.Context, next adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		if g.hold && tc.CallID == g.then {
			<-g.done
		}
		out, err := next(ctx, args, opts...)
		if tc.CallID == g.first {
			close(g.done)
		}
		return out, err
	}, nil
}

// A tool call that ends the run with an error does so while the calls
// made beside it may still run, or not have started. Eino waits for them,
// and so does the recording: their records come before run_ended, the
// run's last record.
func TestRunEndedIsTheLastRecordWhenAToolCallEndsTheRun(t *testing.T) {
	abort := lookout.Config{ToolErrors: lookout.ToolErrorsAbort}
	for _, tc := range []struct {
		name string
		cfg  lookout.Config
		// late says the call beside starts only once the ending call has
		// returned; otherwise it runs until then.
		late bool
		// ending ends the run; running is closed once the call beside
		// it runs.
		ending func(ctx context.Context, running <-chan struct{}) (string, error)
	}{
		{
			name: "a tool error under ToolErrorsAbort, beside a call that runs",
			cfg:  abort,
			ending: func(_ context.Context, running <-chan struct{}) (string, error) {
				<-running
				return "", errors.New("permission denied")
			},
		},
		{
			name: "a tool error under ToolErrorsAbort, beside a call not started",
			cfg:  abort,
			late: true,
			ending: func(context.Context, <-chan struct{}) (string, error) {
				return "", errors.New("permission denied")
			},
		},
		{
			name: "the budget deadline",
			cfg:  lookout.Config{Limits: budget.Limits{Timeout: 20 * time.Millisecond}, WrapUpAt: -1, Now: adaptertest.NewClock().Now},
			ending: func(ctx context.Context, running <-chan struct{}) (string, error) {
				<-running
				<-ctx.Done()
				return "", ctx.Err()
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			running := make(chan struct{})
			g := &gate{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{},
				first: "call_end", then: "call_beside", hold: tc.late, done: make(chan struct{})}
			ending := fnTool{Name: "ending", Fn: func(ctx context.Context, _ string) (string, error) { return tc.ending(ctx, running) }}
			beside := fnTool{Name: "beside", Fn: func(context.Context, string) (string, error) {
				close(running)
				<-g.done
				return "finished after the other call", nil
			}}
			m := scripted.New(scripted.Calls(
				scripted.ToolCall{ID: "call_end", Name: "ending", Arguments: `{}`},
				scripted.ToolCall{ID: "call_beside", Name: "beside", Arguments: `{}`},
			), scripted.Reply("never reached"))
			sink := recorder.NewMemorySink()
			cfg := tc.cfg
			cfg.Recorder = adaptertest.NewRecorder(t, sink, nil)
			agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{ending, beside},
				handlers: []adk.ChatModelAgentMiddleware{g}, cfg: &cfg})
			o := runAgent(t, agent, nil, false)
			require.Error(t, o.err)

			records := flushedRecords(t, sink)
			require.NotEmpty(t, records)
			k := kinds(records)
			assert.Equal(t, 2, k[recorder.KindToolStarted], "both calls were recorded")
			assert.Equal(t, 2, k[recorder.KindToolEnded])
			assert.Equal(t, 1, k[recorder.KindRunEnded])
			last := records[len(records)-1]
			assert.Equal(t, recorder.KindRunEnded, last.Kind(), "run_ended is the last record")
		})
	}
}

// A run that Eino ends with an error before Lookout's first hook inside
// the agent (here another middleware's BeforeAgent fails) is recorded too.
func TestARunThatFailsBeforeItsFirstModelCallIsRecorded(t *testing.T) {
	sink := recorder.NewMemorySink()
	m := scripted.New(scripted.Reply("never reached"))
	mw, err := lookoutadk.New(context.Background(), &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)})
	require.NoError(t, err)
	// Lookout's BeforeAgent runs first; the other's fails after it.
	agent := newAgent(t, agentSpec{model: m, bare: true,
		handlers: []adk.ChatModelAgentMiddleware{mw, failingBeforeAgent{&adk.BaseChatModelAgentMiddleware{}}}})
	o := runAgent(t, mw.Agent(agent), nil, false)
	require.ErrorIs(t, o.err, errNoConfig)
	assert.Zero(t, m.Calls())

	records := adaptertest.Ended(t, sink)
	k := kinds(records)
	assert.Equal(t, 1, k[recorder.KindRunStarted])
	assert.Equal(t, 1, k[recorder.KindRunEnded])
	assert.Equal(t, "worker", records[0].Payload.(*recorder.RunStarted).AgentName)
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, recorder.OutcomeError, end.Outcome)
	assert.Contains(t, end.Error, errNoConfig.Error())
}

var errNoConfig = errors.New("no configuration")

// failingBeforeAgent is a middleware whose BeforeAgent fails.
type failingBeforeAgent struct {
	*adk.BaseChatModelAgentMiddleware
}

func (failingBeforeAgent) BeforeAgent(ctx context.Context, rc *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	return ctx, rc, errNoConfig
}

// handingTool is a streaming tool that closes handed once it has handed
// its stream back.
type handingTool struct {
	adaptertest.StreamTool
	handed chan struct{}
}

func (t handingTool) StreamableRun(ctx context.Context, args string, opts ...tool.Option) (*schema.StreamReader[string], error) {
	defer close(t.handed)
	return t.StreamTool.StreamableRun(ctx, args, opts...)
}

// Eino abandons the streams of a tool node whose other call fails. A
// stream nobody reads never ends, and the end of the run, recorded after
// the calls beside the failed one, does not wait for it.
func TestAnUnreadToolStreamDoesNotHoldTheRunsEnd(t *testing.T) {
	streamed := handingTool{StreamTool: adaptertest.StreamTool{Name: "streamed", Chunks: []string{"a", "b"}}, handed: make(chan struct{})}
	fail := fnTool{Name: "fail", Fn: func(context.Context, string) (string, error) {
		<-streamed.handed
		return "", errors.New("permission denied")
	}}
	m := scripted.New(scripted.Calls(
		scripted.ToolCall{ID: "call_fail", Name: "fail", Arguments: `{}`},
		scripted.ToolCall{ID: "call_streamed", Name: "streamed", Arguments: `{}`},
	), scripted.Reply("never reached"))
	sink := recorder.NewMemorySink()
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{fail, streamed},
		cfg: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil), ToolErrors: lookout.ToolErrorsAbort}})
	ctx := context.Background()
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: true}).Query(ctx, "do the task")
	var last error
	for {
		// The events' message streams are left unread.
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			last = ev.Err
		}
	}
	require.ErrorContains(t, last, "permission denied")
	records := adaptertest.Ended(t, sink)
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, recorder.OutcomeError, end.Outcome)
}
