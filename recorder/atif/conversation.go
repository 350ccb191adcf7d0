package atif

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lookout-go/lookout/recorder"
)

// Conversations returns the ids of the conversations of the root runs in
// records (see recorder.RunStarted), in order of first appearance. Root
// runs recorded without a conversation id are in none.
func Conversations(records []recorder.Record) []string {
	return conversationsOf(groupRuns(records))
}

// conversation is the id of the conversation r is a turn of, or "".
func (r *run) conversation() string {
	if r.info == nil {
		return ""
	}
	return r.info.ConversationID
}

// turns returns the root runs of conversation id, by turn, or the only
// conversation's when id is empty.
func (s *runSet) turns(id string) ([]*run, error) {
	if id == "" {
		only, err := onlyConversation(s)
		if err != nil {
			return nil, err
		}
		id = only
	}
	var turns []*run
	for _, r := range s.roots() {
		if r.conversation() == id {
			turns = append(turns, r)
		}
	}
	if len(turns) == 0 {
		return nil, fmt.Errorf("%w: conversation %q is not in the records", ErrNoRootRun, id)
	}
	slices.SortStableFunc(turns, func(a, b *run) int { return cmp.Compare(a.info.Turn, b.info.Turn) })
	return turns, nil
}

// onlyConversation is the id of the one conversation the root runs of s
// name, or an error when they name none or more than one.
func onlyConversation(s *runSet) (string, error) {
	ids := conversationsOf(s)
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("%w: no run names a conversation", ErrNoRootRun)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%w: %d conversations (%s); pick one", ErrAmbiguousRoot, len(ids), strings.Join(ids, ", "))
}

func conversationsOf(s *runSet) []string {
	var ids []string
	for _, r := range s.roots() {
		if id := r.conversation(); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// FromConversation builds one ATIF trajectory holding every turn of a
// conversation: the root runs recorded with the conversation id
// Options.Conversation (or the only conversation in records when it is
// empty), in turn order. Its session_id is the conversation id, its
// steps are the turns' steps one after the other, numbered from 1, its
// subagent_trajectories hold the runs every turn started, and its final
// metrics count them all. extra.lookout.turns lists each turn: its index,
// run id, first step_id and how it ended. Options.RunID is not used.
//
// It fails with ErrNoRootRun when the conversation is not in records and
// with ErrAmbiguousRoot when several are and none was picked.
func FromConversation(records []recorder.Record, opts *Options) (*Trajectory, error) {
	turns, o, err := conversationTurns(records, opts)
	if err != nil {
		return nil, err
	}
	t, _ := conversationOf(turns, &o)
	return t, nil
}

// conversationTurns returns the turns of the conversation opts picks in
// records, and the options.
func conversationTurns(records []recorder.Record, opts *Options) ([]*run, Options, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	turns, err := groupRuns(records).turns(o.Conversation)
	return turns, o, err
}

// turnInfo is what a conversation's extra says of turn r, exported as t
// and starting at step_id first: its number, run id, first step and how
// it ended.
func turnInfo(r *run, t *Trajectory, first int) map[string]any {
	turn := map[string]any{"turn": r.info.Turn, "run_id": r.id, "first_step_id": first}
	if ended, ok := t.Extra[ExtraKey].(map[string]any); ok {
		for _, k := range []string{"outcome", "stop_reason", "error"} {
			if v, ok := ended[k]; ok {
				turn[k] = v
			}
		}
	}
	return turn
}

// conversationOf exports turns as one trajectory and returns it with the
// step_id each turn starts at.
func conversationOf(turns []*run, o *Options) (*Trajectory, []int) {
	x := &exporter{opts: *o, seen: map[string]bool{}}
	var out *Trajectory
	var metrics []*FinalMetrics
	var starts []int
	var info []any
	var subs []Trajectory
	for _, r := range turns {
		t := x.trajectory(r)
		subs = append(subs, t.SubagentTrajectories...)
		steps := t.Steps
		first := 1
		if out == nil {
			out = t
			out.Steps = nil
		} else {
			first = len(out.Steps) + 1
			out.Agent.ToolDefinitions = mergeTools(out.Agent.ToolDefinitions, t.Agent.ToolDefinitions)
		}
		for _, s := range steps {
			s.StepID = len(out.Steps) + 1
			out.Steps = append(out.Steps, s)
		}
		starts = append(starts, first)
		metrics = append(metrics, t.FinalMetrics)
		info = append(info, turnInfo(r, t, first))
	}
	out.SchemaVersion = Version
	out.SessionID = turns[0].conversation()
	out.SubagentTrajectories = subs
	n := len(out.Steps)
	// Each turn's final metrics count its subagents already.
	out.FinalMetrics = totals(nil, metrics)
	out.FinalMetrics.TotalSteps = &n
	out.Extra = map[string]any{ExtraKey: map[string]any{"conversation_id": out.SessionID, "turns": info}}
	return out, starts
}

// mergeTools adds the definitions of more not in defs, by name.
func mergeTools(defs, more []map[string]any) []map[string]any {
	name := func(d map[string]any) any {
		fn, _ := d["function"].(map[string]any)
		return fn["name"]
	}
	for _, d := range more {
		if !slices.ContainsFunc(defs, func(e map[string]any) bool { return name(e) == name(d) }) {
			defs = append(defs, d)
		}
	}
	return defs
}

// Document is a trajectory with the file name it is meant to be written
// under, which other documents refer to.
type Document struct {
	Name       string
	Trajectory *Trajectory
}

// ContinuationName is the file name of the n-th continuation (from 1) of
// a trajectory written as name, as Harbor names them:
// "run.trajectory.json" continues in "run.trajectory.cont-1.json".
func ContinuationName(name string, n int) string {
	base := strings.TrimSuffix(name, ".json")
	return base + ".cont-" + strconv.Itoa(n) + ".json"
}

// ConversationChain writes a conversation (picked as by FromConversation)
// as a chain of documents, one per turn, the first named name and the
// others by ContinuationName. Each names the next in
// continued_trajectory_ref, and each continuation begins with the steps of
// every earlier turn, marked is_copied_context, followed by its own, so
// every earlier turn is reachable from any document. A document holds the
// subagent trajectories of the turns it has, and counts in its final
// metrics the steps and tokens of its own turn only; copied steps keep
// their metrics, so Harbor, which skips copied context, counts each turn
// once.
//
// FromConversation's single document is what Harbor's viewer and
// validator read whole; the chain is for tools that want one turn per
// file.
func ConversationChain(records []recorder.Record, opts *Options, name string) ([]Document, error) {
	turns, o, err := conversationTurns(records, opts)
	if err != nil {
		return nil, err
	}
	docs := make([]Document, len(turns))
	for i := range turns {
		t, starts := conversationOf(turns[:i+1], &o)
		own := t.Steps[starts[i]-1:]
		for j := range t.Steps[:starts[i]-1] {
			t.Steps[j].IsCopiedContext = true
		}
		single, _ := conversationOf(turns[i:i+1], &o)
		t.FinalMetrics = single.FinalMetrics
		n := len(own)
		t.FinalMetrics.TotalSteps = &n
		docs[i].Trajectory = t
		docs[i].Name = name
		if i > 0 {
			docs[i].Name = ContinuationName(name, i)
		}
	}
	for i := range len(docs) - 1 {
		docs[i].Trajectory.ContinuedTrajectoryRef = docs[i+1].Name
	}
	return docs, nil
}
