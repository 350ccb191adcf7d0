package report

import (
	"cmp"
	"html/template"
	"slices"
	"strconv"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// builder turns records into a view.
type builder struct {
	texts    []*text
	problems int // listed so far
}

// build returns the page's view of records and the texts it shows, to be
// folded.
func build(records []recorder.Record, opts *Options) (*view, []*text) {
	b := &builder{}
	runs, byID := group(records)
	roots := tree(runs)
	queries(records, runs, byID)
	items := conversations(roots)
	multi := len(runs) > 1
	ordered, convs := order(items)
	for _, r := range ordered {
		if multi {
			r.prefix = r.ID + "-"
		}
		b.run(r)
	}
	for _, c := range convs {
		c.Summary = summarize(c.Turns, c.runs)
	}
	v := &view{
		Title:   opts.Title,
		CSP:     csp,
		Style:   template.CSS(styleCSS),
		Script:  template.JS(scriptJS),
		Summary: summarize(roots, ordered),
		Tree:    items,
		Runs:    ordered,
	}
	v.Summary.Conversations = len(convs)
	for _, r := range ordered {
		if r.Query == r {
			r.Waterfall = drawWaterfall(r, appendTree(nil, r))
		}
	}
	listProblems(v, ordered)
	shown, rows := 0, 0
	for shown < len(items) && rows < treeShown {
		rows += treeRows(items[shown])
		shown++
	}
	v.Tree, v.TreeMore = items[:shown], items[shown:]
	for _, it := range v.TreeMore {
		v.TreeMoreRows += treeRows(it)
	}
	return v, b.texts
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

// group splits records by run, in the order runs first appear, each
// run's records sorted by seq.
func group(records []recorder.Record) ([]*run, map[string]*run) {
	byID := map[string]*run{}
	var runs []*run
	for _, rec := range records {
		r := byID[rec.RunID]
		if r == nil {
			r = &run{ID: rec.RunID, Anchor: "run-" + rec.RunID}
			byID[rec.RunID] = r
			runs = append(runs, r)
		}
		r.records = append(r.records, rec)
	}
	for _, r := range runs {
		slices.SortStableFunc(r.records, func(a, b recorder.Record) int { return cmp.Compare(a.Seq, b.Seq) })
		r.started = firstStarted(r.records)
		if p := byID[firstParent(r.records)]; p != nil && p != r {
			r.Parent = p
		}
	}
	return runs, byID
}

// firstStarted is the first run_started record of records, or nil.
func firstStarted(records []recorder.Record) *recorder.RunStarted {
	for _, rec := range records {
		if p, ok := rec.Payload.(*recorder.RunStarted); ok && p != nil {
			return p
		}
	}
	return nil
}

// firstParent is the first parent run id records name, or "".
func firstParent(records []recorder.Record) string {
	for _, rec := range records {
		if rec.ParentRunID != "" {
			return rec.ParentRunID
		}
	}
	return ""
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

// text registers s to be folded with every other text of the page.
func (b *builder) text(s string) *text {
	t := &text{S: s}
	b.texts = append(b.texts, t)
	return t
}

// run fills r's header and timeline from its records.
func (b *builder) run(r *run) {
	t := timeline{b: b, r: r, open: map[string][]*toolCall{}, modelSpan: -1}
	models := modelSet{}
	for i := range r.records {
		rec := &r.records[i]
		r.widen(rec.RecordedAt)
		models.addPayload(rec.Payload)
		t.add(rec)
	}
	t.closeGroup()
	t.unshown()
	r.Entries = t.entries
	if len(models) == 0 && r.started != nil {
		models.add(r.started.AgentModel, "")
	}
	r.models = models
	r.Models = models.String()
	if oneModel(r.Entries) {
		unnameModels(r.Entries)
	}
	r.describeStart()
	b.outcome(r, t.usage)
	b.runProblem(r, t.end)
	r.Duration = duration(r.last.Sub(r.first))
	r.Chart = burnDown(r)
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
			r.Error = b.text(r.ended.Error)
		}
		r.usage = r.ended.Usage
	}
	r.Usage = usageOf(r.usage)
}

// unnameModels leaves the model out of each model call of entries: the
// run's header names it; each call need not.
func unnameModels(entries []*entry) {
	for _, e := range entries {
		if e.Kind == kindModel {
			e.Model.Model = ""
		}
	}
}

// oneModel reports whether the model calls of entries name one model at
// most.
func oneModel(entries []*entry) bool {
	name := ""
	for _, e := range entries {
		if e.Kind != kindModel || e.Model.Model == "" {
			continue
		}
		if name != "" && e.Model.Model != name {
			return false
		}
		name = e.Model.Model
	}
	return true
}
