package simulate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func chain() *Graph {
	return &Graph{
		Steps: []Step{
			{ID: "a", Instruction: "do a"},
			{ID: "b", Instruction: "do b", Preconditions: []Precondition{After("a")}},
			{ID: "c", Instruction: "do c", Preconditions: []Precondition{After("b")}},
		},
		Start:     "a",
		Terminals: []string{"c"},
	}
}

func TestSelection(t *testing.T) {
	ctx := context.Background()

	t.Run("start step first, then preconditioned steps in graph order", func(t *testing.T) {
		r := &Runner{UserModel: stepUser(), Ranker: noRanking(t)}
		res, err := r.Run(ctx, &Scenario{Goal: "g", Graph: chain()}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, []Method{MethodStart, MethodPreconditions, MethodPreconditions}, methods(res))
		assert.Equal(t, []string{"a", "b", "c"}, stepIDs(res))
		assert.Equal(t, "I want to do b", res.Traces[1].User.Content)
	})

	t.Run("preconditioned step wins over the ranker even when listed later", func(t *testing.T) {
		g := &Graph{Steps: []Step{
			{ID: "free", Instruction: "anything"},
			{ID: "gated", Instruction: "gated", Preconditions: []Precondition{When("always", func(context.Context, Progress) (bool, error) { return true, nil })}},
		}}
		r := &Runner{UserModel: stepUser(), Ranker: noRanking(t)}
		res, err := r.Run(ctx, &Scenario{Goal: "g", Graph: g, MaxTurns: 1}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, []string{"gated"}, stepIDs(res))
		assert.Equal(t, []Method{MethodPreconditions}, methods(res))
	})

	t.Run("ranker picks the best score above 0.5 and drops 0.5 itself", func(t *testing.T) {
		g := &Graph{Steps: []Step{{ID: "x", Instruction: "x"}, {ID: "y", Instruction: "y"}, {ID: "z", Instruction: "z"}}}
		ranked := []Candidate{{StepID: "x", Score: 0.5}, {StepID: "y", Score: 0.51, Reasons: []string{"fits"}}, {StepID: "z", Score: 0.2}}
		r := &Runner{UserModel: stepUser(), Ranker: fixedRanking(ranked...)}
		res, err := r.Run(ctx, &Scenario{Goal: "g", Graph: g, MaxTurns: 1}, echoTarget())
		require.NoError(t, err)
		tr := res.Traces[0]
		assert.Equal(t, MethodRanked, tr.Selection.Method)
		assert.Equal(t, "y", tr.StepID)
		assert.Equal(t, ranked, tr.Selection.Candidates, "every score is recorded, dropped ones too")
	})

	t.Run("ranker sees only eligible steps and recent traces with tool messages", func(t *testing.T) {
		g := &Graph{Steps: []Step{
			{ID: "x", Instruction: "x"},
			{ID: "blocked", Instruction: "b", Preconditions: []Precondition{When("no", never)}},
		}}
		var seen []RankInput
		rk := RankerFunc(func(_ context.Context, in RankInput) ([]Candidate, error) {
			seen = append(seen, in)
			return nil, nil
		})
		r := &Runner{UserModel: stepUser(), Ranker: rk}
		_, err := r.Run(ctx, &Scenario{Goal: "g", Graph: g, MaxTurns: 3}, toolTarget(func(int) string { return "lookup" }))
		require.NoError(t, err)
		require.Len(t, seen, 3)
		require.Len(t, seen[0].Steps, 1)
		assert.Equal(t, "x", seen[0].Steps[0].ID)
		assert.Empty(t, seen[0].Traces)
		require.Len(t, seen[2].Traces, 1, "default rank context is one turn")
		assert.Equal(t, 1, seen[2].Traces[0].Turn)
		assert.Equal(t, schema.Tool, seen[2].Traces[0].Agent[1].Role)
	})

	t.Run("no step when every score is at or below 0.5", func(t *testing.T) {
		g := &Graph{Steps: []Step{{ID: "x", Instruction: "x"}, {ID: "y", Instruction: "y"}}}
		r := &Runner{UserModel: stepUser(), Ranker: fixedRanking(Candidate{StepID: "x", Score: 0.5}, Candidate{StepID: "y", Score: 0.1})}
		res, err := r.Run(ctx, &Scenario{Goal: "g", Graph: g, MaxTurns: 1}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, MethodNone, res.Traces[0].Selection.Method)
		assert.Empty(t, res.Traces[0].StepID)
		assert.Len(t, res.Traces[0].Selection.Candidates, 2)
		assert.Equal(t, "just chatting", res.Traces[0].User.Content)
	})

	t.Run("no step when the ranker fails and the scenario degrades, and the run goes on", func(t *testing.T) {
		g := &Graph{Steps: []Step{{ID: "x", Instruction: "x"}}}
		rk := RankerFunc(func(context.Context, RankInput) ([]Candidate, error) { panic("boom") })
		r := &Runner{UserModel: stepUser(), Ranker: rk}
		res, err := r.Run(ctx, &Scenario{Goal: "g", Graph: g, MaxTurns: 2, OnRankerFailure: RankerDegrade}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, []Method{MethodNone, MethodNone}, methods(res))
		assert.Contains(t, res.Traces[0].Selection.RankError, "boom")
		assert.True(t, res.Traces[0].Selection.Degraded)
		assert.Equal(t, 2, res.End.DegradedTurns)
		assert.Contains(t, res.End.Summary, "The ranker failed in 2 turns")
	})

	t.Run("no step without a graph", func(t *testing.T) {
		r := &Runner{UserModel: stepUser(), Ranker: noRanking(t)}
		res, err := r.Run(ctx, &Scenario{Goal: "g", MaxTurns: 2}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, []Method{MethodNone, MethodNone}, methods(res))
	})

	t.Run("default ranker reads scores from the user model when no ranker is set", func(t *testing.T) {
		m := &fakeModel{fn: func(_ int, in []*schema.Message) (*schema.Message, error) {
			if strings.Contains(in[0].Content, "Score every candidate") {
				return schema.AssistantMessage("Sure!\n```json\n{\"scores\":[{\"stepId\":\"y\",\"score\":0.9}]}\n```", nil), nil
			}
			return schema.AssistantMessage("hello", nil), nil
		}}
		g := &Graph{Steps: []Step{{ID: "x", Instruction: "x"}, {ID: "y", Instruction: "y"}}}
		res, err := (&Runner{UserModel: m}).Run(ctx, &Scenario{Goal: "g", Graph: g, MaxTurns: 1}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, MethodRanked, res.Traces[0].Selection.Method)
		assert.Equal(t, "y", res.Traces[0].StepID)
	})
}

func TestStops(t *testing.T) {
	ctx := context.Background()

	t.Run("goal-reached when a terminal step is satisfied", func(t *testing.T) {
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g", Graph: chain(), MaxTurns: 10}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, StopGoalReached, res.End.Reason)
		assert.True(t, res.End.Completed)
		assert.Len(t, res.Traces, 3)
	})

	t.Run("goal-reached when every step is satisfied and there are no terminals", func(t *testing.T) {
		g := chain()
		g.Terminals = nil
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g", Graph: g}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, StopGoalReached, res.End.Reason)
		assert.Len(t, res.Traces, 3)
	})

	t.Run("max-turns when the turns run out", func(t *testing.T) {
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g", MaxTurns: 3}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, StopMaxTurns, res.End.Reason)
		assert.False(t, res.End.Completed)
		assert.Len(t, res.Traces, 3)
	})

	t.Run("zero MaxTurns means the default", func(t *testing.T) {
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g"}, echoTarget())
		require.NoError(t, err)
		assert.Len(t, res.Traces, DefaultMaxTurns)
	})

	t.Run("max-turns backstops a policy that never stops", func(t *testing.T) {
		p := PolicyFunc(func(context.Context, Progress) (Verdict, error) { return Verdict{}, nil })
		res, err := (&Runner{UserModel: stepUser(), Policy: p}).Run(ctx, &Scenario{Goal: "g", MaxTurns: 2}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, StopMaxTurns, res.End.Reason)
		assert.Len(t, res.Traces, 2)
	})

	t.Run("policy-violation from a custom policy, with its note in the summary", func(t *testing.T) {
		p := PolicyFunc(func(ctx context.Context, s Progress) (Verdict, error) {
			last := s.Traces[len(s.Traces)-1]
			if strings.Contains(last.Agent[0].Content, "password") {
				return Verdict{Stop: true, Reason: StopPolicyViolation, Note: "agent asked for a password"}, nil
			}
			return DefaultPolicy{}.Evaluate(ctx, s)
		})
		n := 0
		target := TargetFunc(func(context.Context, []*schema.Message) ([]*schema.Message, error) {
			n++
			if n == 2 {
				return []*schema.Message{schema.AssistantMessage("what is your password?", nil)}, nil
			}
			return []*schema.Message{schema.AssistantMessage("hi", nil)}, nil
		})
		res, err := (&Runner{UserModel: stepUser(), Policy: p}).Run(ctx, &Scenario{Goal: "g", MaxTurns: 5}, target)
		require.NoError(t, err)
		assert.Equal(t, StopPolicyViolation, res.End.Reason)
		assert.Len(t, res.Traces, 2)
		assert.Contains(t, res.End.Summary, "agent asked for a password")
	})

	t.Run("agent-loop when the same step would be chosen more than LoopLimit times", func(t *testing.T) {
		g := &Graph{Steps: []Step{{ID: "stuck", Instruction: "s", Satisfied: never, Preconditions: []Precondition{When("yes", func(context.Context, Progress) (bool, error) { return true, nil })}}}}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g", Graph: g, LoopLimit: 2, MaxTurns: 10}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, StopAgentLoop, res.End.Reason)
		assert.Equal(t, []string{"stuck", "stuck"}, stepIDs(res))
		require.NotNil(t, res.Traces[1].End)
		assert.Equal(t, StopAgentLoop, res.Traces[1].End.Reason)
		assert.Nil(t, res.Traces[0].End)
	})

	t.Run("default loop limit is 3", func(t *testing.T) {
		g := &Graph{Start: "stuck", Steps: []Step{{ID: "stuck", Instruction: "s", Satisfied: never}}}
		rk := fixedRanking(Candidate{StepID: "stuck", Score: 1})
		res, err := (&Runner{UserModel: stepUser(), Ranker: rk}).Run(ctx, &Scenario{Goal: "g", Graph: g}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, StopAgentLoop, res.End.Reason)
		assert.Equal(t, []Method{MethodStart, MethodRanked, MethodRanked}, methods(res))
	})

	t.Run("error from the agent is attributed to the agent", func(t *testing.T) {
		boom := errors.New("model unavailable")
		target := TargetFunc(func(context.Context, []*schema.Message) ([]*schema.Message, error) {
			return []*schema.Message{schema.AssistantMessage("partial", nil)}, boom
		})
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g"}, target)
		var re *RunError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, SideAgent, re.Side)
		assert.Equal(t, "respond", re.Op)
		assert.ErrorIs(t, err, ErrAgent)
		assert.ErrorIs(t, err, boom)
		assert.NotErrorIs(t, err, ErrSimulator)
		assert.Equal(t, StopError, res.End.Reason)
		assert.Equal(t, SideAgent, res.End.ErrorSide)
		require.Len(t, res.Traces, 1, "the failed turn keeps the user message and partial output")
		assert.Equal(t, "partial", res.Traces[0].Agent[0].Content)
		assert.Equal(t, StopError, res.Traces[0].End.Reason)
	})

	t.Run("a panicking agent is an agent error, not a crash", func(t *testing.T) {
		target := TargetFunc(func(context.Context, []*schema.Message) ([]*schema.Message, error) { panic("nil map") })
		_, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g"}, target)
		assert.ErrorIs(t, err, ErrAgent)
		assert.ErrorIs(t, err, ErrPanicked)
	})

	t.Run("error from the user model is attributed to the simulator", func(t *testing.T) {
		m := &fakeModel{fn: func(n int, _ []*schema.Message) (*schema.Message, error) {
			if n == 1 {
				return nil, errors.New("rate limited")
			}
			return schema.AssistantMessage("hi", nil), nil
		}}
		res, err := (&Runner{UserModel: m}).Run(ctx, &Scenario{Goal: "g"}, echoTarget())
		assert.ErrorIs(t, err, ErrSimulator)
		assert.Equal(t, SideSimulator, res.End.ErrorSide)
		assert.Contains(t, res.End.Error, "rate limited")
		require.Len(t, res.Traces, 1)
		assert.Equal(t, StopError, res.Traces[0].End.Reason, "the last trace carries the end")
	})

	t.Run("an empty user message is a simulator error", func(t *testing.T) {
		m := &fakeModel{fn: func(int, []*schema.Message) (*schema.Message, error) { return schema.AssistantMessage("  ", nil), nil }}
		res, err := (&Runner{UserModel: m}).Run(ctx, &Scenario{Goal: "g"}, echoTarget())
		assert.ErrorIs(t, err, ErrEmptyUserMessage)
		assert.Empty(t, res.Traces)
		assert.Equal(t, StopError, res.End.Reason)
	})

	t.Run("a cancelled context stops the run as a simulator error", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		target := TargetFunc(func(ctx context.Context, h []*schema.Message) ([]*schema.Message, error) {
			cancel()
			return nil, errors.New("aborted")
		})
		res, err := (&Runner{UserModel: stepUser()}).Run(cctx, &Scenario{Goal: "g"}, target)
		assert.ErrorIs(t, err, context.Canceled)
		assert.ErrorIs(t, err, ErrSimulator)
		assert.Equal(t, SideSimulator, res.End.ErrorSide)
	})

	t.Run("a failing policy is a simulator error", func(t *testing.T) {
		p := PolicyFunc(func(context.Context, Progress) (Verdict, error) { return Verdict{}, errors.New("bad rule") })
		_, err := (&Runner{UserModel: stepUser(), Policy: p}).Run(ctx, &Scenario{Goal: "g"}, echoTarget())
		var re *RunError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, "policy", re.Op)
		assert.Equal(t, SideSimulator, re.Side)
	})
}

func TestAttemptsAreCappedByMaxAttempts(t *testing.T) {
	g := &Graph{Start: "a", Steps: []Step{{ID: "a", Instruction: "a", MaxAttempts: 2, Satisfied: never}}}
	rk := fixedRanking(Candidate{StepID: "a", Score: 0.9})
	res, err := (&Runner{UserModel: stepUser(), Ranker: rk}).Run(context.Background(), &Scenario{Goal: "g", Graph: g, MaxTurns: 4, LoopLimit: 10}, echoTarget())
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "a", "", ""}, stepIDs(res))
	st := stepState(res, "a")
	assert.Equal(t, StatusFailed, st.Status)
	assert.Equal(t, 2, st.Attempts)
}

func TestStepTimeoutUsesTheRunnerClock(t *testing.T) {
	clk := newClock(time.Minute)
	g := &Graph{Start: "a", Steps: []Step{{ID: "a", Instruction: "a", Timeout: 3 * time.Minute, Satisfied: never}}}
	rk := fixedRanking(Candidate{StepID: "a", Score: 0.9})
	r := &Runner{UserModel: stepUser(), Ranker: rk, Clock: clk.Now}
	res, err := r.Run(context.Background(), &Scenario{Goal: "g", Graph: g, MaxTurns: 5, LoopLimit: 10}, echoTarget())
	require.NoError(t, err)
	// The clock moves a minute per reading and a turn reads it several
	// times, so the step is past three minutes old when its second turn
	// settles. Without the timeout it would be attempted in every turn.
	assert.Equal(t, []string{"a", "a", "", "", ""}, stepIDs(res))
	st := stepState(res, "a")
	assert.Equal(t, StatusFailed, st.Status)
	assert.Equal(t, 2, st.Attempts)
}

func TestStepTimeoutOnAClockThatStartsAtTheZeroTime(t *testing.T) {
	// A fake clock counting from time.Time{} is a common test pattern; its
	// first reading is a time like any other. Here the agent takes a
	// minute per turn.
	var now atomic.Int64 // minutes since time.Time{}
	clock := func() time.Time { return time.Time{}.Add(time.Duration(now.Load()) * time.Minute) }
	slowAgent := TargetFunc(func(ctx context.Context, h []*schema.Message) ([]*schema.Message, error) {
		now.Add(1)
		return echoTarget()(ctx, h)
	})
	g := &Graph{Start: "a", Steps: []Step{{ID: "a", Instruction: "a", Timeout: 3 * time.Minute, Satisfied: never}}}
	rk := fixedRanking(Candidate{StepID: "a", Score: 0.9})
	r := &Runner{UserModel: stepUser(), Ranker: rk, Clock: clock}
	res, err := r.Run(context.Background(), &Scenario{Goal: "g", Graph: g, MaxTurns: 6, LoopLimit: 10}, slowAgent)
	require.NoError(t, err)
	// First attempt at minute 0; the third turn settles at minute 3.
	assert.Equal(t, []string{"a", "a", "a", "", "", ""}, stepIDs(res))
	assert.Equal(t, StatusFailed, stepState(res, "a").Status)
	assert.Equal(t, 3, stepState(res, "a").Attempts)
}

func TestStepStatesAndTimestamps(t *testing.T) {
	clk := newClock(time.Second)
	g := chain()
	g.Steps = append(g.Steps, Step{ID: "never", Instruction: "n", Preconditions: []Precondition{When("no", never)}})
	r := &Runner{UserModel: stepUser(), Clock: clk.Now, Ranker: noRanking(t)}
	res, err := r.Run(context.Background(), &Scenario{Goal: "g", Graph: g}, echoTarget())
	require.NoError(t, err)
	require.Len(t, res.Steps, 4)
	for _, id := range []string{"a", "b", "c"} {
		assert.Equal(t, StatusSatisfied, stepState(res, id).Status, id)
		assert.Equal(t, 1, stepState(res, id).Attempts, id)
	}
	assert.Equal(t, StatusSkipped, stepState(res, "never").Status)
	assert.True(t, stepState(res, "c").UpdatedAt.After(stepState(res, "a").UpdatedAt))
	assert.True(t, res.Traces[1].Timestamp.After(res.Traces[0].Timestamp))
}

func TestCustomPreconditionsRunInParallel(t *testing.T) {
	const n = 4
	var started atomic.Int32
	all := make(chan struct{})
	barrier := func(context.Context, Progress) (bool, error) {
		if started.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
			return true, nil
		case <-time.After(10 * time.Second):
			return false, errors.New("the other checks never started: preconditions are not evaluated in parallel")
		}
	}
	var steps []Step
	for i := range n {
		steps = append(steps, Step{ID: string(rune('a' + i)), Instruction: "x", Preconditions: []Precondition{When("barrier", barrier)}})
	}
	r := &Runner{UserModel: stepUser(), Ranker: noRanking(t)}
	res, err := r.Run(context.Background(), &Scenario{Goal: "g", Graph: &Graph{Steps: steps}, MaxTurns: 1}, echoTarget())
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, stepIDs(res))
}

func TestPreconditionsSeeTheStateSnapshot(t *testing.T) {
	var got []int
	g := &Graph{Steps: []Step{
		{ID: "a", Instruction: "a"},
		{ID: "b", Instruction: "b", Preconditions: []Precondition{When("after two turns", func(_ context.Context, s Progress) (bool, error) {
			got = append(got, len(s.Traces))
			return len(s.Traces) >= 2 && s.Satisfied("a") && s.Attempts("a") == 1, nil
		})}},
	}, Start: "a"}
	r := &Runner{UserModel: stepUser(), Ranker: fixedRanking()}
	res, err := r.Run(context.Background(), &Scenario{Goal: "g", Graph: g, MaxTurns: 3}, echoTarget())
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "", "b"}, stepIDs(res))
	assert.Equal(t, []int{0, 1, 2}, got)
}

func TestFailingPreconditionStopsTheRun(t *testing.T) {
	g := &Graph{Steps: []Step{{ID: "a", Instruction: "a", Preconditions: []Precondition{
		When("explodes", func(context.Context, Progress) (bool, error) { panic("oops") }),
	}}}}
	res, err := (&Runner{UserModel: stepUser()}).Run(context.Background(), &Scenario{Goal: "g", Graph: g}, echoTarget())
	assert.ErrorIs(t, err, ErrPanicked)
	assert.ErrorIs(t, err, ErrSimulator)
	assert.Contains(t, err.Error(), `step "a" precondition "explodes"`)
	assert.Equal(t, StopError, res.End.Reason)
}

func TestSatisfaction(t *testing.T) {
	ctx := context.Background()

	t.Run("default: a text answer satisfies the attempted step", func(t *testing.T) {
		g := &Graph{Start: "a", Terminals: []string{"a"}, Steps: []Step{{ID: "a", Instruction: "a"}}}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g", Graph: g}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, StatusSatisfied, stepState(res, "a").Status)
		assert.Equal(t, StopGoalReached, res.End.Reason)
	})

	t.Run("default: a turn ending in a tool call or with no reply does not", func(t *testing.T) {
		replies := [][]*schema.Message{
			{schema.AssistantMessage("", []schema.ToolCall{{ID: "1", Function: schema.FunctionCall{Name: "t"}}})},
			{},
			{schema.AssistantMessage("", []schema.ToolCall{{ID: "2", Function: schema.FunctionCall{Name: "t"}}}), schema.ToolMessage("r", "2")},
			{schema.AssistantMessage("finally", nil)},
		}
		n := 0
		target := TargetFunc(func(context.Context, []*schema.Message) ([]*schema.Message, error) {
			n++
			return replies[n-1], nil
		})
		g := &Graph{Start: "a", Terminals: []string{"a"}, Steps: []Step{{ID: "a", Instruction: "a"}}}
		rk := fixedRanking(Candidate{StepID: "a", Score: 1})
		res, err := (&Runner{UserModel: stepUser(), Ranker: rk}).Run(ctx, &Scenario{Goal: "g", Graph: g, LoopLimit: 5}, target)
		require.NoError(t, err)
		assert.Len(t, res.Traces, 4)
		assert.Equal(t, StatusSatisfied, stepState(res, "a").Status)
		assert.Equal(t, 4, stepState(res, "a").Attempts)
	})

	t.Run("custom: the step's own check decides", func(t *testing.T) {
		booked := func(_ context.Context, s Progress) (bool, error) {
			last := s.Traces[len(s.Traces)-1]
			for _, m := range last.Agent {
				if m.Role == schema.Tool && m.ToolName == "book" {
					return true, nil
				}
			}
			return false, nil
		}
		g := &Graph{Start: "book", Terminals: []string{"book"}, Steps: []Step{{ID: "book", Instruction: "book it", Satisfied: booked}}}
		rk := fixedRanking(Candidate{StepID: "book", Score: 1})
		target := toolTarget(func(turn int) string { return map[int]string{2: "book"}[turn] })
		res, err := (&Runner{UserModel: stepUser(), Ranker: rk}).Run(ctx, &Scenario{Goal: "g", Graph: g}, target)
		require.NoError(t, err)
		assert.Len(t, res.Traces, 3, "text answers in turns 0 and 1 do not satisfy a custom check")
		assert.Equal(t, StopGoalReached, res.End.Reason)
	})

	t.Run("custom: a step can be satisfied without being selected", func(t *testing.T) {
		searched := func(_ context.Context, s Progress) (bool, error) {
			for _, tr := range s.Traces {
				for _, m := range tr.Agent {
					if m.ToolName == "search" {
						return true, nil
					}
				}
			}
			return false, nil
		}
		g := &Graph{Start: "hello", Steps: []Step{
			{ID: "hello", Instruction: "greet"},
			{ID: "search", Instruction: "ask for a search", Satisfied: searched},
		}}
		target := toolTarget(func(int) string { return "search" })
		res, err := (&Runner{UserModel: stepUser(), Ranker: noRanking(t)}).Run(ctx, &Scenario{Goal: "g", Graph: g}, target)
		require.NoError(t, err)
		assert.Equal(t, []string{"hello"}, stepIDs(res))
		assert.Equal(t, StatusSatisfied, stepState(res, "search").Status)
		assert.Equal(t, 0, stepState(res, "search").Attempts)
		assert.Equal(t, StopGoalReached, res.End.Reason)
	})
}

func TestCheckableEnds(t *testing.T) {
	ctx := context.Background()
	graph := func() *Graph {
		return &Graph{Start: "ask", Terminals: []string{"confirm"}, Steps: []Step{
			{ID: "ask", Instruction: "ask for a trip"},
			{ID: "confirm", Instruction: "say it is booked", Preconditions: []Precondition{After("ask")}},
		}}
	}

	t.Run("a terminal step reached without the booking does not end the run", func(t *testing.T) {
		target := toolTarget(func(turn int) string { return map[int]string{3: "book"}[turn] })
		sc := &Scenario{Goal: "g", Graph: graph(), Goals: []Goal{ToolCalled("book")}, LoopLimit: 5}
		rk := fixedRanking()
		res, err := (&Runner{UserModel: stepUser(), Ranker: rk}).Run(ctx, sc, target)
		require.NoError(t, err)
		assert.Equal(t, StatusSatisfied, stepState(res, "confirm").Status)
		assert.Len(t, res.Traces, 4, "the run goes on until the agent actually books")
		assert.Equal(t, StopGoalReached, res.End.Reason)
		assert.True(t, res.End.Completed)
		assert.Equal(t, []GoalResult{{Name: "called book", Met: true, Turn: 3}}, res.End.Goals)
	})

	t.Run("the run stops as soon as the goals are met, before any terminal", func(t *testing.T) {
		target := toolTarget(func(turn int) string { return "book" })
		sc := &Scenario{Goal: "g", Graph: graph(), Goals: []Goal{ToolCalled("book")}}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, sc, target)
		require.NoError(t, err)
		assert.Len(t, res.Traces, 1)
		assert.Equal(t, StopGoalReached, res.End.Reason)
		assert.Equal(t, StatusSkipped, stepState(res, "confirm").Status)
	})

	t.Run("goals never met end on max turns, not completed", func(t *testing.T) {
		sc := &Scenario{Goal: "g", Graph: graph(), Goals: []Goal{ToolCalled("book")}, MaxTurns: 3, LoopLimit: 5}
		res, err := (&Runner{UserModel: stepUser(), Ranker: fixedRanking()}).Run(ctx, sc, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, StopMaxTurns, res.End.Reason)
		assert.False(t, res.End.Completed)
		assert.Equal(t, []GoalResult{{Name: "called book", Turn: -1}}, res.End.Goals)
		assert.Contains(t, res.End.Summary, "called book not met")
	})

	t.Run("goals read tool arguments and results", func(t *testing.T) {
		toLisbon := ToolCalledWith("book", func(c ToolCall) bool {
			var a struct{ City string }
			return c.Args(&a) == nil && a.City == "Lisbon" && c.Result == "book done"
		})
		toParis := ToolCalledWith("book", func(c ToolCall) bool { return strings.Contains(c.Arguments, "Paris") })
		toParis.Name = "booked Paris"
		sc := &Scenario{Goal: "g", Goals: []Goal{toLisbon, toParis}, MaxTurns: 2}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, sc, toolTarget(func(int) string { return "book" }))
		require.NoError(t, err)
		assert.Equal(t, StopMaxTurns, res.End.Reason)
		assert.True(t, res.End.Goals[0].Met)
		assert.False(t, res.End.Goals[1].Met)
		require.Len(t, res.ToolCalls, 2)
		assert.Equal(t, ToolCall{Turn: 0, ID: "call-book", Name: "book", Arguments: `{"city":"Lisbon"}`, Result: "book done", Answered: true}, res.ToolCalls[0])
	})

	t.Run("an unanswered call does not meet ToolCalled", func(t *testing.T) {
		target := TargetFunc(func(context.Context, []*schema.Message) ([]*schema.Message, error) {
			return []*schema.Message{schema.AssistantMessage("", []schema.ToolCall{{ID: "x", Function: schema.FunctionCall{Name: "book"}}})}, nil
		})
		sc := &Scenario{Goal: "g", Goals: []Goal{ToolCalled("book")}, MaxTurns: 1}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, sc, target)
		require.NoError(t, err)
		assert.False(t, res.End.Completed)
		assert.False(t, res.ToolCalls[0].Answered)
	})

	t.Run("a goal that errors stops the run as a simulator error", func(t *testing.T) {
		bad := Goal{Name: "bad", Met: func(context.Context, Evidence) (bool, error) { return false, errors.New("db down") }}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g", Goals: []Goal{bad}}, echoTarget())
		assert.ErrorIs(t, err, ErrSimulator)
		assert.Equal(t, "db down", res.End.Goals[0].Error)
	})
}

func TestUserPrompt(t *testing.T) {
	m := stepUser()
	sc := &Scenario{
		Goal:    "book a trip to Lisbon",
		Persona: Persona{Name: "Ana", Description: "a busy nurse", Guardrails: []string{"never share card numbers", "stay polite"}},
		Graph: &Graph{Start: "s", Steps: []Step{
			{ID: "s", Instruction: "ask for flights", Hints: []string{"mention May"}, Satisfied: never},
		}},
		MaxTurns: 4, LoopLimit: 10,
	}
	turn := 0
	target := toolTarget(func(int) string { turn++; return "search" + string(rune('0'+turn)) })
	_, err := (&Runner{UserModel: m, Ranker: fixedRanking(), UserContextTurns: 2}).Run(context.Background(), sc, target)
	require.NoError(t, err)
	in := m.inputs()
	require.Len(t, in, 4)
	sys := in[0][0].Content
	for _, want := range []string{"Ana", "a busy nurse", "book a trip to Lisbon", "- never share card numbers", "- stay polite"} {
		assert.Contains(t, sys, want)
	}
	first := in[0][1].Content
	assert.Contains(t, first, "has not started")
	assert.Contains(t, first, "What to do in this message: ask for flights")
	assert.Contains(t, first, "- mention May")

	last := in[3][1].Content
	assert.NotContains(t, last, "search1", "only the last two turns are shown")
	assert.Contains(t, last, "Assistant called tool search2 with {\"city\":\"Lisbon\"}")
	assert.Contains(t, last, "Tool result from search3: search3 done")
	assert.Contains(t, last, "No particular step applies now")
}

func TestTargetGetsTheWholeHistory(t *testing.T) {
	var lens []int
	var prev []*schema.Message
	target := TargetFunc(func(_ context.Context, h []*schema.Message) ([]*schema.Message, error) {
		lens = append(lens, len(h))
		for i := range prev {
			if h[i] != prev[i] {
				t.Errorf("history changed at %d", i)
			}
		}
		assert.Equal(t, schema.User, h[len(h)-1].Role)
		// Appending to the history must not corrupt the runner's copy.
		_ = append(h, schema.AssistantMessage("scribble", nil))
		prev = h
		return []*schema.Message{schema.AssistantMessage("a", nil), nil, schema.ToolMessage("t", "x")}, nil
	})
	res, err := (&Runner{UserModel: stepUser()}).Run(context.Background(), &Scenario{Goal: "g", MaxTurns: 3}, target)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 4, 7}, lens)
	conv := res.Conversation()
	assert.Len(t, conv, 9)
	for _, m := range conv {
		assert.NotEqual(t, "scribble", m.Content)
	}
}

func TestInvalidInput(t *testing.T) {
	ctx := context.Background()
	bad := map[string]*Scenario{
		"nil scenario":                  nil,
		"no goal":                       {},
		"negative max turns":            {Goal: "g", MaxTurns: -1},
		"empty step id":                 {Goal: "g", Graph: &Graph{Steps: []Step{{}}}},
		"duplicate step id":             {Goal: "g", Graph: &Graph{Steps: []Step{{ID: "a"}, {ID: "a"}}}},
		"unknown start":                 {Goal: "g", Graph: &Graph{Start: "x", Steps: []Step{{ID: "a"}}}},
		"unknown terminal":              {Goal: "g", Graph: &Graph{Terminals: []string{"x"}, Steps: []Step{{ID: "a"}}}},
		"precondition on unknown step":  {Goal: "g", Graph: &Graph{Steps: []Step{{ID: "a", Preconditions: []Precondition{After("x")}}}}},
		"precondition with no check":    {Goal: "g", Graph: &Graph{Steps: []Step{{ID: "a", Preconditions: []Precondition{{Name: "n"}}}}}},
		"precondition with both checks": {Goal: "g", Graph: &Graph{Steps: []Step{{ID: "a", Preconditions: []Precondition{{Step: "a", Check: never}}}}}},
		"goal without a function":       {Goal: "g", Goals: []Goal{{Name: "x"}}},
		"negative attempts":             {Goal: "g", Graph: &Graph{Steps: []Step{{ID: "a", MaxAttempts: -1}}}},
	}
	for name, sc := range bad {
		t.Run(name+" is rejected", func(t *testing.T) {
			res, err := (&Runner{UserModel: stepUser()}).Run(ctx, sc, echoTarget())
			assert.Nil(t, res)
			assert.ErrorIs(t, err, ErrInvalidScenario)
			var se *ScenarioError
			assert.ErrorAs(t, err, &se)
		})
	}
	t.Run("a runner without a user model is rejected", func(t *testing.T) {
		_, err := (&Runner{}).Run(ctx, &Scenario{Goal: "g"}, echoTarget())
		assert.ErrorIs(t, err, ErrNoUserModel)
	})
	t.Run("a nil target is rejected", func(t *testing.T) {
		_, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g"}, nil)
		assert.ErrorIs(t, err, ErrNoTarget)
	})
}

func TestConversationIDDefaultsToAUUID(t *testing.T) {
	r := &Runner{UserModel: stepUser()}
	a, err := r.Run(context.Background(), &Scenario{Goal: "g", MaxTurns: 1}, echoTarget())
	require.NoError(t, err)
	b, err := r.Run(context.Background(), &Scenario{Goal: "g", MaxTurns: 1}, echoTarget())
	require.NoError(t, err)
	assert.Len(t, a.ConversationID, 36)
	assert.NotEqual(t, a.ConversationID, b.ConversationID)
	c, err := r.Run(context.Background(), &Scenario{Goal: "g", MaxTurns: 1, ConversationID: "mine"}, echoTarget())
	require.NoError(t, err)
	assert.Equal(t, "mine", c.ConversationID)
}

func TestPolicyStopErrorReturnsARunError(t *testing.T) {
	p := PolicyFunc(func(context.Context, Progress) (Verdict, error) {
		return Verdict{Stop: true, Reason: StopError, Note: "agent leaked PII"}, nil
	})
	res, err := (&Runner{UserModel: stepUser(), Policy: p}).Run(context.Background(), &Scenario{Goal: "g"}, echoTarget())
	var re *RunError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, SideSimulator, re.Side)
	assert.Equal(t, "policy", re.Op)
	assert.ErrorIs(t, err, ErrPolicyStop)
	assert.ErrorIs(t, err, ErrSimulator)
	assert.Contains(t, err.Error(), "agent leaked PII")
	assert.Equal(t, StopError, res.End.Reason)
	assert.Equal(t, SideSimulator, res.End.ErrorSide)
	assert.Contains(t, res.End.Error, "agent leaked PII")
}

func TestPolicyStatesStayAsTheyWere(t *testing.T) {
	var kept []Progress
	p := PolicyFunc(func(ctx context.Context, s Progress) (Verdict, error) {
		kept = append(kept, s)
		return DefaultPolicy{}.Evaluate(ctx, s)
	})
	// The agent books in the second turn, which meets the goal and ends the run.
	target := toolTarget(func(turn int) string { return map[int]string{1: "book"}[turn] })
	sc := &Scenario{Goal: "g", Goals: []Goal{ToolCalled("book")}}
	res, err := (&Runner{UserModel: stepUser(), Policy: p}).Run(context.Background(), sc, target)
	require.NoError(t, err)
	require.Len(t, kept, 2)
	require.True(t, res.End.Goals[0].Met)

	first := kept[0]
	assert.Equal(t, []GoalResult{{Name: "called book", Turn: -1}}, first.Goals, "the first turn's goals are not updated later")
	last := kept[1]
	require.Len(t, last.Traces, 2)
	assert.Nil(t, last.Traces[1].End, "the End is set on the result's traces, not on the ones a policy saw")
	assert.NotNil(t, res.Traces[1].End)
}

func TestAFailingPreconditionDoesNotLookLikeTheCallersCancel(t *testing.T) {
	slow := When("slow", func(ctx context.Context, _ Progress) (bool, error) {
		<-ctx.Done()
		return false, fmt.Errorf("lookup: %w", ctx.Err())
	})
	g := &Graph{Steps: []Step{
		{ID: "a", Instruction: "a", Preconditions: []Precondition{When("bad", func(context.Context, Progress) (bool, error) {
			return false, errors.New("db down")
		})}},
		{ID: "b", Instruction: "b", Preconditions: []Precondition{slow}},
		{ID: "c", Instruction: "c", Preconditions: []Precondition{slow}},
	}}
	sc := &Scenario{Goal: "g", Graph: g}

	t.Run("a sibling's failure", func(t *testing.T) {
		_, err := (&Runner{UserModel: stepUser()}).Run(context.Background(), sc, echoTarget())
		assert.ErrorIs(t, err, ErrSimulator)
		assert.ErrorContains(t, err, "db down")
		assert.NotErrorIs(t, err, context.Canceled, "the caller cancelled nothing")
		assert.NotContains(t, err.Error(), "slow")
	})
	t.Run("the caller's cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		only := &Scenario{Goal: "g", Graph: &Graph{Steps: []Step{
			{ID: "b", Instruction: "b", Preconditions: []Precondition{When("slow", func(ctx context.Context, _ Progress) (bool, error) {
				cancel()
				<-ctx.Done()
				return false, ctx.Err()
			})}},
			{ID: "c", Instruction: "c", Preconditions: []Precondition{slow}},
		}}}
		_, err := (&Runner{UserModel: stepUser()}).Run(ctx, only, echoTarget())
		assert.ErrorIs(t, err, context.Canceled)
	})
}

func TestRankerScoresMustBeNumbersFromZeroToOne(t *testing.T) {
	g := &Graph{Steps: []Step{{ID: "a", Instruction: "a"}, {ID: "b", Instruction: "b"}, {ID: "c", Instruction: "c"}, {ID: "d", Instruction: "d"}}}
	run := func(t *testing.T, cs ...Candidate) *Result {
		t.Helper()
		res, err := (&Runner{UserModel: stepUser(), Ranker: fixedRanking(cs...)}).Run(context.Background(), &Scenario{Goal: "g", Graph: g, MaxTurns: 1, OnRankerFailure: RankerDegrade}, echoTarget())
		require.NoError(t, err)
		_, err = WriteArtifacts(t.TempDir(), res)
		require.NoError(t, err, "every recorded score encodes as JSON")
		return res
	}
	t.Run("bad scores are dropped and never selected", func(t *testing.T) {
		res := run(t, Candidate{StepID: "a", Score: math.Inf(1)}, Candidate{StepID: "b", Score: math.NaN()},
			Candidate{StepID: "c", Score: 7}, Candidate{StepID: "d", Score: 0.6})
		sel := res.Traces[0].Selection
		assert.Equal(t, MethodRanked, sel.Method)
		assert.Equal(t, "d", res.Traces[0].StepID)
		assert.Equal(t, []Candidate{{StepID: "d", Score: 0.6}}, sel.Candidates)
	})
	t.Run("candidates that come with an error are filtered too", func(t *testing.T) {
		rk := RankerFunc(func(context.Context, RankInput) ([]Candidate, error) {
			return []Candidate{{StepID: "a", Score: math.NaN()}, {StepID: "b", Score: 0.9}}, errors.New("partial")
		})
		res, err := (&Runner{UserModel: stepUser(), Ranker: rk}).Run(context.Background(), &Scenario{Goal: "g", Graph: g, MaxTurns: 1, OnRankerFailure: RankerDegrade}, echoTarget())
		require.NoError(t, err)
		sel := res.Traces[0].Selection
		assert.Equal(t, MethodNone, sel.Method)
		assert.Equal(t, "partial", sel.RankError)
		assert.Equal(t, []Candidate{{StepID: "b", Score: 0.9}}, sel.Candidates)
		_, err = WriteArtifacts(t.TempDir(), res)
		require.NoError(t, err)
	})
	t.Run("a ranking with no usable score is a bad ranking", func(t *testing.T) {
		res := run(t, Candidate{StepID: "a", Score: math.Inf(1)}, Candidate{StepID: "b", Score: -0.1})
		sel := res.Traces[0].Selection
		assert.Equal(t, MethodNone, sel.Method)
		assert.Empty(t, sel.Candidates)
		assert.Contains(t, sel.RankError, ErrBadRanking.Error())
	})
}

func TestCompletedOnlyWhenTheGoalEndsTheRun(t *testing.T) {
	ctx := context.Background()
	stopWith := func(r StopReason) Policy {
		return PolicyFunc(func(context.Context, Progress) (Verdict, error) { return Verdict{Stop: true, Reason: r}, nil })
	}
	t.Run("goals met, but a policy stops the run for another reason", func(t *testing.T) {
		sc := &Scenario{Goal: "g", Goals: []Goal{ToolCalled("book")}}
		res, err := (&Runner{UserModel: stepUser(), Policy: stopWith(StopPolicyViolation)}).Run(ctx, sc, toolTarget(func(int) string { return "book" }))
		require.NoError(t, err)
		assert.True(t, res.End.Goals[0].Met)
		assert.Equal(t, StopPolicyViolation, res.End.Reason)
		assert.False(t, res.End.Completed)
		assert.Contains(t, res.End.Summary, "goal not completed")
	})
	t.Run("a terminal reached, but the run goes on to max turns", func(t *testing.T) {
		never := PolicyFunc(func(context.Context, Progress) (Verdict, error) { return Verdict{}, nil })
		res, err := (&Runner{UserModel: stepUser(), Policy: never, Ranker: fixedRanking()}).Run(ctx, &Scenario{Goal: "g", Graph: chain(), MaxTurns: 4}, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, StatusSatisfied, stepState(res, "c").Status)
		assert.Equal(t, StopMaxTurns, res.End.Reason)
		assert.False(t, res.End.Completed)
	})
	t.Run("a policy claims goal-reached that the goals do not confirm", func(t *testing.T) {
		sc := &Scenario{Goal: "g", Goals: []Goal{ToolCalled("book")}}
		res, err := (&Runner{UserModel: stepUser(), Policy: stopWith(StopGoalReached)}).Run(ctx, sc, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, StopGoalReached, res.End.Reason)
		assert.False(t, res.End.Completed)
	})
}

func TestValidateRejectsStepsThatWaitInACycle(t *testing.T) {
	step := func(id string, after ...string) Step {
		s := Step{ID: id, Instruction: id}
		for _, a := range after {
			s.Preconditions = append(s.Preconditions, After(a))
		}
		return s
	}
	bad := map[string]struct {
		g     *Graph
		field string
		names []string
	}{
		"a step waiting for itself": {&Graph{Steps: []Step{step("a"), step("b", "a", "b")}}, "Graph.Steps[1].Preconditions[1]", []string{`"b" waits for itself`}},
		"two steps waiting for each other": {&Graph{Start: "a", Steps: []Step{step("a", "b"), step("b", "a")}},
			"Graph.Steps[1].Preconditions[0]", []string{`"a" -> "b" -> "a"`}},
		"a longer cycle": {&Graph{Steps: []Step{step("a", "c"), step("b", "a"), step("c", "b")}},
			"Graph.Steps[1].Preconditions[0]", []string{`"a" -> "c" -> "b" -> "a"`}},
		"a start step waiting on a cycle": {&Graph{Start: "s", Terminals: []string{"s"}, Steps: []Step{step("s", "x"), step("x", "y"), step("y", "x")}},
			"Graph.Steps[2].Preconditions[0]", []string{`"x" -> "y" -> "x"`}},
	}
	for name, c := range bad {
		t.Run(name+" is rejected", func(t *testing.T) {
			err := (&Scenario{Goal: "g", Graph: c.g}).Validate()
			var se *ScenarioError
			require.ErrorAs(t, err, &se)
			assert.ErrorIs(t, err, ErrInvalidScenario)
			assert.Equal(t, c.field, se.Field)
			for _, n := range c.names {
				assert.Contains(t, se.Reason, n)
			}
		})
	}
	legal := map[string]*Graph{
		"a chain":                           chain(),
		"a diamond":                         {Steps: []Step{step("a"), step("b", "a"), step("c", "a"), step("d", "b", "c")}},
		"a step that waits for a later one": {Steps: []Step{step("b", "a"), step("a")}},
		"a start step with an After":        {Start: "b", Steps: []Step{step("a"), step("b", "a")}},
		"custom checks are not followed":    {Steps: []Step{{ID: "a", Preconditions: []Precondition{When("b done", func(_ context.Context, s Progress) (bool, error) { return s.Satisfied("b"), nil })}}, step("b", "a")}},
	}
	for name, g := range legal {
		t.Run(name+" is accepted", func(t *testing.T) {
			assert.NoError(t, (&Scenario{Goal: "g", Graph: g}).Validate())
		})
	}
}

func TestRankedCandidatesMustNameAnOfferedStep(t *testing.T) {
	// "gated" waits for "a", so only "a" and "b" are offered on the first
	// turn; "ghost" is not a step at all.
	g := &Graph{Steps: []Step{
		{ID: "a", Instruction: "a"},
		{ID: "b", Instruction: "b"},
		{ID: "gated", Instruction: "gated", Preconditions: []Precondition{After("a")}},
	}}
	run := func(t *testing.T, cs ...Candidate) Selection {
		t.Helper()
		res, err := (&Runner{UserModel: stepUser(), Ranker: fixedRanking(cs...)}).Run(context.Background(), &Scenario{Goal: "g", Graph: g, MaxTurns: 1, OnRankerFailure: RankerDegrade}, echoTarget())
		require.NoError(t, err)
		return res.Traces[0].Selection
	}
	t.Run("steps that were not offered are dropped from the record", func(t *testing.T) {
		sel := run(t, Candidate{StepID: "ghost", Score: 0.99}, Candidate{StepID: "gated", Score: 0.95}, Candidate{StepID: "b", Score: 0.7})
		assert.Equal(t, MethodRanked, sel.Method)
		assert.Equal(t, []Candidate{{StepID: "b", Score: 0.7}}, sel.Candidates)
		assert.Empty(t, sel.RankError)
	})
	t.Run("a ranking that names no offered step is a bad ranking", func(t *testing.T) {
		sel := run(t, Candidate{StepID: "ghost", Score: 0.99}, Candidate{StepID: "gated", Score: 0.9})
		assert.Equal(t, MethodNone, sel.Method)
		assert.Empty(t, sel.Candidates)
		assert.Contains(t, sel.RankError, ErrBadRanking.Error())
	})
	t.Run("a step scored twice keeps its best score, once", func(t *testing.T) {
		sel := run(t, Candidate{StepID: "a", Score: 0.2}, Candidate{StepID: "b", Score: 0.6}, Candidate{StepID: "a", Score: 0.8, Reasons: []string{"second look"}})
		assert.Equal(t, []Candidate{{StepID: "a", Score: 0.8, Reasons: []string{"second look"}}, {StepID: "b", Score: 0.6}}, sel.Candidates)
	})
}

func TestATurnTheUserModelNeverWroteIsNotAnAttempt(t *testing.T) {
	user := stepUser()
	inner := user.fn
	user.fn = func(n int, in []*schema.Message) (*schema.Message, error) {
		if n == 1 {
			return nil, errors.New("user model down")
		}
		return inner(n, in)
	}
	res, err := (&Runner{UserModel: user, Ranker: noRanking(t)}).Run(context.Background(), &Scenario{Goal: "g", Graph: chain()}, echoTarget())
	require.ErrorIs(t, err, ErrSimulator)
	require.Len(t, res.Traces, 1)
	assert.Equal(t, StepState{StepID: "a", Status: StatusSatisfied, Attempts: 1}, withoutTime(stepState(res, "a")))
	assert.Equal(t, StepState{StepID: "b", Status: StatusSkipped}, withoutTime(stepState(res, "b")), "no message was sent for b")
	assert.Contains(t, res.End.Summary, "b skipped, c skipped.")
}

func withoutTime(s StepState) StepState {
	s.UpdatedAt = time.Time{}
	return s
}
