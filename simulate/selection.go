package simulate

import (
	"context"
	"fmt"
)

// selectStep chooses the step for this turn.
func (ru *run) selectStep(ctx context.Context, turn int) (Selection, *Step, error) {
	steps := ru.sc.steps()
	if len(steps) == 0 {
		return Selection{Method: MethodNone}, nil, nil
	}
	eligible, err := ru.eligible(ctx, ru.state())
	if err != nil {
		return Selection{}, nil, err
	}
	if start := ru.startStep(turn, eligible); start >= 0 {
		return Selection{Method: MethodStart}, &steps[start], nil
	}
	gated, cands := toRank(steps, eligible)
	if gated >= 0 {
		return Selection{Method: MethodPreconditions}, &steps[gated], nil
	}
	if len(cands) == 0 {
		return Selection{Method: MethodNone}, nil, nil
	}
	sel, best, err := ru.bestOf(ctx, steps, eligible, cands)
	return sel, stepAt(steps, best), err
}

// stepAt returns the step at index i, or nil when i is -1.
func stepAt(steps []Step, i int) *Step {
	if i < 0 {
		return nil
	}
	return &steps[i]
}

// startStep returns the index of the graph's start step when this is the
// first turn and the start step is eligible, or -1.
func (ru *run) startStep(turn int, eligible []bool) int {
	start := ru.sc.Graph.Start
	if turn != 0 || start == "" || !eligible[ru.index[start]] {
		return -1
	}
	return ru.index[start]
}

// bestOf ranks the candidates and returns the selection with the index
// of the best eligible step, or -1 when no step scored above
// RankThreshold. A failed ranking fails the turn with a *rankFailure,
// unless the scenario degrades: the turn then goes on without a step, and
// the selection records the error and the degradation.
func (ru *run) bestOf(ctx context.Context, steps []Step, eligible []bool, cands []Step) (Selection, int, error) {
	sel, err := ru.rankSteps(ctx, cands)
	if err != nil {
		if ru.sc.OnRankerFailure != RankerDegrade || ctx.Err() != nil {
			return sel, -1, &rankFailure{err}
		}
		sel.Degraded = true
		ru.degraded++
		return sel, -1, nil
	}
	best := bestRanked(steps, eligible, sel.Candidates)
	if best >= 0 {
		sel.Method = MethodRanked
	}
	return sel, best, nil
}

// rankFailure is a ranking that failed the turn.
type rankFailure struct{ err error }

func (f *rankFailure) Error() string { return f.err.Error() }

// toRank returns the first eligible step that has preconditions, which
// is chosen without ranking, or -1 and the eligible steps to rank.
func toRank(steps []Step, eligible []bool) (int, []Step) {
	var cands []Step
	for i := range steps {
		if !eligible[i] {
			continue
		}
		if len(steps[i].Preconditions) > 0 {
			return i, nil
		}
		cands = append(cands, steps[i])
	}
	return -1, cands
}

// rankSteps asks the ranker to score the candidates, given the latest
// turns. A ranking that fails, or that scores no candidate usably, is
// kept in the selection as its RankError, and returned.
func (ru *run) rankSteps(ctx context.Context, cands []Step) (Selection, error) {
	traces := ru.res.Traces
	if n := ru.r.rankContextTurns(); len(traces) > n {
		traces = traces[len(traces)-n:]
	}
	in := RankInput{Goal: ru.sc.Goal, Persona: ru.sc.Persona, Steps: cands, Traces: traces}
	var ranked []Candidate
	err := ru.call(ctx, RoleRanker, func(ctx context.Context) (err error) {
		ranked, err = rank(ctx, ru.ranker, in)
		return err
	})
	ranked, uerr := usableScores(ranked, cands)
	if err == nil {
		err = uerr
	}
	sel := Selection{Method: MethodNone, Candidates: ranked}
	if err != nil {
		sel.RankError = err.Error()
	}
	return sel, err
}

// bestRanked returns the eligible step, in graph order, that scores
// highest above RankThreshold, or -1 when none does.
func bestRanked(steps []Step, eligible []bool, ranked []Candidate) int {
	best, bestScore := -1, RankThreshold
	for i := range steps {
		if !eligible[i] {
			continue
		}
		for _, c := range ranked {
			if c.StepID == steps[i].ID && c.Score > bestScore {
				best, bestScore = i, c.Score
			}
		}
	}
	return best
}

// usableScores keeps the candidates that score a step the ranker was
// offered with a finite number in [0, 1], one per step with its best score,
// the rules the default ranker applies when it reads a model's answer.
// Out-of-range scores could otherwise win the selection, NaN or infinite
// ones would make the run's artifacts impossible to encode as JSON, and
// steps that were not offered (unknown, finished or waiting for their
// preconditions) were never candidates. A ranking with candidates but none
// usable is an ErrBadRanking.
func usableScores(cs []Candidate, offered []Step) ([]Candidate, error) {
	if len(cs) == 0 {
		return cs, nil
	}
	out := bestUsable(cs, offered)
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no candidate scores an offered step with a number in [0, 1]", ErrBadRanking)
	}
	return out, nil
}

// bestUsable keeps, in the order first seen, the best candidate with a
// score in [0, 1] for each offered step.
func bestUsable(cs []Candidate, offered []Step) []Candidate {
	// at maps an offered step id to its candidate's index in out, or -1.
	at := offeredIndex(offered)
	var out []Candidate
	for _, c := range cs {
		i, ok := at[c.StepID]
		switch {
		case !ok || !inUnit(c.Score):
		case i < 0:
			at[c.StepID] = len(out)
			out = append(out, c)
		case c.Score > out[i].Score:
			out[i] = c
		}
	}
	return out
}

// offeredIndex maps the id of each offered step to -1, for usableScores to
// replace with the index of the step's candidate.
func offeredIndex(offered []Step) map[string]int {
	at := make(map[string]int, len(offered))
	for _, s := range offered {
		at[s.ID] = -1
	}
	return at
}

// inUnit reports whether score is a number in [0, 1]; NaN is not.
func inUnit(score float64) bool {
	return score >= 0 && score <= 1
}
