package summary

import (
	"cmp"
	"slices"
)

// conversations groups the root runs that name a conversation by it.
func conversations(runs []Run, parents []int) []Conversation {
	out, turns := conversationRuns(runs, parents)
	for k := range out {
		slices.SortStableFunc(turns[k], func(a, b *Run) int { return cmp.Compare(a.Turn, b.Turn) })
		for _, r := range turns[k] {
			out[k].Turns = append(out[k].Turns, r.RunID)
		}
	}
	return out
}

// conversationRuns returns the conversations the root runs name, in the
// order first named, each with no turns yet, and the root runs of each.
func conversationRuns(runs []Run, parents []int) ([]Conversation, [][]*Run) {
	var out []Conversation
	at := map[string]int{}
	var turns [][]*Run
	for i := range runs {
		r := &runs[i]
		if parents[i] >= 0 || r.ConversationID == "" {
			continue
		}
		k, ok := at[r.ConversationID]
		if !ok {
			k = len(out)
			at[r.ConversationID] = k
			out = append(out, Conversation{ID: r.ConversationID})
			turns = append(turns, nil)
		}
		turns[k] = append(turns[k], r)
	}
	return out, turns
}

// parentsOf returns, for each run, the index of its parent run, found
// by id in index, or -1 when it names none, an unknown one or itself.
func parentsOf(runs []Run, index map[string]int) []int {
	parents := make([]int, len(runs))
	for i := range runs {
		parents[i] = -1
		id := runs[i].ParentRunID
		if p, ok := index[id]; ok && id != "" && p != i {
			parents[i] = p
		}
	}
	return parents
}

// breakCycles unlinks, in every cycle of parents (indices of parent runs,
// -1 for none), the run that appears first, so that it becomes a root.
// Recorders never write cycles; a damaged or hand-made file can, and
// every run must still be counted under exactly one root.
func breakCycles(parents []int) {
	state := make([]visit, len(parents))
	var path []int
	for i := range parents {
		var j int
		path, j = climb(parents, state, i, path[:0])
		if j >= 0 && state[j] == onPath {
			cycle := path[slices.Index(path, j):]
			parents[slices.Min(cycle)] = -1
		}
		for _, k := range path {
			state[k] = visited
		}
	}
}

// visit is how far breakCycles has got with a run.
type visit uint8

const (
	unvisited visit = iota
	onPath
	visited
)

// climb follows parents up from run i while the runs are unvisited,
// appending them to path and marking them onPath. It returns the path and
// the run it stopped at: -1 above a root, or one visited or on the path.
func climb(parents []int, state []visit, i int, path []int) ([]int, int) {
	j := i
	for j >= 0 && state[j] == unvisited {
		state[j] = onPath
		path = append(path, j)
		j = parents[j]
	}
	return path, j
}
