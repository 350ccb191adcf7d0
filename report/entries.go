package report

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
)

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

	seq       uint64    // of the record being added
	at        time.Time // when it was recorded
	modelSpan int       // the waiting request's span, or -1
	end       string    // the anchor of the run's end

	// emit is given each entry once it is whole; entries holds those not
	// given yet. The entries of the open group of tool calls and of the
	// model call waiting for its response are not whole yet, nor is an
	// assessment before the model calls after it say whether it was
	// shown, unless an earlier pass said so.
	emit       func(*entry)
	groupEntry *entry
	ending     *entry // a closed group some calls of which may still end
	modelEntry *entry
	names      map[string]bool // the models the run's calls name
}

func newText(s string) *text { return &text{S: s} }

// flush gives emit the entries that are whole, and with final set every
// entry. Entries are given in order when an earlier pass resolved the
// assessments, as the page is then being written; otherwise, as the page
// is only being measured, in any order.
func (t *timeline) flush(final bool) {
	keep := t.entries[:0]
	for _, e := range t.entries {
		if !final && (t.pending(e) || len(keep) > 0 && t.b.resolved) {
			keep = append(keep, e)
			continue
		}
		t.give(e)
	}
	clear(t.entries[len(keep):])
	t.entries = keep
}

// pending reports whether e may still change.
func (t *timeline) pending(e *entry) bool {
	return e == t.groupEntry || e == t.ending || e == t.modelEntry || !t.b.resolved && e.Kind == kindAssessment && e.Note == "" && e.Text != nil
}

// give gives emit an entry that is whole, leaving out the model of each
// model call when the run's calls name one model, which its header names,
// and noting how an assessment was shown, for the pass that writes it.
func (t *timeline) give(e *entry) {
	if e.Kind == kindTools {
		e.Group.layOut()
	}
	if e.Kind == kindModel {
		if e.Model.Model != "" {
			t.names[e.Model.Model] = true
		}
		if t.b.resolved && t.r.oneModel {
			e.Model.Model = ""
		}
	}
	if !t.b.resolved && e.Kind == kindAssessment && (e.Note != "" || e.Text == nil) {
		if t.r.assessed == nil {
			t.r.assessed = map[uint64]assessed{}
		}
		t.r.assessed[e.Seq] = assessed{note: e.Note, link: e.Link, same: e.Text == nil}
	}
	t.emit(e)
}

func (t *timeline) push(e *entry) {
	e.Seq = t.seq
	t.closeGroup()
	t.entries = append(t.entries, e)
}

// minor adds an entry that belongs among the tool calls when it comes
// between them.
func (t *timeline) minor(e *entry) {
	e.Seq = t.seq
	if t.group != nil {
		t.group.Extras = append(t.group.Extras, e)
		return
	}
	t.entries = append(t.entries, e)
}

// add puts rec on the timeline.
func (t *timeline) add(rec *recorder.Record) {
	id := t.r.anchor(rec.Seq)
	t.seq, t.at = rec.Seq, rec.RecordedAt
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
		t.end = id
		t.push(&entry{Kind: kindEnd, ID: id, Label: string(p.Outcome), Note: "outcome-" + string(p.Outcome)})
	case *recorder.Message:
		t.message(id, p)
	case *recorder.AssessmentRecord:
		e := &entry{Kind: kindAssessment, ID: id, Label: severity(p.Observers), Text: newText(p.Markdown), Notes: p.Observers, After: p.AfterCallIndex}
		if a, ok := t.r.assessed[t.seq]; ok {
			e.Note, e.Link = a.note, a.link
			if a.same {
				e.Text = nil
			}
		} else if !t.b.resolved {
			t.assessments = append(t.assessments, e)
		}
		t.push(e)
	default:
		return false
	}
	return true
}

// message adds a message, as a reminder when Lookout injected it.
func (t *timeline) message(id string, p *recorder.Message) {
	e := &entry{Kind: kindMessage, ID: id, Text: newText("")}
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
	t.modelSpan = t.span(spanModel, p.Model)
	t.usage.ModelCalls++
	t.modelEntry = &entry{Kind: kindModel, ID: id, Model: m}
	t.push(t.modelEntry)
	t.ending = nil // a model call comes after the calls before it end
}

// answer completes the model call waiting for p, or adds one of its own
// for a response without its request.
func (t *timeline) answer(id string, p *recorder.ModelResponse) {
	m, span := t.model, t.modelSpan
	t.model, t.modelSpan, t.modelEntry = nil, -1, nil
	link := id // the response's line, or the entry that carries its anchor
	if m == nil {
		// A response without its request: the entry carries its anchor.
		m = &modelCall{}
		t.push(&entry{Kind: kindModel, ID: id, Model: m})
		span = t.span(spanModel, p.Model)
		t.r.spans[span].start = t.at.Add(-p.Latency)
		id = ""
	}
	t.r.spans[span].end, t.r.spans[span].failed = t.at, p.Error != ""
	t.response(m, id, link, p)
}

// addOther adds a budget, extension or unknown record, or an anchor for
// any other.
func (t *timeline) addOther(id string, p recorder.Payload) {
	switch p := p.(type) {
	case *recorder.BudgetRecord:
		if p.Event == recorder.BudgetExceeded {
			t.push(&entry{Kind: kindBudget, ID: id, Budget: p})
			t.b.problem(t.r, problem{Kind: problemBudget, Label: "budget exceeded", Text: budgetText(p), Link: id})
			return
		}
		t.minor(&entry{Kind: kindAnchor, ID: id})
	case *recorder.Extension:
		t.minor(&entry{Kind: kindExtension, ID: id, Label: p.Name, Text: newText(string(p.Body))})
	case *recorder.Unknown:
		t.minor(&entry{Kind: kindExtension, ID: id, Label: string(p.Name), Text: newText(string(p.Body))})
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
		e := &entry{Kind: kindInjected, ID: mid, Label: m.Kind, Note: m.Role, Text: newText(m.Content)}
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
// entry itself carries it), which a failure's problem links to.
func (t *timeline) response(m *modelCall, id, link string, p *recorder.ModelResponse) {
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
		m.Reply = newText(p.Message.Content)
	}
	if p.Error != "" {
		m.Reply = newText("failed: " + p.Error)
		m.Failed = true
		t.b.problem(t.r, problem{Kind: problemModel, Label: "model error", Text: p.Error, Link: link})
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
		t.groupEntry = &entry{Seq: seq, Kind: kindTools, ID: id, Group: t.group}
		t.entries = append(t.entries, t.groupEntry)
	}
	c := &toolCall{ID: id, Name: p.Name, CallID: p.CallID, Args: newText(p.Arguments), Unfinished: true, start: seq, Control: p.Control}
	c.span = t.span(spanTool, p.Name)
	if t.r.tools == nil {
		t.r.tools = map[string]bool{}
	}
	t.r.tools[p.Name] = true
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
	c.Result = newText(p.Result)
	sp := &t.r.spans[c.span]
	sp.end, sp.failed = t.at, c.IsError
	if p.Duration > 0 && (t.at.IsZero() || sp.start.Equal(sp.end)) {
		sp.start = sp.end.Add(-p.Duration)
	}
	if c.IsError {
		t.b.toolProblem(t.r, c, p)
	}
	// A result that holds the error is what the model read ("Error: …"):
	// it is shown once, as the error.
	if p.Error != "" && !strings.Contains(p.Result, p.Error) {
		c.Error = newText(p.Error)
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
	q := t.open[key]
	if len(q) == 0 {
		t.started(id, seq, &recorder.ToolStarted{CallID: p.CallID, Name: p.Name})
		q = t.open[key] // the call just started, alone
		t.usage.ToolCalls--
		q[0].Args = nil
	}
	c := q[0]
	// A call ended is let go: a run of a million records holds only the
	// calls still open.
	if q[0] = nil; len(q) == 1 {
		delete(t.open, key)
	} else {
		t.open[key] = q[1:]
	}
	return c
}

// closeGroup ends the current group of tool calls. A call in it may
// still end: an assessment of one parallel call is recorded while the
// others run.
func (t *timeline) closeGroup() {
	if t.group != nil && slices.ContainsFunc(t.group.Calls, func(c *toolCall) bool { return c.Unfinished }) {
		t.ending = t.groupEntry
	}
	t.group, t.groupEntry = nil, nil
}

// layOut puts each call in the first lane free when it started.
func (g *toolGroup) layOut() {
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
