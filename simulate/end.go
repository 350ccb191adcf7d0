package simulate

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// stop ends the run for reason, in turn, once the judge, if the scenario
// has criteria, has scored the conversation.
func (ru *run) stop(ctx context.Context, turn int, reason StopReason, note string) (*Result, error) {
	e := End{Reason: reason, Criteria: ru.verdict, StopMessage: ru.stopMessage}
	if len(ru.sc.Criteria) > 0 && e.Criteria == nil {
		crit, err := ru.judgeRun(ctx, false)
		if err != nil {
			return ru.fail(ru.sideOf(ctx, err, SideSimulator), turn, "judge", err)
		}
		e.Criteria = crit
	}
	ru.end(e, note)
	return ru.res, nil
}

func (ru *run) fail(side Side, turn int, op string, err error) (*Result, error) {
	re := &RunError{Side: side, Turn: turn, Op: op, Err: err}
	ru.end(End{Reason: StopError, Error: err.Error(), ErrorSide: side, ErrorOp: op, ErrorTool: ru.errorTool}, "")
	return ru.res, re
}

// end finishes the run: never-attempted steps are skipped, and the End is
// stored on the result and on the last trace.
func (ru *run) end(e End, note string) {
	ru.skipUnattempted()
	grade(&e, ru.state())
	e.Turns = len(ru.res.Traces)
	e.Goals = append([]GoalResult(nil), ru.goals...)
	e.DegradedTurns = ru.degraded
	ru.res.Steps = append([]StepState(nil), ru.steps...)
	e.Summary = summarize(ru.res.ConversationID, e, ru.res.Steps, note)
	ru.res.End = e
	if n := len(ru.res.Traces); n > 0 {
		// States handed out earlier share the traces' array; the End goes
		// on a copy so that they never change.
		last := e
		ru.res.Traces = slices.Clone(ru.res.Traces)
		ru.res.Traces[n-1].End = &last
	}
}

// skipUnattempted marks the steps that were never attempted, idle or
// blocked, skipped.
func (ru *run) skipUnattempted() {
	for i := range ru.steps {
		if s := ru.steps[i].Status; s == StatusIdle || s == StatusBlocked {
			ru.setStatus(i, StatusSkipped)
		}
	}
}

// grade sets whether the run that ended as e completed, with its goal
// reached in st, and passed, with every criterion too; when the user
// stopped the run, it also lists the goals left unmet.
//
// A scenario judged on its criteria alone (criteria, but neither goals nor
// a graph) has no goal to reach: it passes when it ran to its end, by its
// turns, a policy's or the user's word, and every criterion passed.
func grade(e *End, st Progress) {
	e.Completed = (e.Reason == StopGoalReached || e.Reason == StopUser) && st.GoalReached()
	e.Passed = e.Completed || judgedOnly(st.Scenario) && ranToEnd[e.Reason]
	for _, c := range e.Criteria {
		e.Passed = e.Passed && c.Passed
	}
	if e.Reason == StopUser {
		e.UnmetGoals = unmetGoals(st)
	}
}

// judgedOnly reports whether sc is judged on its criteria alone.
func judgedOnly(sc *Scenario) bool {
	return sc != nil && len(sc.Criteria) > 0 && len(sc.Goals) == 0 && len(sc.steps()) == 0
}

// ranToEnd holds the stop reasons of a run that a judge-only scenario
// may pass with: not an error, a loop, a policy violation or the judge's
// stop.
var ranToEnd = map[StopReason]bool{StopGoalReached: true, StopMaxTurns: true, StopUser: true}

// summarize describes how the run ended, in a line, then its steps and
// goals, one line each when there are any.
func summarize(id string, e End, steps []StepState, note string) string {
	var b strings.Builder
	writeOutcome(&b, id, e)
	if e.DegradedTurns > 0 {
		fmt.Fprintf(&b, " The ranker failed in %s, played without a step.", count(e.DegradedTurns, "turn"))
	}
	if note != "" {
		fmt.Fprintf(&b, " %s.", strings.TrimSuffix(note, "."))
	}
	if len(steps) > 0 {
		fmt.Fprintf(&b, "\nSteps: %s.", joinEach(steps, stepSummary))
	}
	if len(e.Goals) > 0 {
		fmt.Fprintf(&b, "\nGoals: %s.", joinEach(e.Goals, goalSummary))
	}
	return b.String()
}

// writeOutcome writes to b the start of summarize's description: how the
// run ended, the error and unmet goals it ended with, and the verdict on
// each criterion.
func writeOutcome(b *strings.Builder, id string, e End) {
	fmt.Fprintf(b, "%s: stopped with %s after %s; goal %s.", id, e.Reason, count(e.Turns, "turn"), completion[e.Completed])
	switch {
	case e.ErrorTool != "":
		fmt.Fprintf(b, " The tool %s failed: %s.", e.ErrorTool, e.Error)
	case e.Error != "":
		fmt.Fprintf(b, " The %s failed: %s.", e.ErrorSide, e.Error)
	}
	if len(e.UnmetGoals) > 0 {
		fmt.Fprintf(b, " The user stopped the conversation with unmet goals: %s.", strings.Join(e.UnmetGoals, ", "))
	}
	for _, c := range e.Criteria {
		fmt.Fprintf(b, "\nCriterion %q %s (%.2f): %s", c.Criterion, passFail[c.Passed], c.Score, c.Reason)
	}
}

// completion words whether the goal was completed, for summarize.
var completion = map[bool]string{true: "completed", false: "not completed"}

// passFail words whether a criterion passed, for summarize.
var passFail = map[bool]string{true: "passed", false: "failed"}

// count words n of a thing, "1 turn" or "2 turns".
func count(n int, thing string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, thing)
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// joinEach describes each of xs with describe, and joins them with commas.
func joinEach[T any](xs []T, describe func(T) string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = describe(x)
	}
	return strings.Join(out, ", ")
}

// stepSummary describes a step's state and, once it was tried, its
// attempts.
func stepSummary(s StepState) string {
	if s.Attempts <= 0 {
		return fmt.Sprintf("%s %s", s.StepID, s.Status)
	}
	return fmt.Sprintf("%s %s (%s)", s.StepID, s.Status, count(s.Attempts, "attempt"))
}

// goalSummary describes whether a goal was met, and in which turn.
func goalSummary(g GoalResult) string {
	if g.Met {
		return fmt.Sprintf("%s met in turn %d", g.Name, g.Turn)
	}
	return fmt.Sprintf("%s not met", g.Name)
}
