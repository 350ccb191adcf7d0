package report

import (
	"cmp"
	"html/template"
	"slices"
	"strconv"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// builder builds runs from their records.
type builder struct {
	problems int // listed so far
	// resolved is set when an earlier pass resolved the runs'
	// assessments: each entry is then whole once made.
	resolved bool
}

// plan indexes src and lays the page out: the runs in page order, in
// their tree, each record with its query's budget after it.
func plan(src source, opts *Options) (*view, error) {
	runs, runOf, err := index(src)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, ErrNoRecords
	}
	roots := tree(runs)
	queries(runOf, runs)
	items := conversations(roots)
	ordered, convs := order(items)
	if len(runs) > 1 {
		for _, r := range ordered {
			r.prefix = r.ID + "-"
		}
	}
	return &view{
		Title:  opts.Title,
		CSP:    csp,
		Style:  template.CSS(styleCSS),
		Script: template.JS(scriptJS),
		Tree:   items,
		Runs:   ordered,
		roots:  roots,
		convs:  convs,
	}, nil
}

// finish fills what the page says of all runs once each is built: the
// header, the conversations' summaries, the list of problems and the
// tree.
func (v *view) finish() {
	for _, c := range v.convs {
		c.Summary = summarize(c.Turns, c.runs)
	}
	v.Summary = summarize(v.roots, v.Runs)
	v.Summary.Conversations = len(v.convs)
	listProblems(v, v.Runs)
	items := v.Tree
	shown, rows := 0, 0
	for shown < len(items) && rows < treeShown {
		rows += treeRows(items[shown])
		shown++
	}
	v.Tree, v.TreeMore = items[:shown], items[shown:]
	for _, it := range v.TreeMore {
		v.TreeMoreRows += treeRows(it)
	}
}

// treeShown is about how many of the tree's rows the page shows when it
// opens; the rest are rendered when the tree is scrolled to them.
const treeShown = 40

// treeRows is how many rows a tree's item takes: its runs, and a
// conversation's heading.
func treeRows(it treeItem) int {
	if it.Conv != nil {
		return len(it.Conv.runs) + 1
	}
	return len(appendTree(nil, it.Run))
}

// order lists the runs of the tree's items as the page shows them, each
// run followed by the runs it started, and links each conversation to its
// runs and to the first and last of them.
func order(items []treeItem) (ordered []*run, convs []*conversation) {
	for _, it := range items {
		if it.Run != nil {
			ordered = appendTree(ordered, it.Run)
			continue
		}
		c := it.Conv
		convs = append(convs, c)
		from := len(ordered)
		for _, r := range c.Turns {
			ordered = appendTree(ordered, r)
		}
		c.runs = ordered[from:len(ordered):len(ordered)]
		ordered[from].opens = c
		ordered[len(ordered)-1].closes = true
	}
	return ordered, convs
}

// appendTree appends r and, after it, the runs it started, depth first.
func appendTree(ordered []*run, r *run) []*run {
	ordered = append(ordered, r)
	for _, c := range r.Children {
		ordered = appendTree(ordered, c)
	}
	return ordered
}

// index reads src once and returns its runs, in the order they first
// appear, each with a slot for each of its records and its parent, and
// the run of each record, in order.
func index(src source) ([]*run, []int32, error) {
	byID := map[string]*run{}
	var runs []*run
	var runOf []int32
	err := src.scan(func(at place, rec *recorder.Record) error {
		r := byID[rec.RunID]
		if r == nil {
			r = &run{ID: rec.RunID, Anchor: "run-" + rec.RunID, index: int32(len(runs))}
			byID[rec.RunID] = r
			runs = append(runs, r)
		}
		runOf = append(runOf, r.index)
		sl := slot{where: at, seq: rec.Seq}
		if !recorder.IsNilPayload(rec.Payload) {
			sl.fact, sl.tokens = factOf(rec.Payload)
		}
		if !rec.RecordedAt.IsZero() {
			sl.at = rec.RecordedAt.UnixNano()
		}
		r.slots = append(r.slots, sl)
		r.note(rec)
		return nil
	})
	for _, r := range runs {
		if p := byID[r.parentID]; p != nil && p != r {
			r.Parent = p
		}
	}
	return runs, runOf, err
}

// note keeps the first run_started record of r's records and the first
// parent run id they name, in seq order.
func (r *run) note(rec *recorder.Record) {
	if p, ok := rec.Payload.(*recorder.RunStarted); ok && p != nil && (r.started == nil || rec.Seq < r.startedSeq) {
		r.started, r.startedSeq = p, rec.Seq
	}
	if rec.ParentRunID != "" && (r.parentID == "" || rec.Seq < r.parentSeq) {
		r.parentID, r.parentSeq = rec.ParentRunID, rec.Seq
	}
}

// conversations groups the root runs that share a conversation id, when
// there are several, each group's turns in order, and returns the tree's
// items: the other root runs and the conversations, where each first
// appears.
func conversations(roots []*run) []treeItem {
	count := turnCounts(roots)
	byID := map[string]*conversation{}
	items := make([]treeItem, 0, len(roots))
	for _, r := range roots {
		id := r.conversation()
		if count[id] < 2 {
			items = append(items, treeItem{Run: r})
			continue
		}
		c := byID[id]
		if c == nil {
			c = &conversation{ID: id, Anchor: "conversation-" + id}
			byID[id] = c
			items = append(items, treeItem{Conv: c})
		}
		r.Grouped = c
		c.Turns = append(c.Turns, r)
	}
	for _, c := range byID {
		slices.SortStableFunc(c.Turns, func(a, b *run) int { return cmp.Compare(a.started.Turn, b.started.Turn) })
	}
	return items
}

// turnCounts is how many of roots are turns of each conversation.
func turnCounts(roots []*run) map[string]int {
	count := map[string]int{}
	for _, r := range roots {
		if id := r.conversation(); id != "" {
			count[id]++
		}
	}
	return count
}

// conversation is the id of the conversation r is a turn of, or "".
func (r *run) conversation() string {
	if r.started == nil {
		return ""
	}
	return r.started.ConversationID
}

// tree links each run to its parent and returns the runs without one in
// the records: the roots.
func tree(runs []*run) []*run {
	var roots []*run
	for _, r := range runs {
		if r.Parent == nil || cycles(r) {
			r.Parent = nil
			roots = append(roots, r)
			continue
		}
		r.Parent.Children = append(r.Parent.Children, r)
	}
	return roots
}

// cycles reports whether following parents from r comes back to r, which
// only damaged records can make.
func cycles(r *run) bool {
	seen := map[*run]bool{}
	for p := r.Parent; p != nil; p = p.Parent {
		if p == r || seen[p] {
			return true
		}
		seen[p] = true
	}
	return false
}

// anchor is the id of the record with seq in r.
func (r *run) anchor(seq uint64) string {
	return r.prefix + "seq-" + strconv.FormatUint(seq, 10)
}

// run builds r from its records, read from src in seq order: its
// header's facts, and its timeline, each entry given to emit once whole.
func (b *builder) run(r *run, src source, emit func(*entry)) error {
	t := timeline{b: b, r: r, open: map[string][]*toolCall{}, modelSpan: -1, emit: emit, names: map[string]bool{}}
	models := modelSet{}
	for i := range r.slots {
		rec, err := src.read(r.slots[i].where)
		if err != nil {
			return err
		}
		r.widen(rec.RecordedAt)
		models.addPayload(rec.Payload)
		t.add(&rec)
		t.flush(false)
	}
	t.closeGroup()
	t.unshown()
	t.flush(true)
	if len(models) == 0 && r.started != nil {
		models.add(r.started.AgentModel, "")
	}
	r.models = models
	r.Models = models.String()
	r.oneModel = len(t.names) <= 1
	r.describeStart()
	b.outcome(r, t.usage)
	b.runProblem(r, t.end)
	r.Duration = duration(r.last.Sub(r.first))
	return nil
}

// widen stretches the times r's records span to take in at, when it is
// set.
func (r *run) widen(at time.Time) {
	if at.IsZero() {
		return
	}
	if r.first.IsZero() || at.Before(r.first) {
		r.first = at
	}
	if at.After(r.last) {
		r.last = at
	}
}

// describeStart fills r's agent, version, conversation, turn and limits
// from its run_started record.
func (r *run) describeStart() {
	r.Agent = "(unnamed agent)"
	if r.started == nil {
		return
	}
	if r.started.AgentName != "" {
		r.Agent = r.started.AgentName
	}
	r.Version, r.Conversation, r.Turn = r.started.AgentVersion, r.started.ConversationID, r.started.Turn+1
	r.Limits = limits(r.started.Limits)
}

// outcome fills r's outcome, error and usage from its run_ended record,
// or marks it unfinished with the usage summed from its records.
func (b *builder) outcome(r *run, summed recorder.RunUsage) {
	r.Outcome, r.Class = "unfinished", "unfinished"
	r.usage = summed
	if r.ended != nil {
		r.Outcome, r.Class = string(r.ended.Outcome), "outcome-"+string(r.ended.Outcome)
		r.StopReason = r.ended.StopReason
		if r.ended.Error != "" {
			r.Error = &text{S: r.ended.Error}
		}
		r.usage = r.ended.Usage
	}
	r.Usage = usageOf(r.usage)
}
