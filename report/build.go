package report

import (
	"cmp"
	"html/template"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
)

// view is what the page template renders.
type view struct {
	Title   string
	CSP     string
	Style   template.CSS
	Script  template.JS
	Summary summary
	Tree    []treeItem // the root runs and the conversations, in the order they first appear
	Runs    []*run     // every run, parents before their children, a conversation's turns in order
	Folded  int        // texts cut short, once folded
}

// treeItem is a root run, or a conversation of several.
type treeItem struct {
	Run  *run
	Conv *conversation
}

// conversation is the root runs that share a conversation id: its
// turns, in order, and what they did together.
type conversation struct {
	ID      string
	Anchor  string
	Turns   []*run
	Summary summary

	runs []*run // the turns and the runs they started
}

// summary is the header: all runs together.
type summary struct {
	Runs          int
	Conversations int
	Outcome       string
	Class         string // CSS class of the outcome
	StopReason    string
	Models        string
	Usage         usage
	Duration      string
}

// usage is what runs consumed, as the header shows it. Cached,
// CacheWrite and Reasoning are empty when none were reported, and Cost
// when no cost was recorded.
type usage struct {
	Tokens, Prompt, Completion    string
	Cached, CacheWrite, Reasoning string
	Cost                          string
	ModelCalls, ToolCalls         int64
}

// run is one run's section of the page.
type run struct {
	ID           string
	Anchor       string // id of the run's section
	StartedID    string // anchor of run_started, or ""
	Agent        string
	Grouped      *conversation // the conversation the run is a turn of, on the page
	Version      string        // the agent's
	Conversation string        // the conversation's id, for a run that is a turn of one
	Turn         int           // the run's turn in it, counted from 1 (the record counts from 0)
	Parent       *run
	Children     []*run
	Outcome      string
	Class        string
	StopReason   string
	Error        *text
	Models       string
	Usage        usage
	Duration     string
	Limits       string
	Chart        *chart
	Entries      []*entry

	opens   *conversation // the conversation whose section starts with this run
	closes  bool          // the run is the last of its conversation's section
	prefix  string        // of the record anchors: "" or the run id and "-"
	records []recorder.Record
	first   time.Time
	last    time.Time
	ended   *recorder.RunEnded
	started *recorder.RunStarted
	usage   recorder.RunUsage // from run_ended, or added up from the records
	models  modelSet
}

// Entry kinds.
const (
	kindMessage    = "message"
	kindReminder   = "reminder"
	kindAssessment = "assessment"
	kindModel      = "model"
	kindTools      = "tools"
	kindBudget     = "budget"
	kindExtension  = "extension"
	kindAnchor     = "anchor"
	kindEnd        = "end"
	kindInjected   = "injected" // a message Lookout added to a model call's input
)

// An assessment record's Note: whether the model was shown it, when the
// run's model requests say what Lookout added to their inputs.
const (
	assessmentShown   = "shown"
	assessmentUnshown = "unshown"
)

// entry is one item of a run's timeline.
type entry struct {
	Kind   string
	ID     string
	Label  string // a message's role, a reminder's tag, an extension's name, an assessment's severity, an outcome, an injected message's kind
	Note   string // the CSS class of an outcome, an injected message's role, whether an assessment was shown
	Link   string // the anchor of where an assessment was shown
	After  int    // an assessment's call index (AfterCallIndex)
	Text   *text
	Model  *modelCall
	Group  *toolGroup
	Budget *recorder.BudgetRecord
	Notes  []recorder.ObserverNote
}

// ref is a link to an entry.
type ref struct{ ID, Label string }

// modelCall is a model request and its response.
type modelCall struct {
	Answered bool
	RespID   string
	Model    string
	Messages int
	Offered  int
	Withheld bool
	Again    []ref // injected messages the call before was given too
	Reply    *text
	Usage    string
	Latency  string
	Finish   string
}

// toolGroup is the tool calls run between two model calls, each in the
// lane of the calls it overlaps.
type toolGroup struct {
	Lanes  int
	Calls  []*toolCall
	Extras []*entry // records between the calls: budget charges, extensions
}

// maxLanes bounds the lanes drawn; more overlapping calls share the last.
const maxLanes = 6

// toolCall is a tool_started record and its tool_ended record.
type toolCall struct {
	ID         string
	EndID      string
	Name       string
	CallID     string
	Args       *text
	Result     *text
	Error      *text
	IsError    bool
	Unfinished bool
	Cut        string // what the recorder cut, as it recorded
	Duration   string
	Lane       int

	start, end uint64
}

// text is recorded text, cut to the page's length when it is longer.
type text struct {
	S    string
	More int // bytes folded away
}

// builder turns records into a view.
type builder struct {
	texts []*text
}

// build returns the page's view of records and the texts it shows, to be
// folded.
func build(records []recorder.Record, opts *Options) (*view, []*text) {
	b := &builder{}
	runs := group(records)
	roots := tree(runs)
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
	return v, b.texts
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
func group(records []recorder.Record) []*run {
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
	return runs
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
	t := timeline{b: b, r: r, open: map[string][]*toolCall{}}
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

// addPayload adds the model a model request or response names.
func (s modelSet) addPayload(p recorder.Payload) {
	switch p := p.(type) {
	case *recorder.ModelRequest:
		if p != nil {
			s.add(p.Model, "")
		}
	case *recorder.ModelResponse:
		if p != nil {
			s.add(p.Model, p.Provider)
		}
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

// timeline builds a run's entries, record by record.
type timeline struct {
	b       *builder
	r       *run
	entries []*entry
	group   *toolGroup             // the tool calls since the last model call, or nil
	open    map[string][]*toolCall // started and not yet ended, by call id or name
	model   *modelCall             // the request waiting for its response
	usage   recorder.RunUsage      // summed from the records, for a run without run_ended

	injected     []recorder.InjectedMessage // what the last model request said Lookout added
	injectedIDs  []string                   // the anchor of each one's first showing
	injectedSeen bool                       // some request says what Lookout added
	assessments  []*entry                   // assessment records not yet matched to a showing
}

func (t *timeline) push(e *entry) {
	t.closeGroup()
	t.entries = append(t.entries, e)
}

// minor adds an entry that belongs among the tool calls when it comes
// between them.
func (t *timeline) minor(e *entry) {
	if t.group != nil {
		t.group.Extras = append(t.group.Extras, e)
		return
	}
	t.entries = append(t.entries, e)
}

// add puts rec on the timeline.
func (t *timeline) add(rec *recorder.Record) {
	id := t.r.anchor(rec.Seq)
	if recorder.IsNilPayload(rec.Payload) {
		t.minor(&entry{Kind: kindAnchor, ID: id}) // built in code with nothing in it
		return
	}
	if !t.addRunRecord(id, rec.Payload) && !t.addCall(id, rec) {
		t.addOther(id, rec.Payload)
	}
}

// addRunRecord adds a record of the run itself: its start and end, a
// message or an assessment. It reports whether p was one.
func (t *timeline) addRunRecord(id string, p recorder.Payload) bool {
	switch p := p.(type) {
	case *recorder.RunStarted:
		t.r.started = p
		t.r.StartedID = id
	case *recorder.RunEnded:
		t.r.ended = p
		t.push(&entry{Kind: kindEnd, ID: id, Label: string(p.Outcome), Note: "outcome-" + string(p.Outcome)})
	case *recorder.Message:
		t.message(id, p)
	case *recorder.AssessmentRecord:
		e := &entry{Kind: kindAssessment, ID: id, Label: severity(p.Observers), Text: t.b.text(p.Markdown), Notes: p.Observers, After: p.AfterCallIndex}
		t.assessments = append(t.assessments, e)
		t.push(e)
	default:
		return false
	}
	return true
}

// message adds a message, as a reminder when Lookout injected it.
func (t *timeline) message(id string, p *recorder.Message) {
	e := &entry{Kind: kindMessage, ID: id, Text: t.b.text("")}
	if p.Message != nil {
		e.Label, e.Text.S = string(p.Message.Role), p.Message.Content
		if tag, ok := lookout.Injected(p.Message); ok {
			e.Kind, e.Label = kindReminder, tag
		}
	}
	t.push(e)
}

// addCall adds a record of a model or tool call. It reports whether rec
// was one.
func (t *timeline) addCall(id string, rec *recorder.Record) bool {
	switch p := rec.Payload.(type) {
	case *recorder.ModelRequest:
		t.request(id, p)
	case *recorder.ModelResponse:
		t.answer(id, p)
	case *recorder.ToolStarted:
		t.started(id, rec.Seq, p)
	case *recorder.ToolEnded:
		t.ended(id, rec.Seq, p)
	default:
		return false
	}
	return true
}

// request adds a model call, after the messages Lookout added to its
// input.
func (t *timeline) request(id string, p *recorder.ModelRequest) {
	m := &modelCall{Model: p.Model, Messages: p.MessageCount, Offered: len(p.Tools), Withheld: p.ToolsWithheld}
	m.Again = t.inject(id, p.Injected)
	t.model = m
	t.usage.ModelCalls++
	t.push(&entry{Kind: kindModel, ID: id, Model: m})
}

// answer completes the model call waiting for p, or adds one of its own
// for a response without its request.
func (t *timeline) answer(id string, p *recorder.ModelResponse) {
	m := t.model
	t.model = nil
	if m == nil {
		// A response without its request: the entry carries its anchor.
		m = &modelCall{}
		t.push(&entry{Kind: kindModel, ID: id, Model: m})
		id = ""
	}
	t.response(m, id, p)
}

// addOther adds a budget, extension or unknown record, or an anchor for
// any other.
func (t *timeline) addOther(id string, p recorder.Payload) {
	switch p := p.(type) {
	case *recorder.BudgetRecord:
		if p.Event == recorder.BudgetExceeded {
			t.push(&entry{Kind: kindBudget, ID: id, Budget: p})
			return
		}
		t.minor(&entry{Kind: kindAnchor, ID: id})
	case *recorder.Extension:
		t.minor(&entry{Kind: kindExtension, ID: id, Label: p.Name, Text: t.b.text(string(p.Body))})
	case *recorder.Unknown:
		t.minor(&entry{Kind: kindExtension, ID: id, Label: string(p.Name), Text: t.b.text(string(p.Body))})
	default:
		t.minor(&entry{Kind: kindAnchor, ID: id})
	}
}

// inject adds the messages Lookout added to the input of the model call
// with anchor id before the call, each as the model received it, and
// returns links to the first showings of those the call before was given
// too, which the call's line names instead of showing them again.
func (t *timeline) inject(id string, in []recorder.InjectedMessage) []ref {
	if in != nil {
		t.injectedSeen = true
	}
	last, lastIDs := t.injected, t.injectedIDs
	t.injected, t.injectedIDs = in, make([]string, len(in))
	var again []ref
	for i, m := range in {
		if j := slices.Index(last, m); j >= 0 {
			t.injectedIDs[i] = lastIDs[j]
			again = append(again, ref{ID: lastIDs[j], Label: injectedName(m.Kind)})
			continue
		}
		mid := id + "-in-" + strconv.Itoa(i)
		t.injectedIDs[i] = mid
		e := &entry{Kind: kindInjected, ID: mid, Label: m.Kind, Note: m.Role, Text: t.b.text(m.Content)}
		if m.Kind == recorder.InjectedAssessment {
			t.shown(mid, m)
		}
		t.push(e)
	}
	return again
}

// shown links the assessment records that injected message m, shown at
// anchor id, is the block of: by call index, or by text when the index is
// unknown. A record whose text is the one shown leaves its text to the
// showing.
func (t *timeline) shown(id string, m recorder.InjectedMessage) {
	t.assessments = slices.DeleteFunc(t.assessments, func(e *entry) bool {
		if e.Text.S != m.Content && (m.AfterCallIndex < 0 || e.After != m.AfterCallIndex) {
			return false
		}
		e.Note, e.Link = assessmentShown, id
		if e.Text.S == m.Content {
			e.Text.S, e.Text = "", nil
		}
		return true
	})
}

// injectedName is what the page calls an injected message of kind.
func injectedName(kind string) string {
	switch kind {
	case recorder.InjectedAssessment:
		return "assessment"
	case recorder.InjectedWrapUp:
		return "wrap-up reminder"
	}
	return kind
}

// unshown marks the assessment records that no model call was given, when
// the run's requests say what Lookout added to their inputs.
func (t *timeline) unshown() {
	if !t.injectedSeen {
		return
	}
	for _, e := range t.assessments {
		e.Note = assessmentUnshown
	}
}

// response fills m from p, the response with anchor id ("" when the
// entry itself carries it).
func (t *timeline) response(m *modelCall, id string, p *recorder.ModelResponse) {
	m.Answered, m.RespID = true, id
	m.Finish = unusualFinish(p.FinishReason)
	if p.Latency > 0 {
		m.Latency = duration(p.Latency)
	}
	if m.Model == "" {
		m.Model = p.Model
	}
	m.Usage = "usage not reported"
	if p.UsageReported {
		m.Usage = observer.FormatCount(p.Usage.TotalTokens) + " tokens"
		addTokens(&t.usage, p.Usage)
	}
	t.usage.CostUSD += max(p.CostUSD, 0)
	if p.Message != nil && p.Message.Content != "" {
		m.Reply = t.b.text(p.Message.Content)
	}
	if p.Error != "" {
		m.Reply = t.b.text("failed: " + p.Error)
	}
}

// unusualFinish is reason, or "" for the usual reasons, which show in
// what follows.
func unusualFinish(reason string) string {
	if reason == "tool_calls" || reason == "stop" {
		return ""
	}
	return reason
}

// addTokens adds the tokens of one model call to a run's usage.
func addTokens(sum *recorder.RunUsage, u recorder.TokenUsage) {
	sum.PromptTokens += u.PromptTokens
	sum.CompletionTokens += u.CompletionTokens
	sum.TotalTokens += u.TotalTokens
	sum.CachedTokens += u.CachedTokens
	sum.CacheWriteTokens += u.CacheWriteTokens
	sum.ReasoningTokens += u.ReasoningTokens
}

func (t *timeline) started(id string, seq uint64, p *recorder.ToolStarted) {
	if t.group == nil {
		t.closeGroup()
		t.group = &toolGroup{}
		t.entries = append(t.entries, &entry{Kind: kindTools, ID: id, Group: t.group})
	}
	c := &toolCall{ID: id, Name: p.Name, CallID: p.CallID, Args: t.b.text(p.Arguments), Unfinished: true, start: seq}
	if p.ArgumentsTruncated {
		c.Cut = "arguments cut by the recorder at " + strconv.Itoa(len(p.Arguments)) + " of " + strconv.Itoa(p.ArgumentsBytes) + " bytes"
	}
	t.group.Calls = append(t.group.Calls, c)
	key := callKey(p.CallID, p.Name)
	t.open[key] = append(t.open[key], c)
	t.usage.ToolCalls++
}

// callKey pairs a tool's start and end: by call id, or by name when the
// model gave none.
func callKey(callID, name string) string {
	if callID != "" {
		return "id:" + callID
	}
	return "name:" + name
}

func (t *timeline) ended(id string, seq uint64, p *recorder.ToolEnded) {
	c := t.take(id, seq, p)
	c.EndID, c.end, c.Unfinished = id, seq, false
	c.IsError = p.IsError || p.Error != ""
	c.Result = t.b.text(p.Result)
	// A result that holds the error is what the model read ("Error: …"):
	// it is shown once, as the error.
	if p.Error != "" && !strings.Contains(p.Result, p.Error) {
		c.Error = t.b.text(p.Error)
	}
	if p.Duration > 0 {
		c.Duration = duration(p.Duration)
	}
	if p.Truncated {
		c.Cut = "result cut by the recorder at " + strconv.Itoa(len(p.Result)) + " of " + strconv.Itoa(p.ResultBytes) + " bytes"
	}
}

// take returns the open call that p ends, or, for an end without its
// start, a call of its own to show it on.
func (t *timeline) take(id string, seq uint64, p *recorder.ToolEnded) *toolCall {
	key := callKey(p.CallID, p.Name)
	if q := t.open[key]; len(q) > 0 {
		t.open[key] = q[1:]
		return q[0]
	}
	t.started(id, seq, &recorder.ToolStarted{CallID: p.CallID, Name: p.Name})
	q := t.open[key]
	c := q[len(q)-1]
	t.open[key] = q[:len(q)-1]
	t.usage.ToolCalls--
	c.Args = nil
	return c
}

// closeGroup ends the current group of tool calls and puts each call in
// the first lane free when it started.
func (t *timeline) closeGroup() {
	g := t.group
	if g == nil {
		return
	}
	t.group = nil
	var ends []uint64 // the seq at which each lane is free again
	for _, c := range g.Calls {
		end := c.end
		if c.Unfinished {
			end = ^uint64(0)
		}
		lane := slices.IndexFunc(ends, func(e uint64) bool { return e < c.start })
		if lane < 0 {
			lane = len(ends)
			ends = append(ends, end)
		} else {
			ends[lane] = end
		}
		c.Lane = min(lane, maxLanes-1)
	}
	g.Lanes = min(len(ends), maxLanes)
}

// severity is the highest severity among an assessment's observers.
func severity(notes []recorder.ObserverNote) string {
	best, rank := "", -1
	for _, n := range notes {
		s, err := observer.ParseSeverity(n.Severity)
		if err == nil && int(s) > rank {
			best, rank = s.String(), int(s)
		}
	}
	return best
}

func usageOf(u recorder.RunUsage) usage {
	return usage{
		Tokens:     observer.FormatCount(u.TotalTokens),
		Prompt:     observer.FormatCount(u.PromptTokens),
		Completion: observer.FormatCount(u.CompletionTokens),
		Cached:     countOrEmpty(u.CachedTokens),
		CacheWrite: countOrEmpty(u.CacheWriteTokens),
		Reasoning:  countOrEmpty(u.ReasoningTokens),
		Cost:       cost(u.CostUSD),
		ModelCalls: u.ModelCalls,
		ToolCalls:  u.ToolCalls,
	}
}

// countOrEmpty formats n, or returns "" for none.
func countOrEmpty(n int64) string {
	if n <= 0 {
		return ""
	}
	return observer.FormatCount(n)
}

// cost formats a cost in US dollars: cents above a dollar, four decimals
// below, and "" for none.
func cost(usd float64) string {
	switch {
	case !(usd > 0): // zero, negative or NaN: nothing recorded
		return ""
	case usd < 0.0001:
		return "< $0.0001"
	case usd < 1:
		return "$" + strconv.FormatFloat(usd, 'f', 4, 64)
	}
	return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
}

// modelSet is the models a run used, each with the providers named for
// it.
type modelSet map[string]map[string]bool

func (s modelSet) add(model, provider string) {
	if model == "" {
		return
	}
	p := s[model]
	if p == nil {
		p = map[string]bool{}
		s[model] = p
	}
	if provider != "" {
		p[provider] = true
	}
}

func (s modelSet) addTo(to modelSet) {
	for m, ps := range s {
		to.add(m, "")
		for p := range ps {
			to.add(m, p)
		}
	}
}

// String lists the models in order, each with its providers: "gpt-4o
// (OpenAI), m2".
func (s modelSet) String() string {
	parts := make([]string, 0, len(s))
	for _, m := range slices.Sorted(maps.Keys(s)) {
		if len(s[m]) > 0 {
			m += " (" + joinSet(s[m]) + ")"
		}
		parts = append(parts, m)
	}
	return strings.Join(parts, ", ")
}

// summarize is the header over all runs: root outcomes, every run's own
// usage added up, and the root runs' durations.
func summarize(roots, runs []*run) summary {
	s := summary{Runs: len(runs)}
	var total recorder.RunUsage
	models := modelSet{}
	for _, r := range runs {
		u := r.usage
		total.PromptTokens += u.PromptTokens
		total.CompletionTokens += u.CompletionTokens
		total.TotalTokens += u.TotalTokens
		total.CachedTokens += u.CachedTokens
		total.CacheWriteTokens += u.CacheWriteTokens
		total.ReasoningTokens += u.ReasoningTokens
		total.CostUSD += u.CostUSD
		total.ModelCalls += u.ModelCalls
		total.ToolCalls += u.ToolCalls
		r.models.addTo(models)
	}
	s.Usage = usageOf(total)
	s.Models = models.String()
	var d time.Duration
	outcomes := map[string]int{}
	for _, r := range roots {
		d += r.last.Sub(r.first)
		outcomes[r.Outcome]++
	}
	s.Duration = duration(d)
	if len(roots) == 1 {
		s.Outcome, s.Class, s.StopReason = roots[0].Outcome, roots[0].Class, roots[0].StopReason
		return s
	}
	var parts []string
	for _, o := range slices.Sorted(maps.Keys(outcomes)) {
		parts = append(parts, strconv.Itoa(outcomes[o])+" "+o)
	}
	s.Outcome, s.Class = strings.Join(parts, ", "), "mixed"
	return s
}

func joinSet(set map[string]bool) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

// limits describes a run's limits, or "none".
func limits(l recorder.RunLimits) string {
	parts := timeLimit(l)
	for _, n := range []struct {
		v    int64
		name string
	}{{l.MaxTokens, "tokens"}, {l.MaxModelCalls, "model calls"}, {l.MaxToolCalls, "tool calls"}} {
		if n.v > 0 {
			parts = append(parts, observer.FormatCount(n.v)+" "+n.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// timeLimit describes a run's timeout, or else its deadline, as the first
// of its limits' parts.
func timeLimit(l recorder.RunLimits) []string {
	if l.Timeout > 0 {
		return []string{duration(l.Timeout) + " timeout"}
	}
	if !l.Deadline.IsZero() {
		return []string{"deadline " + l.Deadline.UTC().Format(time.RFC3339)}
	}
	return nil
}

// duration rounds d to what a reader compares: microseconds under a
// millisecond, tenths of a millisecond under a second, milliseconds above.
func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		d = d.Round(time.Microsecond)
	case d < time.Second:
		d = d.Round(100 * time.Microsecond)
	default:
		d = d.Round(time.Millisecond)
	}
	return d.String()
}
