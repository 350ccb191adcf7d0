package atif

import (
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// turnMark is one turn of a conversation document, as its
// extra.lookout.turns lists it: its number, run id, first step and how
// it ended.
type turnMark struct {
	turn   int
	runID  string
	first  int
	ending map[string]any
}

// conversationMarks reads the turns of a conversation document (see
// FromConversation), and its conversation id, or nil when t is not one or
// its turn list does not cut its steps in order.
func conversationMarks(t *Trajectory) (string, []turnMark) {
	info := lookoutExtra(t.Extra)
	conv, _ := info["conversation_id"].(string)
	list, _ := info["turns"].([]any)
	if conv == "" || len(list) == 0 {
		return "", nil
	}
	marks := make([]turnMark, 0, len(list))
	for _, item := range list {
		m, _ := item.(map[string]any)
		turn, okTurn := number(m["turn"])
		first, okFirst := number(m["first_step_id"])
		id, _ := m["run_id"].(string)
		prev := 0
		if len(marks) > 0 {
			prev = marks[len(marks)-1].first
		}
		if !okTurn || !okFirst || id == "" || int(first) <= prev || int(first) > len(t.Steps) {
			return "", nil
		}
		ending := map[string]any{}
		for _, k := range []string{"outcome", "stop_reason", "error"} {
			if v, ok := m[k]; ok {
				ending[k] = v
			}
		}
		marks = append(marks, turnMark{turn: int(turn), runID: id, first: int(first), ending: ending})
	}
	if marks[0].first != 1 {
		return "", nil
	}
	return conv, marks
}

// conversation imports a conversation document as its turns: a root run
// each, recorded with the conversation id and its turn, holding its own
// steps and the subagents they refer to, so that FromConversation gives
// the document back.
func (im *importer) conversation(t *Trajectory, conv string, marks []turnMark) {
	owner := subagentOwners(t, marks)
	for i, m := range marks {
		end := len(t.Steps)
		if i+1 < len(marks) {
			end = marks[i+1].first - 1
		}
		part := *t
		part.Steps = t.Steps[m.first-1 : end]
		part.SessionID, part.TrajectoryID = m.runID, ""
		part.FinalMetrics = nil
		part.Extra = map[string]any{ExtraKey: m.ending}
		part.SubagentTrajectories = nil
		for j, sub := range t.SubagentTrajectories {
			if owner[j] == i {
				part.SubagentTrajectories = append(part.SubagentTrajectories, sub)
			}
		}
		im.used[m.runID] = true
		start := len(im.out)
		w := im.run(&part, nil, m.runID, "", 0, "", time.Time{})
		if rs, ok := im.out[start].Payload.(*recorder.RunStarted); ok {
			rs.ConversationID, rs.Turn = conv, m.turn
		}
		w.end(&part)
	}
}

// subagentOwners gives, for each subagent of t, the turn whose steps
// refer to it; one no step refers to goes with the last turn.
func subagentOwners(t *Trajectory, marks []turnMark) []int {
	turnOf := map[string]int{}
	for i, m := range marks {
		end := len(t.Steps)
		if i+1 < len(marks) {
			end = marks[i+1].first - 1
		}
		for _, s := range t.Steps[m.first-1 : end] {
			for _, r := range observationResults(&s) {
				for _, ref := range r.SubagentTrajectoryRef {
					if _, seen := turnOf[ref.TrajectoryID]; !seen {
						turnOf[ref.TrajectoryID] = i
					}
				}
			}
		}
	}
	owner := make([]int, len(t.SubagentTrajectories))
	for j, sub := range t.SubagentTrajectories {
		i, ok := turnOf[sub.TrajectoryID]
		if !ok {
			i = len(marks) - 1
		}
		owner[j] = i
	}
	return owner
}
