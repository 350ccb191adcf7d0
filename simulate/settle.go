package simulate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
)

// settle updates step states after a turn: the attempted step is checked
// with its own check or the default heuristic; other unfinished steps with
// a custom check are checked too, since an agent may do more than asked.
// Steps out of attempts or time are failed.
func (ru *run) settle(ctx context.Context, attempted *Step) error {
	st := ru.state()
	steps := ru.sc.steps()
	now := ru.now()
	for i := range steps {
		if ru.steps[i].Status.finished() {
			continue
		}
		done, err := satisfied(ctx, &steps[i], attempted, st)
		if err != nil {
			return err
		}
		switch {
		case done:
			ru.setStatus(i, StatusSatisfied)
		case ru.outOfBudget(i, &steps[i], now):
			ru.setStatus(i, StatusFailed)
		}
	}
	return nil
}

// satisfied reports whether step s is done after the turn in st: by its
// own check when it has one, which may pass on any turn, or else by the
// default heuristic, which only the attempted step can pass.
func satisfied(ctx context.Context, s, attempted *Step, st Progress) (bool, error) {
	if s.Satisfied != nil {
		ok, err := safeCheck(ctx, s.Satisfied, st)
		if err != nil {
			return false, fmt.Errorf("step %q: %w", s.ID, err)
		}
		return ok, nil
	}
	return attempted != nil && attempted.ID == s.ID && answered(st.Traces[len(st.Traces)-1]), nil
}

// outOfBudget reports whether step s, the i-th, is in progress but has
// used up its attempts or its time by now, so it has failed. Steps not
// in progress spend neither.
func (ru *run) outOfBudget(i int, s *Step, now time.Time) bool {
	if ru.steps[i].Status != StatusInProgress {
		return false
	}
	outOfAttempts := s.MaxAttempts > 0 && ru.steps[i].Attempts >= s.MaxAttempts
	outOfTime := s.Timeout > 0 && now.Sub(ru.started[i]) >= s.Timeout
	return outOfAttempts || outOfTime
}

// answered is the default satisfaction heuristic: the agent's last message
// in the turn is an assistant message with text and no pending tool calls.
func answered(t StepTrace) bool {
	if len(t.Agent) == 0 {
		return false
	}
	last := t.Agent[len(t.Agent)-1]
	return last.Role == schema.Assistant && len(last.ToolCalls) == 0 && strings.TrimSpace(msgtext.Of(last)) != ""
}

func (ru *run) checkGoals(ctx context.Context, turn int) error {
	if len(ru.goals) == 0 {
		return nil
	}
	ev := Evidence{ToolCalls: ru.res.ToolCalls, Traces: ru.res.Traces}
	for i, g := range ru.sc.Goals {
		if ru.goals[i].Met {
			continue
		}
		ok, err := safeGoal(ctx, g, ev)
		if err != nil {
			ru.goals[i].Error = err.Error()
			return fmt.Errorf("goal %q: %w", g.Name, err)
		}
		if ok {
			ru.goals[i].Met, ru.goals[i].Turn = true, turn
		}
	}
	return nil
}
