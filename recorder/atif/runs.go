package atif

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// run is one run's records, in seq order, with what FromRecords learns
// from its run_started record.
type run struct {
	id, parent string
	records    []placed
	started    moment
	agentName  string
	extras     recorder.Extras // what an imported trajectory kept on run_started
	// info holds the run's run_started record, if it has one.
	info     *recorder.RunStarted
	children []*run
}

// placed is a record with its position in the records FromRecords was
// given.
type placed struct {
	recorder.Record
	pos int
}

// moment is when something was recorded: the record's time and, to order
// records of different runs stamped with the same time, its position in
// the records FromRecords was given.
type moment struct {
	at  time.Time
	pos int
}

func (m moment) before(o moment) bool {
	if !m.at.Equal(o.at) {
		return m.at.Before(o.at)
	}
	return m.pos < o.pos
}

func (r *run) isRoot(runs *runSet) bool {
	return r.parent == "" || runs.byID[r.parent] == nil
}

type runSet struct {
	byID  map[string]*run
	order []*run
}

// groupRuns sorts the records into their runs, each in Seq order, and
// links every run under its parent, children by start.
func groupRuns(records []recorder.Record) *runSet {
	s := &runSet{byID: map[string]*run{}}
	for i, rec := range records {
		s.add(rec, i)
	}
	for _, r := range s.order {
		s.settle(r)
	}
	for _, r := range s.order {
		sort.SliceStable(r.children, func(i, j int) bool { return r.children[i].started.before(r.children[j].started) })
	}
	return s
}

// add files rec, the i-th record, under its run, starting the run at rec
// when it is the run's first. A RunStarted record restarts the run at
// itself and names it, wherever it comes.
func (s *runSet) add(rec recorder.Record, i int) {
	at := moment{rec.RecordedAt, i}
	r := s.byID[rec.RunID]
	if r == nil {
		r = &run{id: rec.RunID, parent: rec.ParentRunID, started: at}
		s.byID[rec.RunID] = r
		s.order = append(s.order, r)
	}
	if r.parent == "" {
		r.parent = rec.ParentRunID
	}
	r.records = append(r.records, placed{rec, i})
	if p, ok := rec.Payload.(*recorder.RunStarted); ok {
		r.started = at
		r.agentName = p.AgentName
		r.extras = p.Extra
		r.info = p
	}
}

// settle puts the records of r in Seq order, and r among the children of
// its parent when it has one in the set. A run that names itself as its
// parent has none.
func (s *runSet) settle(r *run) {
	bySeq := func(a, b placed) int { return cmp.Compare(a.Seq, b.Seq) }
	if !slices.IsSortedFunc(r.records, bySeq) {
		slices.SortStableFunc(r.records, bySeq)
	}
	if r.parent == r.id {
		r.parent = ""
	}
	if p := s.byID[r.parent]; p != nil && !r.isRoot(s) {
		p.children = append(p.children, r)
	}
}

func (s *runSet) root(id string) (*run, error) {
	if id != "" {
		r := s.byID[id]
		if r == nil {
			return nil, fmt.Errorf("%w: run %q is not in the records", ErrNoRootRun, id)
		}
		return r, nil
	}
	roots := s.roots()
	switch len(roots) {
	case 0:
		return nil, ErrNoRootRun
	case 1:
		return roots[0], nil
	}
	ids := make([]string, len(roots))
	for i, r := range roots {
		ids[i] = r.id
	}
	return nil, &AmbiguousRootError{RunIDs: ids}
}

// roots returns the runs without a parent in the set, in the order
// first seen.
func (s *runSet) roots() []*run {
	var roots []*run
	for _, r := range s.order {
		if r.isRoot(s) {
			roots = append(roots, r)
		}
	}
	return roots
}
