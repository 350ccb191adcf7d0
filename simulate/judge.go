package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
)

// ErrBadJudgement reports a judge whose verdict does not score every
// criterion once, in [0, 1], with a reason.
var ErrBadJudgement = errors.New("simulate: judge output not understood")

// CriterionResult is the judge's verdict on one natural-language criterion:
// whether it passed, a score in [0, 1], and why.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
//
// Final, in a verdict on a conversation still going on (JudgeInput.Ongoing),
// says the criterion failed for good: nothing later can make it pass. It
// stops a run that judges every turn (Scenario.JudgeEveryTurn).
type CriterionResult struct {
	Criterion string  `json:"criterion"`
	Passed    bool    `json:"passed"`
	Score     float64 `json:"score"`
	Reason    string  `json:"reason"`
	Final     bool    `json:"final,omitempty"`
}

// JudgeInput is what a judge sees: the goal, the criteria in the order the
// scenario lists them, and the whole conversation: user and assistant
// messages, the agent's tool calls and their results. Ongoing says the
// conversation goes on (Scenario.JudgeEveryTurn): the judge then marks
// Final the criteria that failed for good.
//
// The runner builds a fresh JudgeInput per call; its slices must be
// treated as read-only.
type JudgeInput struct {
	Goal         string
	Criteria     []string
	Conversation []*schema.Message
	Ongoing      bool
}

// Judge scores a finished conversation against natural-language criteria,
// beside the code goals. It must return one result per criterion, in any
// order, each with a reason. An error, or results that do not cover the
// criteria, fail the run (Op "judge"; SideInfrastructure for a provider's
// transient failure after retries, else SideSimulator).
//
// Implementations must be safe for concurrent use when the Runner that
// holds them is shared.
type Judge interface {
	Judge(ctx context.Context, in JudgeInput) ([]CriterionResult, error)
}

// JudgeFunc adapts a function to Judge.
//
// It is as safe for concurrent use as the function is.
type JudgeFunc func(ctx context.Context, in JudgeInput) ([]CriterionResult, error)

// Judge calls f.
func (f JudgeFunc) Judge(ctx context.Context, in JudgeInput) ([]CriterionResult, error) {
	return f(ctx, in)
}

// NewJudge returns an LLM judge: it shows m the goal, the conversation
// (with every tool call's tool and arguments, and every tool result's tool,
// marked when the tool failed) and the numbered criteria, and reads a JSON
// answer {"criteria":[{"index":1,"passed":true,"score":0.9,"reason":"..."}]}
// ("final":true marks a criterion failed for good while the conversation
// goes on), in
// which a criterion may be named by its index or its text, and prose or
// code fences around the JSON are ignored.
//
// The judge is safe for concurrent use when m is.
func NewJudge(m model.BaseChatModel) Judge { return &llmJudge{model: m} }

type llmJudge struct{ model model.BaseChatModel }

// maxJudgeText bounds how much of one message's text, or of one tool
// call's arguments, the judge is shown.
const maxJudgeText = 2000

const judgeSystemPrompt = `You judge a conversation between a user and an AI assistant against success criteria.
For every criterion, decide whether the assistant met it, give a score from 0 to 1, and a one-sentence reason quoting the conversation.
Answer with JSON only, in this shape:
{"criteria":[{"index":1,"passed":true,"score":1.0,"reason":"<why>"}]}`

// judgeOngoingPrompt tells the judge that the conversation goes on.
const judgeOngoingPrompt = `
The conversation is not over. Judge it as it stands, and add "final":true to a criterion only when it has failed for good: nothing said or done later could make it pass.`

func (j *llmJudge) Judge(ctx context.Context, in JudgeInput) ([]CriterionResult, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "The user's goal: %s\n\nThe conversation:\n", in.Goal)
	var t transcript
	for _, m := range in.Conversation {
		t.write(&b, m, maxJudgeText)
	}
	if in.Ongoing {
		b.WriteString(judgeOngoingPrompt + "\n")
	}
	b.WriteString("\nCriteria:\n")
	for i, c := range in.Criteria {
		fmt.Fprintf(&b, "%d. %s\n", i+1, c)
	}
	msg, err := j.model.Generate(ctx, []*schema.Message{schema.SystemMessage(judgeSystemPrompt), schema.UserMessage(b.String())})
	noteUsage(ctx, msg)
	if err != nil {
		return nil, err
	}
	return parseJudgement(msgtext.Of(msg), in.Criteria)
}

// judgement is the JSON a judge model answers with.
type judgement struct {
	Criteria []judgedCriterion `json:"criteria"`
}

// judgedCriterion is one criterion's entry in a judgement: the criterion
// by its 1-based index or its text, its verdict, score and reason.
type judgedCriterion struct {
	Index     int      `json:"index"`
	Criterion string   `json:"criterion"`
	Passed    *bool    `json:"passed"`
	Score     *float64 `json:"score"`
	Reason    string   `json:"reason"`
	Final     bool     `json:"final"`
}

// result converts the entry to a CriterionResult, naming the criterion by
// its index in criteria when that is in range. A missing score is -1; a
// missing verdict passes when the score is at least 0.5.
func (c judgedCriterion) result(criteria []string) CriterionResult {
	name := c.Criterion
	if c.Index >= 1 && c.Index <= len(criteria) {
		name = criteria[c.Index-1]
	}
	r := CriterionResult{Criterion: name, Reason: strings.TrimSpace(c.Reason), Score: -1, Final: c.Final}
	if c.Score != nil {
		r.Score = *c.Score
	}
	if c.Passed != nil {
		r.Passed = *c.Passed
	} else {
		r.Passed = r.Score >= 0.5
	}
	return r
}

// parseJudgement reads the first JSON object in text that holds a
// "criteria" list.
func parseJudgement(text string, criteria []string) ([]CriterionResult, error) {
	for i := strings.IndexByte(text, '{'); i >= 0; {
		if j, ok := decodeJudgement(text[i:]); ok {
			return j.results(criteria), nil
		}
		next := strings.IndexByte(text[i+1:], '{')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return nil, fmt.Errorf("%w: no JSON with a criteria list in %q", ErrBadJudgement, truncate(text, 200))
}

// decodeJudgement decodes the JSON object at the start of s, and reports
// whether it is a judgement with a criteria list.
func decodeJudgement(s string) (judgement, bool) {
	var j judgement
	dec := json.NewDecoder(strings.NewReader(s))
	return j, dec.Decode(&j) == nil && len(j.Criteria) > 0
}

// results converts the judgement's entries to CriterionResults.
func (j *judgement) results(criteria []string) []CriterionResult {
	var out []CriterionResult
	for _, c := range j.Criteria {
		out = append(out, c.result(criteria))
	}
	return out
}

// checkJudgement puts the judge's results in the order of the criteria,
// and fails with ErrBadJudgement unless each criterion is scored once, in
// [0, 1], with a reason.
func checkJudgement(results []CriterionResult, criteria []string) ([]CriterionResult, error) {
	out := make([]CriterionResult, len(criteria))
	found := make([]bool, len(criteria))
	for _, r := range results {
		i := indexOf(criteria, r.Criterion)
		if err := checkResult(r, i, found); err != nil {
			return nil, err
		}
		out[i], found[i] = r, true
	}
	if i := slices.Index(found, false); i >= 0 {
		return nil, fmt.Errorf("%w: criterion %q not scored", ErrBadJudgement, criteria[i])
	}
	return out, nil
}

// checkResult fails with ErrBadJudgement unless r scores criterion i, one
// of the criteria and not yet found, in [0, 1], with a reason.
func checkResult(r CriterionResult, i int, found []bool) error {
	switch {
	case i < 0:
		return fmt.Errorf("%w: unknown criterion %q", ErrBadJudgement, r.Criterion)
	case found[i]:
		return fmt.Errorf("%w: criterion %q scored twice", ErrBadJudgement, r.Criterion)
	case !inUnit(r.Score):
		return fmt.Errorf("%w: criterion %q scored %v, not in [0, 1]", ErrBadJudgement, r.Criterion, r.Score)
	case strings.TrimSpace(r.Reason) == "":
		return fmt.Errorf("%w: criterion %q has no reason", ErrBadJudgement, r.Criterion)
	}
	return nil
}

func indexOf(xs []string, x string) int {
	for i, s := range xs {
		if s == x {
			return i
		}
	}
	return -1
}

// judgeRun scores the run's conversation against the scenario's criteria;
// ongoing says the run goes on.
func (ru *run) judgeRun(ctx context.Context, ongoing bool) ([]CriterionResult, error) {
	judge := ru.judger
	in := JudgeInput{Goal: ru.sc.Goal, Criteria: ru.sc.Criteria, Conversation: ru.res.Conversation(), Ongoing: ongoing}
	var out []CriterionResult
	err := ru.call(ctx, RoleJudge, func(ctx context.Context) error {
		res, err := safeJudge(ctx, judge, in)
		if err == nil {
			out, err = checkJudgement(res, ru.sc.Criteria)
		}
		return err
	})
	if !ongoing {
		for i := range out {
			out[i].Final = false
		}
	}
	return out, err
}

// judgeTurn scores the criteria after a turn, for a scenario that judges
// every turn, and reports whether one of them failed for good; the
// verdicts then become the run's.
func (ru *run) judgeTurn(ctx context.Context) (bool, error) {
	if !ru.sc.JudgeEveryTurn || len(ru.sc.Criteria) == 0 {
		return false, nil
	}
	crit, err := ru.judgeRun(ctx, true)
	if err != nil {
		return false, err
	}
	if !slices.ContainsFunc(crit, func(c CriterionResult) bool { return !c.Passed && c.Final }) {
		return false, nil
	}
	ru.verdict = crit
	return true, nil
}

func safeJudge(ctx context.Context, j Judge, in JudgeInput) (out []CriterionResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w: judge: %v", ErrPanicked, p)
		}
	}()
	return j.Judge(ctx, in)
}
