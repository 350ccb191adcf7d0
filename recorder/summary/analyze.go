package summary

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// EfficacyExtension is the extension record name under which feedback
// efficacy events are written: one per observer whenever the agent's
// reaction to an assessment is known. The body is the JSON of
// observer.EfficacyEvent:
//
//	{"observer":"stall","severity":"warning","assessment_call_index":7,
//	 "reaction":"changed_course","call_index":8,
//	 "counts":{"shown":2,"changed_course":1,"wrapped_up":0,"carried_on":1}}
//
// The Eino adapters write counts for the run alone, not for the whole
// session. Analyze counts the reactions per observer. A body that does
// not have this shape is counted in Stats.MalformedEfficacy.
const EfficacyExtension = "lookout.efficacy"

// UnspecifiedSeverity stands in for an observer note recorded without a
// severity.
const UnspecifiedSeverity = "unspecified"

// Unfinished is the outcome reported for a run without a run_ended record:
// still running when the file was read, or cut off by a crash.
const Unfinished = "unfinished"

// MaxFailures is how many failed tool calls a Run lists in Failures; the
// count in Stats.ToolErrors stays exact.
const MaxFailures = 10

// maxFailureText cuts the error text kept for a listed failure.
const maxFailureText = 200

// Tokens counts model tokens as the provider reported them.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently. The zero value is no tokens.
type Tokens struct {
	Prompt     int64 `json:"prompt"`
	Completion int64 `json:"completion"`
	Total      int64 `json:"total"`
	Cached     int64 `json:"cached,omitempty"`
	Reasoning  int64 `json:"reasoning,omitempty"`
}

func (t *Tokens) add(u Tokens) {
	t.Prompt += u.Prompt
	t.Completion += u.Completion
	t.Total += u.Total
	t.Cached += u.Cached
	t.Reasoning += u.Reasoning
}

// Tool is one tool's use. A call is one tool_started record, or a
// tool_ended record that no tool_started announced; the two are paired by
// call id (or call index when the id is empty).
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
//
// MCPServer names the MCP server that served the tool, when its calls
// say so (tool_started.mcp_server), and MCPTool its name there.
type Tool struct {
	Name       string        `json:"name"`
	MCPServer  string        `json:"mcp_server,omitempty"`
	MCPTool    string        `json:"mcp_tool,omitempty"`
	Calls      int           `json:"calls"`
	Errors     int           `json:"errors"`
	Unfinished int           `json:"unfinished,omitempty"` // started and never ended
	Duration   time.Duration `json:"duration_ns"`          // summed over ended calls
}

// ErrorRate returns Errors / Calls, or 0 without calls.
func (t Tool) ErrorRate() float64 { return rate(t.Errors, t.Calls) }

// MCPServer is the use of the tools one MCP server served: their calls,
// errors and time, summed, and their names, sorted.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type MCPServer struct {
	Name     string        `json:"name"`
	Tools    []string      `json:"tools"`
	Calls    int           `json:"calls"`
	Errors   int           `json:"errors"`
	Duration time.Duration `json:"duration_ns"`
}

// ObserverAssessments counts one observer's parts in assessments by
// severity.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type ObserverAssessments struct {
	Observer   string         `json:"observer"`
	Count      int            `json:"count"`
	BySeverity map[string]int `json:"by_severity"`
}

// Assessments counts assessment records and the observer notes in them.
// Severities are as recorded; a note without one counts as
// UnspecifiedSeverity.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently. The zero value is no assessments.
type Assessments struct {
	Count      int                   `json:"count"`                 // assessment records
	BySeverity map[string]int        `json:"by_severity,omitempty"` // observer notes by severity
	Observers  []ObserverAssessments `json:"observers,omitempty"`   // sorted by observer name
}

// Efficacy counts one observer's feedback efficacy events (see
// EfficacyExtension): how the agent reacted after being shown its
// assessments.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Efficacy struct {
	Observer      string `json:"observer"`
	Reactions     int    `json:"reactions"`
	ChangedCourse int    `json:"changed_course"`
	WrappedUp     int    `json:"wrapped_up"`
	CarriedOn     int    `json:"carried_on"`
	// Shown is how many of the observer's assessments the model was shown,
	// from the counts in the events: the largest in a run, summed over
	// runs. Lookout's adapters record the counts of each run alone, so
	// runs that shared a session are not counted twice. It can exceed
	// Reactions when a run ended before the agent reacted.
	Shown int64 `json:"shown"`
}

// Followed returns how many reactions followed the feedback: the agent
// changed course or wrapped up.
func (e Efficacy) Followed() int { return e.ChangedCourse + e.WrappedUp }

// FollowRate returns Followed / Reactions, or 0 without reactions.
func (e Efficacy) FollowRate() float64 { return rate(e.Followed(), e.Reactions) }

// Stats are the counters kept for one run and, summed, for all runs.
// Maps are keyed by name and encode in key order; slices are sorted by
// name.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently. The zero value is an empty trajectory.
type Stats struct {
	Records int `json:"records"`
	// Duration is, for a run, run_started to run_ended, or first to last
	// record when either is missing; in Totals, the sum over root runs
	// (child runs overlap their parents).
	Duration               time.Duration  `json:"duration_ns"`
	UserMessages           int            `json:"user_messages"`
	ModelCalls             int            `json:"model_calls"`               // model_response records
	ModelCallsWithoutUsage int            `json:"model_calls_without_usage"` // responses whose provider reported no usage
	Tokens                 Tokens         `json:"tokens"`                    // summed over responses that reported usage
	ToolCalls              int            `json:"tool_calls"`
	ToolErrors             int            `json:"tool_errors"`
	ErrorRate              float64        `json:"error_rate"` // ToolErrors / ToolCalls, 0 without calls
	Tools                  []Tool         `json:"tools,omitempty"`
	MCPServers             []MCPServer    `json:"mcp_servers,omitempty"` // Tools grouped by the MCP server that served them, by name
	Assessments            Assessments    `json:"assessments"`
	BudgetExceeded         map[string]int `json:"budget_exceeded,omitempty"` // budget "exceeded" events by resource
	Efficacy               []Efficacy     `json:"efficacy,omitempty"`
	MalformedEfficacy      int            `json:"malformed_efficacy,omitempty"` // efficacy extensions whose body did not parse
	Extensions             map[string]int `json:"extensions,omitempty"`         // extension records by name, efficacy included
	UnknownKinds           map[string]int `json:"unknown_kinds,omitempty"`      // records of kinds this version does not know
}

// Exceeded is a budget limit a run went past, from a budget record with
// event "exceeded".
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Exceeded struct {
	Seq      uint64 `json:"seq"`
	Resource string `json:"resource"`
	Used     int64  `json:"used"`
	Limit    int64  `json:"limit"`
}

// Failure is a failed tool call, with its error text cut to 200 bytes.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Failure struct {
	Seq    uint64 `json:"seq"` // of the tool_ended record
	Tool   string `json:"tool"`
	CallID string `json:"call_id,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Run is the analysis of one run.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Run struct {
	RunID       string   `json:"run_id"`
	ParentRunID string   `json:"parent_run_id,omitempty"`
	Depth       int      `json:"depth"`
	AgentName   string   `json:"agent_name,omitempty"`
	Children    []string `json:"children,omitempty"` // runs in the records whose parent this is, in order of appearance

	// ConversationID and Turn place a root run in its conversation, as
	// its run_started recorded them (runs of one session, or the turns
	// of a simulated conversation).
	ConversationID string `json:"conversation_id,omitempty"`
	Turn           int    `json:"turn,omitempty"`

	// Started and Ended are the times of run_started and run_ended, or
	// of the first and last record when either is missing.
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`

	Limits     recorder.RunLimits `json:"limits"`
	Outcome    string             `json:"outcome"` // from run_ended, or Unfinished
	StopReason string             `json:"stop_reason,omitempty"`
	Error      string             `json:"error,omitempty"`
	Usage      *recorder.RunUsage `json:"usage,omitempty"` // totals as run_ended reported them; nil without run_ended
	Exceeded   []Exceeded         `json:"exceeded,omitempty"`
	Failures   []Failure          `json:"failures,omitempty"` // the first MaxFailures failed tool calls

	Stats
}

// Totals are the counters of every run together.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Totals struct {
	Runs        int            `json:"runs"`
	RootRuns    int            `json:"root_runs"`
	ChildRuns   int            `json:"child_runs"`
	Outcomes    map[string]int `json:"outcomes,omitempty"` // by outcome, Unfinished included
	StopReasons map[string]int `json:"stop_reasons,omitempty"`

	Stats
}

// Report is the analysis of a set of records: each run, and all of them
// together. Runs are in order of first appearance; everything else is
// sorted by name, so the same records always give the same report.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently. The zero Report describes no records.
type Report struct {
	// Roots are the runs whose parent is not in the records, and of runs
	// whose parents loop back to them (a damaged file), the first.
	Roots []string `json:"roots,omitempty"`
	// Conversations are the conversations whose runs the records hold,
	// each with its root runs in turn order, in order of first
	// appearance.
	Conversations []Conversation `json:"conversations,omitempty"`
	Runs          []Run          `json:"runs"`
	Total         Totals         `json:"total"`
}

// Conversation is one conversation of a Report: its id, and its root
// runs (its turns) ordered by turn, then by appearance.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Conversation struct {
	ID    string   `json:"id"`
	Turns []string `json:"turns"`
}

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
		s.message(p)
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

// message counts a user message; the other messages are counted where
// they come from, as model responses and tool results.
func (s *Stats) message(p *recorder.Message) {
	if p.Message != nil && p.Message.Role == schema.User {
		s.UserMessages++
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

// snapshot copies the run's counters into a Run that shares no memory with
// the state.
func (st *runState) snapshot() Run {
	r := st.run
	r.Outcome = cmp.Or(r.Outcome, Unfinished)
	r.Started, r.Ended = st.span()
	if r.Ended.After(r.Started) {
		r.Duration = r.Ended.Sub(r.Started)
	}
	if r.Usage != nil {
		u := *r.Usage
		r.Usage = &u
	}
	r.Exceeded = slices.Clone(r.Exceeded)
	r.Failures = slices.Clone(r.Failures)
	r.BudgetExceeded = maps.Clone(r.BudgetExceeded)
	r.Extensions = maps.Clone(r.Extensions)
	r.UnknownKinds = maps.Clone(r.UnknownKinds)
	r.Assessments.BySeverity = maps.Clone(r.Assessments.BySeverity)

	unfinished := st.open.byTool()
	r.Tools = make([]Tool, 0, len(st.tools))
	for _, t := range st.tools {
		c := *t
		c.Unfinished = unfinished[t.Name]
		r.Tools = append(r.Tools, c)
	}
	r.Assessments.Observers = make([]ObserverAssessments, 0, len(st.observers))
	for _, o := range st.observers {
		c := *o
		c.BySeverity = maps.Clone(o.BySeverity)
		r.Assessments.Observers = append(r.Assessments.Observers, c)
	}
	r.Efficacy = make([]Efficacy, 0, len(st.efficacy))
	for _, e := range st.efficacy {
		r.Efficacy = append(r.Efficacy, *e)
	}
	r.finish()
	return r
}

// span returns when the run started and ended: as its RunStarted and
// RunEnded records say, or else at its first and last record.
func (st *runState) span() (started, ended time.Time) {
	started, ended = st.first, st.last
	if !st.startedAt.IsZero() {
		started = st.startedAt
	}
	if !st.endedAt.IsZero() {
		ended = st.endedAt
	}
	return started, ended
}

// merge adds o's counters to s. Run-level fields (Duration) are left to
// the caller.
func (s *Stats) merge(o *Stats) {
	s.Records += o.Records
	s.UserMessages += o.UserMessages
	s.ModelCalls += o.ModelCalls
	s.ModelCallsWithoutUsage += o.ModelCallsWithoutUsage
	s.Tokens.add(o.Tokens)
	s.ToolCalls += o.ToolCalls
	s.ToolErrors += o.ToolErrors
	for _, t := range o.Tools {
		x := findOrAdd(&s.Tools, Tool{Name: t.Name}, func(x Tool) bool { return x.Name == t.Name })
		x.MCPServer, x.MCPTool = cmp.Or(x.MCPServer, t.MCPServer), cmp.Or(x.MCPTool, t.MCPTool)
		x.Calls += t.Calls
		x.Errors += t.Errors
		x.Unfinished += t.Unfinished
		x.Duration += t.Duration
	}
	s.Assessments.Count += o.Assessments.Count
	s.Assessments.BySeverity = addCounts(s.Assessments.BySeverity, o.Assessments.BySeverity)
	for _, oa := range o.Assessments.Observers {
		x := findOrAdd(&s.Assessments.Observers, ObserverAssessments{Observer: oa.Observer},
			func(x ObserverAssessments) bool { return x.Observer == oa.Observer })
		x.Count += oa.Count
		x.BySeverity = addCounts(x.BySeverity, oa.BySeverity)
	}
	s.BudgetExceeded = addCounts(s.BudgetExceeded, o.BudgetExceeded)
	for _, e := range o.Efficacy {
		x := findOrAdd(&s.Efficacy, Efficacy{Observer: e.Observer}, func(x Efficacy) bool { return x.Observer == e.Observer })
		x.Reactions += e.Reactions
		x.ChangedCourse += e.ChangedCourse
		x.WrappedUp += e.WrappedUp
		x.CarriedOn += e.CarriedOn
		x.Shown += e.Shown
	}
	s.MalformedEfficacy += o.MalformedEfficacy
	s.Extensions = addCounts(s.Extensions, o.Extensions)
	s.UnknownKinds = addCounts(s.UnknownKinds, o.UnknownKinds)
}

// findOrAdd returns the first element of *list for which same is true,
// after appending fresh to the list when there is none.
func findOrAdd[T any](list *[]T, fresh T, same func(T) bool) *T {
	i := slices.IndexFunc(*list, same)
	if i < 0 {
		*list = append(*list, fresh)
		i = len(*list) - 1
	}
	return &(*list)[i]
}

// finish sorts the named lists and computes the error rate.
func (s *Stats) finish() {
	s.ErrorRate = rate(s.ToolErrors, s.ToolCalls)
	slices.SortFunc(s.Tools, func(a, b Tool) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Assessments.Observers, func(a, b ObserverAssessments) int { return cmp.Compare(a.Observer, b.Observer) })
	slices.SortFunc(s.Efficacy, func(a, b Efficacy) int { return cmp.Compare(a.Observer, b.Observer) })
	if len(s.Tools) == 0 {
		s.Tools = nil
	}
	s.MCPServers = serversOf(s.Tools)
	if len(s.Assessments.Observers) == 0 {
		s.Assessments.Observers = nil
	}
	if len(s.Efficacy) == 0 {
		s.Efficacy = nil
	}
}

func increment(m map[string]int, key string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[key]++
	return m
}

func addCounts(dst, src map[string]int) map[string]int {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]int, len(src))
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

func rate(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

// ellipsis marks text that was cut.
const ellipsis = "…"

// cut returns s cut to at most n bytes at a UTF-8 boundary, with ellipsis
// appended when it was cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return runePrefix(s, n) + ellipsis
}

// runePrefix returns the longest start of s of at most n bytes that ends
// between runes.
func runePrefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// itoa is strconv.Itoa, short for the renderers.
func itoa(n int) string { return strconv.Itoa(n) }

// serversOf groups the tools that an MCP server served by server, sorted
// by name; nil when none was.
func serversOf(tools []Tool) []MCPServer {
	var out []MCPServer
	for _, t := range tools {
		if t.MCPServer == "" {
			continue
		}
		i := slices.IndexFunc(out, func(s MCPServer) bool { return s.Name == t.MCPServer })
		if i < 0 {
			out = append(out, MCPServer{Name: t.MCPServer})
			i = len(out) - 1
		}
		s := &out[i]
		s.Tools = append(s.Tools, t.Name)
		s.Calls += t.Calls
		s.Errors += t.Errors
		s.Duration += t.Duration
	}
	slices.SortFunc(out, func(a, b MCPServer) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
