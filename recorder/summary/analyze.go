package summary

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// Analyze returns the report of records, which may hold many runs in any
// interleaving. It is Analyzer.Add over every record, then
// Analyzer.Report.
func Analyze(records []recorder.Record) Report {
	var a Analyzer
	for i := range records {
		a.Add(records[i])
	}
	return a.Report()
}

// Analyzer builds a Report one record at a time, so a trajectory can be
// analyzed while it is read. It keeps counters per run and, per run, only
// the tool calls started and not yet ended; no record is retained.
//
// The zero Analyzer is ready to use. An Analyzer is not safe for
// concurrent use.
type Analyzer struct {
	runs  map[string]*runState
	order []*runState
}

type runState struct {
	run       Run
	first     time.Time
	last      time.Time
	startedAt time.Time
	endedAt   time.Time
	open      openCalls
	tools     map[string]*Tool
	observers map[string]*ObserverAssessments
	efficacy  map[string]*Efficacy
}

// callKey pairs tool_started with tool_ended: by call id, else by index.
type callKey struct {
	id    string
	index int
}

func keyOf(id string, index int) callKey {
	if id != "" {
		return callKey{id: id, index: -1}
	}
	return callKey{index: index}
}

// openCalls holds the tool calls started and not yet ended. A call is
// known by its id, else by its call index. A start with neither is
// paired with the next end of the same tool that has no id: the Eino
// adapters give a call its index when it completes, so a call without an
// id has index 0 on its tool_started record.
//
// Some models give parallel calls the same id, so a key can hold several
// open calls; an end closes one of the same tool when there is one.
type openCalls struct {
	keyed     map[callKey][]string // key to the tool names of its open calls
	unindexed map[string]int       // tool name to starts without id or index
}

func (o *openCalls) start(id string, index int, name string) {
	if id == "" && index == 0 {
		if o.unindexed == nil {
			o.unindexed = map[string]int{}
		}
		o.unindexed[name]++
		return
	}
	if o.keyed == nil {
		o.keyed = map[callKey][]string{}
	}
	key := keyOf(id, index)
	o.keyed[key] = append(o.keyed[key], name)
}

// end closes the call and reports whether it had been started.
func (o *openCalls) end(id string, index int, name string) bool {
	key := keyOf(id, index)
	if names := o.keyed[key]; len(names) > 0 {
		i := max(slices.Index(names, name), 0)
		names = slices.Delete(names, i, i+1)
		if len(names) == 0 {
			delete(o.keyed, key)
		} else {
			o.keyed[key] = names
		}
		return true
	}
	if id == "" && o.unindexed[name] > 0 {
		o.unindexed[name]--
		return true
	}
	return false
}

// byTool counts the calls still open, by tool name.
func (o *openCalls) byTool() map[string]int {
	n := maps.Clone(o.unindexed)
	if n == nil {
		n = map[string]int{}
	}
	for _, names := range o.keyed {
		for _, name := range names {
			n[name]++
		}
	}
	return n
}

// Add counts one record. A record without a payload (nil, or a nil
// pointer of a payload type) counts as a record of its run and nothing
// more.
func (a *Analyzer) Add(rec recorder.Record) {
	st := a.state(rec)
	st.run.Stats.Records++
	st.seen(rec.RecordedAt)
	if recorder.IsNilPayload(rec.Payload) {
		return
	}
	st.payload(rec)
}

// seen widens the span of the run's record times to take in at. A record
// without a time leaves it as it is.
func (st *runState) seen(at time.Time) {
	if at.IsZero() {
		return
	}
	if st.first.IsZero() || at.Before(st.first) {
		st.first = at
	}
	if at.After(st.last) {
		st.last = at
	}
}

// payload counts what the payload of rec, which is not nil, says about
// the run.
func (st *runState) payload(rec recorder.Record) {
	s := &st.run.Stats
	switch p := rec.Payload.(type) {
	case *recorder.RunStarted:
		st.run.AgentName = p.AgentName
		st.run.ConversationID, st.run.Turn = p.ConversationID, p.Turn
		st.run.Limits = p.Limits
		st.startedAt = rec.RecordedAt
	case *recorder.RunEnded:
		st.runEnded(p, rec.RecordedAt)
	case *recorder.Message:
		if isUserMessage(&rec) {
			s.UserMessages++
		}
	case *recorder.ModelResponse:
		s.modelResponse(p)
	case *recorder.ToolStarted:
		st.toolStarted(p)
	case *recorder.ToolEnded:
		st.toolEnded(rec.Seq, p)
	default:
		st.aside(rec)
	}
}

// aside counts the records that are not part of the conversation itself:
// assessments, budgets, extensions and kinds this version does not know.
func (st *runState) aside(rec recorder.Record) {
	switch p := rec.Payload.(type) {
	case *recorder.AssessmentRecord:
		st.assessment(p)
	case *recorder.BudgetRecord:
		st.budget(rec.Seq, p)
	case *recorder.Extension:
		st.extension(p)
	case *recorder.Unknown:
		st.run.Stats.UnknownKinds = increment(st.run.Stats.UnknownKinds, string(p.Name))
	}
}

// toolStarted counts a tool call, and opens it until its end is seen.
func (st *runState) toolStarted(p *recorder.ToolStarted) {
	st.open.start(p.CallID, p.CallIndex, p.Name)
	t := st.tool(p.Name)
	t.Calls++
	if p.MCPServer != "" {
		t.MCPServer, t.MCPTool = p.MCPServer, p.MCPTool
	}
	if p.Control {
		t.Control = true
		st.run.Stats.ControlCalls++
		return
	}
	st.run.Stats.ToolCalls++
}

func (st *runState) runEnded(p *recorder.RunEnded, at time.Time) {
	st.run.Outcome = string(p.Outcome)
	st.run.StopReason = p.StopReason
	st.run.Error = p.Error
	usage := p.Usage
	st.run.Usage = &usage
	st.endedAt = at
}

// modelResponse counts a model call and the tokens it reported, or that
// it reported none.
func (s *Stats) modelResponse(p *recorder.ModelResponse) {
	s.ModelCalls++
	if p.UsageReported {
		s.Tokens.add(tokensOf(p.Usage))
	} else {
		s.ModelCallsWithoutUsage++
	}
}

// budget counts a budget record; only exceeded budgets are reported.
func (st *runState) budget(seq uint64, p *recorder.BudgetRecord) {
	if p.Event != recorder.BudgetExceeded {
		return
	}
	s := &st.run.Stats
	s.BudgetExceeded = increment(s.BudgetExceeded, p.Resource)
	st.run.Exceeded = append(st.run.Exceeded, Exceeded{Seq: seq, Resource: p.Resource, Used: p.Used, Limit: p.Limit})
}

func (st *runState) extension(p *recorder.Extension) {
	s := &st.run.Stats
	s.Extensions = increment(s.Extensions, p.Name)
	if p.Name == EfficacyExtension {
		st.efficacyEvent(p.Body)
	}
}

func (a *Analyzer) state(rec recorder.Record) *runState {
	if st, ok := a.runs[rec.RunID]; ok {
		return st
	}
	if a.runs == nil {
		a.runs = map[string]*runState{}
	}
	st := &runState{run: Run{RunID: rec.RunID, ParentRunID: rec.ParentRunID, Depth: rec.Depth}}
	a.runs[rec.RunID] = st
	a.order = append(a.order, st)
	return st
}

func tokensOf(u recorder.TokenUsage) Tokens {
	return Tokens{
		Prompt:     u.PromptTokens,
		Completion: u.CompletionTokens,
		Total:      u.TotalTokens,
		Cached:     u.CachedTokens,
		Reasoning:  u.ReasoningTokens,
	}
}

func (st *runState) tool(name string) *Tool {
	if t, ok := st.tools[name]; ok {
		return t
	}
	if st.tools == nil {
		st.tools = map[string]*Tool{}
	}
	t := &Tool{Name: name}
	st.tools[name] = t
	return t
}

func (st *runState) toolEnded(seq uint64, p *recorder.ToolEnded) {
	s := &st.run.Stats
	if !st.open.end(p.CallID, p.CallIndex, p.Name) {
		// A result with no announced call still is a call.
		st.tool(p.Name).Calls++
		s.ToolCalls++
	}
	t := st.tool(p.Name)
	t.Duration += p.Duration
	if !p.IsError && p.Error == "" {
		return
	}
	t.Errors++
	s.ToolErrors++
	if len(st.run.Failures) < MaxFailures {
		st.run.Failures = append(st.run.Failures, Failure{
			Seq: seq, Tool: p.Name, CallID: p.CallID, Error: cut(cmp.Or(p.Error, p.Result), maxFailureText),
		})
	}
}

func (st *runState) assessment(p *recorder.AssessmentRecord) {
	a := &st.run.Assessments
	a.Count++
	for _, note := range p.Observers {
		sev := cmp.Or(note.Severity, UnspecifiedSeverity)
		a.BySeverity = increment(a.BySeverity, sev)
		o, ok := st.observers[note.Name]
		if !ok {
			if st.observers == nil {
				st.observers = map[string]*ObserverAssessments{}
			}
			o = &ObserverAssessments{Observer: note.Name, BySeverity: map[string]int{}}
			st.observers[note.Name] = o
		}
		o.Count++
		o.BySeverity[sev]++
	}
}

// efficacyBody is the part of observer.EfficacyEvent the analysis reads.
type efficacyBody struct {
	Observer string `json:"observer"`
	Reaction string `json:"reaction"`
	Counts   struct {
		Shown int64 `json:"shown"`
	} `json:"counts"`
}

func (st *runState) efficacyEvent(body json.RawMessage) {
	var ev efficacyBody
	if json.Unmarshal(body, &ev) != nil || ev.Observer == "" {
		st.run.MalformedEfficacy++
		return
	}
	e := st.efficacy[ev.Observer]
	if e == nil {
		e = &Efficacy{Observer: ev.Observer}
	}
	n := reactionCount(e, ev.Reaction)
	if n == nil {
		st.run.MalformedEfficacy++
		return
	}
	*n++
	if st.efficacy == nil {
		st.efficacy = map[string]*Efficacy{}
	}
	st.efficacy[ev.Observer] = e
	e.Reactions++
	e.Shown = max(e.Shown, ev.Counts.Shown)
}

// reactionCount returns the counter of e for a reaction, or nil for a
// reaction this version does not know, which makes the event malformed.
func reactionCount(e *Efficacy, reaction string) *int {
	switch reaction {
	case "changed_course":
		return &e.ChangedCourse
	case "wrapped_up":
		return &e.WrappedUp
	case "carried_on":
		return &e.CarriedOn
	}
	return nil
}

// Report returns the report of the records added so far. The Analyzer
// can go on adding records afterwards; the report shares no memory with
// it.
func (a *Analyzer) Report() Report {
	rep := Report{Runs: make([]Run, 0, len(a.order))}
	index := make(map[string]int, len(a.order))
	for _, st := range a.order {
		index[st.run.RunID] = len(rep.Runs)
		rep.Runs = append(rep.Runs, st.snapshot())
	}
	parents := parentsOf(rep.Runs, index)
	breakCycles(parents)
	t := &rep.Total
	t.Runs = len(rep.Runs)
	for i := range rep.Runs {
		r := &rep.Runs[i]
		if parent := parents[i]; parent >= 0 {
			p := &rep.Runs[parent]
			p.Children = append(p.Children, r.RunID)
			t.ChildRuns++
		} else {
			rep.Roots = append(rep.Roots, r.RunID)
			t.RootRuns++
			t.Duration += r.Duration
		}
		t.Outcomes = increment(t.Outcomes, r.Outcome)
		if r.StopReason != "" {
			t.StopReasons = increment(t.StopReasons, r.StopReason)
		}
		t.merge(&r.Stats)
	}
	t.finish()
	rep.Conversations = conversations(rep.Runs, parents)
	return rep
}
