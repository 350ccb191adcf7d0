package simulate

import (
	"context"
	"io"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/lookout-go/lookout/budget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPassK(t *testing.T) {
	// Scenario 0 passes 4 of 4, scenario 1 passes 2 of 4, scenario 2 none.
	reps, pk := passK(map[int][]bool{
		0: {true, true, true, true},
		1: {true, false, true, false},
		2: {false, false, false, false},
	})
	assert.Equal(t, 4, reps)
	// pass^k for scenario 1 is C(2,k)/C(4,k): 1/2, 1/6, 0, 0.
	want := []float64{(1 + 0.5) / 3, (1 + 1.0/6) / 3, 1.0 / 3, 1.0 / 3}
	require.Len(t, pk, 4)
	for k := range want {
		assert.InDelta(t, want[k], pk[k], 1e-9, "pass^%d", k+1)
	}
}

func TestReadBatch(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	// "steady" books in every run; "flaky" books in repetitions 0 and 2
	// only; "down" fails on its provider in repetition 3.
	scs := []*Scenario{
		{Name: "steady", Goal: "g", Goals: []Goal{ToolCalled("book")}, MaxTurns: 2},
		{Name: "flaky", Goal: "g", Goals: []Goal{ToolCalled("book")}, MaxTurns: 2},
		{Name: "down", Goal: "g", MaxTurns: 2},
	}
	b := &Batch{Scenarios: scs, Repetitions: 4, Concurrency: 3, OutDir: out, Progress: io.Discard,
		Setup: func(_ context.Context, j Job) (*Runner, Target, error) {
			r := &Runner{UserModel: stepUser(), ModelNames: ModelNames{User: "small", Agent: "big"}}
			r.Retry = NoRetry
			switch {
			case j.Scenario.Name == "flaky" && j.Repetition%2 == 1:
				return r, echoTarget(), nil
			case j.Scenario.Name == "down" && j.Repetition == 3:
				return r, TargetFunc(func(context.Context, []*schema.Message) ([]*schema.Message, error) {
					return nil, &httpError{code: 503}
				}), nil
			case j.Scenario.Name == "down":
				return r, echoTarget(), nil
			}
			return r, toolTargetWithUsage(), nil
		}}
	_, err := b.Run(ctx)
	require.NoError(t, err)

	var calls []int
	s, err := ReadBatch([]string{out}, budget.Prices{"big": {InputPerMTok: 2, OutputPerMTok: 10}}, func(done, total int) {
		calls = append(calls, done)
		assert.Equal(t, 12, total)
	})
	require.NoError(t, err)
	assert.Len(t, calls, 12)
	assert.Equal(t, 12, s.Runs)
	assert.Equal(t, 6, s.Completed)
	assert.InDelta(t, 0.5, s.CompletionRate, 1e-9)
	assert.Equal(t, map[StopReason]int{StopGoalReached: 6, StopMaxTurns: 5, StopError: 1}, s.StopReasons)
	assert.Equal(t, map[Side]int{SideInfrastructure: 1}, s.FailuresBySide)
	// steady 4/4, flaky 2/4, down 0/3 (its infrastructure failure is left
	// out): k stops at down's three runs; pass^1 = (1 + 1/2 + 0)/3,
	// pass^3 = (1 + 0 + 0)/3.
	assert.Equal(t, 3, s.Repetitions)
	require.Len(t, s.PassK, 3)
	assert.InDelta(t, 0.5, s.PassK[0], 1e-9)
	assert.InDelta(t, 1.0/3, s.PassK[2], 1e-9)
	assert.Equal(t, []Rate{{Name: "called book", Met: 6, Runs: 8, Rate: 0.75}}, s.Goals)
	agent := s.PerConversation.ByRole[RoleAgent]
	assert.Equal(t, "big", agent.Model)
	assert.Equal(t, "small", s.PerConversation.ByRole[RoleUser].Model)
	assert.Greater(t, agent.PromptTokens, 0.0)
	assert.InDelta(t, agent.Cost, s.PerConversation.Cost, 1e-12, "only the agent's model has a price")
	assert.Greater(t, s.PerConversation.Cost, 0.0)
}

// toolTargetWithUsage books and reports the tokens of its replies.
func toolTargetWithUsage() TargetFunc {
	inner := toolTarget(func(int) string { return "book" })
	return func(ctx context.Context, h []*schema.Message) ([]*schema.Message, error) {
		out, err := inner(ctx, h)
		for _, m := range out {
			if m.Role == schema.Assistant {
				m.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 1000, CompletionTokens: 100}}
			}
		}
		return out, err
	}
}
