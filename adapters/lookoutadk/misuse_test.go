package lookoutadk_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// reportedErrors collects what Config.OnError receives.
type reportedErrors struct {
	mu   sync.Mutex
	errs []error
}

func (r *reportedErrors) onError(_ context.Context, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err)
}

func (r *reportedErrors) list() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

// checkEveryRunEnded checks that each run_started in records has a
// run_ended of the same run, and returns how many runs there were.
func checkEveryRunEnded(t *testing.T, records []recorder.Record) int {
	t.Helper()
	started, ended := map[string]string{}, map[string]bool{}
	for _, r := range records {
		switch p := r.Payload.(type) {
		case *recorder.RunStarted:
			started[r.RunID] = p.AgentName
		case *recorder.RunEnded:
			ended[r.RunID] = true
		}
	}
	for id, name := range started {
		assert.True(t, ended[id], "the run of %s (%s) has a run_ended", name, id)
	}
	return len(started)
}

// A sequential workflow whose agents carry the middleware, given to the
// Runner without Middleware.Agent, is a misuse that Lookout reports
// through Config.OnError; every run it records still ends, whether the
// workflow succeeds or one of its agents fails.
func TestAWorkflowWithAnUnwrappedRootIsReported(t *testing.T) {
	for _, fails := range []bool{false, true} {
		name := "the workflow succeeds"
		if fails {
			name = "the second agent fails"
		}
		t.Run(name, func(t *testing.T) {
			var reported reportedErrors
			s := newShape(t, lookout.Config{OnError: reported.onError})
			first := s.agent("first", scripted.New(scripted.Reply("step one")))
			second := scripted.New(scripted.Call("search", `{}`), scripted.Reply("step two"))
			if fails {
				second = scripted.New(scripted.Fail(errModelDown))
			}
			root, err := adk.NewSequentialAgent(context.Background(), &adk.SequentialAgentConfig{
				Name: "pipeline", Description: "runs in turn",
				SubAgents: []adk.Agent{first, s.agent("second", second, echo("search"))},
			})
			require.NoError(t, err)

			o := runAgent(t, root, nil, false) // no s.mw.Agent(root)
			if fails {
				require.ErrorIs(t, o.err, errModelDown)
			} else {
				require.NoError(t, o.err)
			}
			assert.True(t, slices.ContainsFunc(reported.list(), func(err error) bool { return errors.Is(err, lookoutadk.ErrUnwrapped) }),
				"the unwrapped root is reported to OnError")
			runs := checkEveryRunEnded(t, flushedRecords(t, s.sink))
			assert.Positive(t, runs, "the agents' runs are recorded")
		})
	}
}

// A ChatModelAgent given to the Runner without Middleware.Agent whose
// model fails still records the end of its run, with the error.
func TestAnUnwrappedAgentThatFailsRecordsItsEnd(t *testing.T) {
	s := newShape(t, lookout.Config{OnError: func(context.Context, error) {}})
	agent := s.agent("worker", scripted.New(scripted.Fail(errModelDown)))

	o := runAgent(t, agent, nil, false) // no s.mw.Agent(agent)
	require.ErrorIs(t, o.err, errModelDown)
	records := flushedRecords(t, s.sink)
	require.Equal(t, 1, checkEveryRunEnded(t, records), "one run, ended")
	require.NotEmpty(t, records)
	last := records[len(records)-1]
	end, ok := last.Payload.(*recorder.RunEnded)
	require.True(t, ok, "run_ended is the last record")
	assert.Equal(t, recorder.OutcomeError, end.Outcome)
	assert.Contains(t, end.Error, errModelDown.Error())
}

// breakTool is the loop-breaking tool of the eino-examples loop: it sends
// a BreakLoopAction through adk.SendToolGenAction, and the agent lists it
// in ToolsConfig.ReturnDirectly, so the agent stops after calling it and
// the loop around the agent ends.
const breakTool = "exit_and_summarize"

type breakSummary struct {
	Summary string `json:"summary" jsonschema_description:"the final summary"`
}

func newBreakTool(t *testing.T, agentName string) tool.BaseTool {
	t.Helper()
	bt, err := utils.InferTool(breakTool, "leave the loop with a final summary",
		func(ctx context.Context, in *breakSummary) (string, error) {
			if err := adk.SendToolGenAction(ctx, breakTool, adk.NewBreakLoopAction(agentName)); err != nil {
				return "", err
			}
			return in.Summary, nil
		})
	require.NoError(t, err)
	return bt
}

// mayCall reports whether a model given opts may call the tool name, as
// a provider that honours the tool choice decides.
func mayCall(opts *model.Options, name string) bool {
	offered := slices.ContainsFunc(opts.Tools, func(ti *schema.ToolInfo) bool { return ti != nil && ti.Name == name })
	if !offered || (opts.ToolChoice != nil && *opts.ToolChoice == schema.ToolChoiceForbidden) {
		return false
	}
	return len(opts.AllowedToolNames) == 0 || slices.Contains(opts.AllowedToolNames, name)
}

// A loop that is left through a ReturnDirectly tool sending
// BreakLoopAction, the way the eino-examples loop leaves, exits cleanly
// on the wrap-up turn of a model-call limit, though the tool is not in
// Config.ControlTools: the wrap-up turn still lets the model call it.
func TestALoopsBreakToolStillWorksOnAWrapUpTurn(t *testing.T) {
	const limit = 3
	var calls int
	m := scripted.New(scripted.Forever(scripted.Func(func(_ context.Context, _ []*schema.Message, o *model.Options) (*schema.Message, error) {
		calls++ // the loop's agent runs one call at a time
		if calls < limit {
			return schema.AssistantMessage("still checking", nil), nil
		}
		if !mayCall(o, breakTool) {
			return schema.AssistantMessage("I would leave the loop, but I may not call "+breakTool, nil), nil
		}
		return schema.AssistantMessage("", []schema.ToolCall{{ID: "leave", Function: schema.FunctionCall{
			Name: breakTool, Arguments: `{"summary":"checked enough"}`,
		}}}), nil
	})))
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxModelCalls: limit}})
	checker, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: "checker", Description: "checks", Instruction: "Check, and leave the loop when done.", Model: m,
		ToolsConfig: adk.ToolsConfig{
			ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{newBreakTool(t, "checker"), echo("search")}},
			ReturnDirectly:  map[string]bool{breakTool: true},
		},
		Handlers: []adk.ChatModelAgentMiddleware{s.mw},
	})
	require.NoError(t, err)
	root, err := adk.NewLoopAgent(context.Background(), &adk.LoopAgentConfig{Name: "checking", Description: "checks until done", SubAgents: []adk.Agent{checker}, MaxIterations: 10})
	require.NoError(t, err)

	store := session.New(nil)
	o := runAgent(t, s.mw.Agent(root), store, false)
	require.NoError(t, o.err, "the loop ended through its break tool, not on the budget")
	broke := false
	for _, ev := range o.events {
		broke = broke || (ev.Action != nil && ev.Action.BreakLoop != nil)
	}
	assert.True(t, broke, "the break tool sent BreakLoopAction")

	requests := m.Requests()
	require.Equal(t, limit, len(requests), "no model call after the wrap-up turn")
	wrapUp := requests[limit-1]
	assert.Contains(t, wrapUp.ToolNames(), breakTool, "the wrap-up request describes the break tool")
	assert.False(t, wrapUp.ToolChoice != nil && *wrapUp.ToolChoice == schema.ToolChoiceForbidden,
		"the wrap-up request does not forbid every tool")
	if len(wrapUp.AllowedToolNames) > 0 {
		assert.Contains(t, wrapUp.AllowedToolNames, breakTool, "the break tool is among the tools allowed")
		assert.NotContains(t, wrapUp.AllowedToolNames, "search", "other tools stay withheld")
	}
	b, _ := lookout.BudgetOf(store)
	assert.Equal(t, int64(limit), b.ModelCalls)
	records := flushedRecords(t, s.sink)
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, recorder.OutcomeCompleted, end.Outcome)
}

// An unwrapped agent that retries a failed model call is not ended by
// the failure: the retry answers, and the run ends completed, its
// run_ended last.
func TestAnUnwrappedAgentThatRetriesEndsOnItsAnswer(t *testing.T) {
	s := newShape(t, lookout.Config{OnError: func(context.Context, error) {}})
	agent, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: "worker", Description: "works", Instruction: "Work.",
		Model:            scripted.New(scripted.Fail(errModelDown), scripted.Reply("done")),
		ModelRetryConfig: &adk.ModelRetryConfig{MaxRetries: 1},
		Handlers:         []adk.ChatModelAgentMiddleware{s.mw},
	})
	require.NoError(t, err)

	o := runAgent(t, agent, nil, false) // no s.mw.Agent(agent)
	require.NoError(t, o.err)
	records := flushedRecords(t, s.sink)
	require.Equal(t, 1, checkEveryRunEnded(t, records), "one run, ended")
	end, ok := records[len(records)-1].Payload.(*recorder.RunEnded)
	require.True(t, ok, "run_ended is the last record")
	assert.Equal(t, recorder.OutcomeCompleted, end.Outcome)
}
