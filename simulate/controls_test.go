package simulate

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

// sayAt answers "hello" except in the listed turns (counted by calls).
func sayAt(say map[int]string) *fakeModel {
	return &fakeModel{fn: func(n int, _ []*schema.Message) (*schema.Message, error) {
		if s, ok := say[n]; ok {
			return schema.AssistantMessage(s, nil), nil
		}
		return schema.AssistantMessage("hello", nil), nil
	}}
}

func TestUserStop(t *testing.T) {
	ctx := context.Background()
	t.Run("a stop with unmet goals is reported as such", func(t *testing.T) {
		user := sayAt(map[int]string{2: "Thanks, that is all. ###DONE###"})
		var seen int
		target := TargetFunc(func(ctx context.Context, h []*schema.Message) ([]*schema.Message, error) {
			seen++
			return echoTarget()(ctx, h)
		})
		sc := &Scenario{Goal: "book a flight", StopSignal: "###DONE###", Goals: []Goal{ToolCalled("book")}}
		res, err := (&Runner{UserModel: user}).Run(ctx, sc, target)
		require.NoError(t, err)
		assert.Equal(t, StopUser, res.End.Reason)
		assert.False(t, res.End.Completed)
		assert.False(t, res.End.Passed)
		assert.Equal(t, []string{"called book"}, res.End.UnmetGoals)
		assert.Contains(t, res.End.Summary, "The user stopped the conversation with unmet goals: called book.")
		assert.Len(t, res.Traces, 2, "the stop message never reaches the agent")
		assert.Equal(t, 2, seen)
		assert.Contains(t, user.inputs()[0][0].Content, "send only this: ###DONE###")
	})
	t.Run("a stop once the goals are met completes the run", func(t *testing.T) {
		user := sayAt(map[int]string{1: "###DONE###"})
		goOn := PolicyFunc(func(context.Context, Progress) (Verdict, error) { return Verdict{}, nil })
		sc := &Scenario{Goal: "g", StopSignal: "###DONE###", Goals: []Goal{ToolCalled("book")}}
		res, err := (&Runner{UserModel: user, Policy: goOn}).Run(ctx, sc, toolTarget(func(int) string { return "book" }))
		require.NoError(t, err)
		assert.Equal(t, StopUser, res.End.Reason)
		assert.True(t, res.End.Completed)
		assert.Empty(t, res.End.UnmetGoals)
	})
	t.Run("without goals, an unreached goal is unmet", func(t *testing.T) {
		sc := &Scenario{Goal: "g", StopSignal: "BYE"}
		res, err := (&Runner{UserModel: sayAt(map[int]string{0: "BYE"})}).Run(ctx, sc, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, []string{"goal not reached"}, res.End.UnmetGoals)
		assert.Empty(t, res.Traces)
	})
}

func TestOpeningAndScriptedTurns(t *testing.T) {
	user := sayAt(nil)
	sc := &Scenario{Goal: "g", MaxTurns: 4, Opening: "Hi, I need a flight.", Script: map[int]string{2: "Make it Tuesday."}}
	res, err := (&Runner{UserModel: user}).Run(context.Background(), sc, echoTarget())
	require.NoError(t, err)
	var said []string
	for _, tr := range res.Traces {
		said = append(said, tr.User.Content)
	}
	assert.Equal(t, []string{"Hi, I need a flight.", "hello", "Make it Tuesday.", "hello"}, said)
	assert.Len(t, user.inputs(), 2, "the user model writes only the turns without a fixed message")
	assert.Equal(t, 2, res.Usage[RoleUser].Calls)
}

func TestJudge(t *testing.T) {
	ctx := context.Background()
	criteria := []string{"The agent confirms the booking reference", "The agent is polite"}
	sc := &Scenario{Goal: "book", MaxTurns: 1, Criteria: criteria}

	t.Run("a scripted LLM judge scores each criterion with a reason", func(t *testing.T) {
		judge := scripted.New(scripted.Reply("Here you go:\n```json\n"+`{"criteria":[`+
			`{"index":2,"passed":true,"score":0.9,"reason":"It says please."},`+
			`{"criterion":"The agent confirms the booking reference","passed":false,"score":0.1,"reason":"No reference is given."}]}`+"\n```").WithUsage(300, 40))
		res, err := (&Runner{UserModel: stepUser(), Judge: NewJudge(judge), ModelNames: ModelNames{Judge: "judge-model"}}).Run(ctx, sc, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, []CriterionResult{
			{Criterion: criteria[0], Passed: false, Score: 0.1, Reason: "No reference is given."},
			{Criterion: criteria[1], Passed: true, Score: 0.9, Reason: "It says please."},
		}, res.End.Criteria)
		assert.False(t, res.End.Passed)
		assert.Contains(t, res.End.Summary, `Criterion "The agent is polite" passed (0.90): It says please.`)
		assert.Equal(t, &ModelUsage{Model: "judge-model", Calls: 1, Attempts: 1, PromptTokens: 300, CompletionTokens: 40}, res.Usage[RoleJudge])
		req, _ := judge.Request(0)
		assert.True(t, req.Contains("2. The agent is polite"))
		assert.True(t, req.Contains("ok: I want to") || req.Contains("ok: just chatting"))
	})

	t.Run("all criteria passing and the goal reached pass the run", func(t *testing.T) {
		j := JudgeFunc(func(_ context.Context, in JudgeInput) ([]CriterionResult, error) {
			var out []CriterionResult
			for _, c := range in.Criteria {
				out = append(out, CriterionResult{Criterion: c, Passed: true, Score: 1, Reason: "yes"})
			}
			return out, nil
		})
		sc := &Scenario{Goal: "g", Goals: []Goal{ToolCalled("book")}, Criteria: criteria}
		res, err := (&Runner{UserModel: stepUser(), Judge: j}).Run(ctx, sc, toolTarget(func(int) string { return "book" }))
		require.NoError(t, err)
		assert.True(t, res.End.Passed)
	})

	for name, answer := range map[string]string{
		"a criterion without a reason": `{"criteria":[{"index":1,"passed":true,"score":1,"reason":""},{"index":2,"passed":true,"score":1,"reason":"ok"}]}`,
		"a criterion left out":         `{"criteria":[{"index":1,"passed":true,"score":1,"reason":"ok"}]}`,
		"a score out of range":         `{"criteria":[{"index":1,"score":7,"reason":"ok"},{"index":2,"score":1,"reason":"ok"}]}`,
		"no JSON":                      `They both look fine to me.`,
	} {
		t.Run(name+" fails the run", func(t *testing.T) {
			j := NewJudge(scripted.New(scripted.Forever(scripted.Reply(answer))))
			res, err := (&Runner{UserModel: stepUser(), Judge: j}).Run(ctx, sc, echoTarget())
			assert.ErrorIs(t, err, ErrBadJudgement)
			assert.ErrorIs(t, err, ErrSimulator)
			assert.Equal(t, "judge", res.End.ErrorOp)
		})
	}
}

func TestInterruptPolicy(t *testing.T) {
	ctx := context.Background()
	// The target asks for approval of every book call, as an ADK tool
	// that interrupts would, and books only when approved.
	target := TargetFunc(func(ctx context.Context, h []*schema.Message) ([]*schema.Message, error) {
		call := schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Function: schema.FunctionCall{Name: "book", Arguments: "{}"}}})
		a, ok := AnswerInterrupt(ctx, "book", "c1", "approve booking TP123?")
		result := "Error: not approved"
		if ok && a.Action == InterruptApprove {
			result = "booked TP123"
		}
		return []*schema.Message{call, schema.ToolMessage(result, "c1", schema.WithToolName("book")), schema.AssistantMessage("done", nil)}, nil
	})
	t.Run("approved by the scenario's policy", func(t *testing.T) {
		sc := &Scenario{Goal: "g", Goals: []Goal{ToolCalled("book")}, Interrupts: InterruptPolicy{"book": {Action: InterruptApprove}}}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, sc, target)
		require.NoError(t, err)
		assert.True(t, res.End.Completed)
		assert.Equal(t, []Interruption{{Tool: "book", CallID: "c1", Info: "approve booking TP123?", Answer: InterruptAnswer{Action: InterruptApprove}, Answered: true}}, res.Traces[0].Interrupts)
	})
	t.Run("rejected", func(t *testing.T) {
		sc := &Scenario{Goal: "g", MaxTurns: 1, Goals: []Goal{ToolCalled("book")}, Interrupts: InterruptPolicy{"*": {Action: InterruptReject, Text: "too expensive"}}}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, sc, target)
		require.NoError(t, err)
		assert.False(t, res.End.Completed)
		assert.Equal(t, InterruptReject, res.Traces[0].Interrupts[0].Answer.Action)
	})
	t.Run("no answer for the tool", func(t *testing.T) {
		sc := &Scenario{Goal: "g", MaxTurns: 1, Interrupts: InterruptPolicy{"pay": {Action: InterruptApprove}}}
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, sc, target)
		require.NoError(t, err)
		assert.False(t, res.Traces[0].Interrupts[0].Answered)
	})
	t.Run("outside a run there is no answer", func(t *testing.T) {
		_, ok := AnswerInterrupt(ctx, "book", "c1", nil)
		assert.False(t, ok)
	})
	t.Run("resume data", func(t *testing.T) {
		assert.Equal(t, InterruptAnswer{Action: InterruptReply, Text: "yes"}, InterruptAnswer{Action: InterruptReply, Text: "yes"}.ResumeData())
		assert.Equal(t, true, InterruptAnswer{Action: InterruptApprove, Data: true}.ResumeData())
	})
}

func TestControlsValidation(t *testing.T) {
	for name, sc := range map[string]*Scenario{
		"Script[0]":                 {Goal: "g", Opening: "hi", Script: map[int]string{0: "hello"}},
		"Script[-1]":                {Goal: "g", Script: map[int]string{-1: "hello"}},
		"Script[2]":                 {Goal: "g", Script: map[int]string{2: "  "}},
		"StopSignal":                {Goal: "g", StopSignal: " "},
		"Criteria[1]":               {Goal: "g", Criteria: []string{"a", "a"}},
		"Criteria[0]":               {Goal: "g", Criteria: []string{""}},
		`Interrupts["book"].Action`: {Goal: "g", Interrupts: InterruptPolicy{"book": {Action: "maybe"}}},
		"OnRankerFailure":           {Goal: "g", OnRankerFailure: "ignore"},
	} {
		err := sc.Validate()
		var se *ScenarioError
		if assert.ErrorAs(t, err, &se, name) {
			assert.Equal(t, name, se.Field)
			assert.False(t, strings.Contains(se.Reason, "%!"), se.Reason)
		}
	}
}
