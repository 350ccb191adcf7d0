package simulate

import (
	"slices"
	"time"
)

// Status is where a step stands.
//
// A Status is an immutable string, safe for concurrent use.
type Status string

// Step statuses.
const (
	StatusIdle       Status = "idle"        // not attempted; eligible if its preconditions hold
	StatusInProgress Status = "in_progress" // attempted at least once, not yet satisfied
	StatusSatisfied  Status = "satisfied"   // done; never selected again
	StatusBlocked    Status = "blocked"     // not attempted; its preconditions do not hold
	StatusFailed     Status = "failed"      // ran out of attempts or time; never selected again
	StatusSkipped    Status = "skipped"     // never attempted before the run ended
)

// finished reports whether a step in this status can no longer be selected.
func (s Status) finished() bool {
	return s == StatusSatisfied || s == StatusFailed || s == StatusSkipped
}

// StepState is the runtime state of one step. UpdatedAt is when Status last
// changed (or Attempts last grew), on the runner's clock.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type StepState struct {
	StepID    string    `json:"stepId"`
	Status    Status    `json:"status"`
	Attempts  int       `json:"attempts"`
	UpdatedAt time.Time `json:"lastUpdatedAt"`
}

// Progress is a read-only snapshot of a run, handed to preconditions,
// satisfaction checks and policies. Traces holds every completed turn, oldest
// first; Steps maps step id to its state; Goals holds the outcome of each
// scenario goal so far. The runner does not change a snapshot after handing
// it out, so one kept for later still shows the run as it was. Callers must
// not modify any of it: concurrent checks share the same snapshot.
type Progress struct {
	Scenario *Scenario
	Traces   []StepTrace
	Steps    map[string]StepState
	Goals    []GoalResult
}

// Satisfied reports whether the step with the given id is satisfied.
func (s Progress) Satisfied(stepID string) bool {
	return s.Steps[stepID].Status == StatusSatisfied
}

// Attempts reports how many turns have been spent on the step.
func (s Progress) Attempts(stepID string) int { return s.Steps[stepID].Attempts }

// GoalsMet reports whether the scenario declares goals and all of them are
// met.
func (s Progress) GoalsMet() bool {
	if len(s.Goals) == 0 {
		return false
	}
	for _, g := range s.Goals {
		if !g.Met {
			return false
		}
	}
	return true
}

// GoalReached reports whether the scenario's goal has been reached, by the
// strongest evidence it declares: all Goals met when it has goals; otherwise
// a terminal step satisfied when its graph has terminals; otherwise every
// step satisfied when it has a graph. A scenario with none of these never
// reaches its goal by itself; it ends on max turns or a custom policy.
func (s Progress) GoalReached() bool {
	sc := s.Scenario
	if sc == nil {
		return false
	}
	if len(sc.Goals) > 0 {
		return s.GoalsMet()
	}
	if sc.Graph == nil || len(sc.Graph.Steps) == 0 {
		return false
	}
	if len(sc.Graph.Terminals) > 0 {
		return slices.ContainsFunc(sc.Graph.Terminals, s.Satisfied)
	}
	return s.allSatisfied(sc.Graph.Steps)
}

// allSatisfied reports whether every one of steps is satisfied.
func (s Progress) allSatisfied(steps []Step) bool {
	for _, st := range steps {
		if !s.Satisfied(st.ID) {
			return false
		}
	}
	return true
}
