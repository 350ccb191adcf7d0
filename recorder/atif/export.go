package atif

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
	"github.com/lookout-go/lookout/recorder"
)

// ParentToolCallKey is the run_started metadata key under which a child
// run names the parent's tool call that started it. FromRecords uses it
// to hang the child's trajectory off that call; ToRecords sets it.
const ParentToolCallKey = "parent_tool_call_id"

// ExtraKey is the key under which exports keep what Lookout knows beyond
// the ATIF fields, in the extra object of a trajectory, step, tool call or
// observation result. ToRecords reads it back.
const ExtraKey = "lookout"

// timestampLayout writes UTC with microseconds, which every Python
// version's datetime.fromisoformat reads once "Z" is replaced.
const timestampLayout = "2006-01-02T15:04:05.000000Z07:00"

// Options tune FromRecords. A nil *Options and the zero value mean the
// defaults. FromRecords only reads them, so one value may be shared by
// concurrent exports if its Redactor is safe for concurrent use.
type Options struct {
	// RunID picks the root run. Empty means the only run without a parent
	// in the records; with several such runs FromRecords fails with
	// ErrAmbiguousRoot.
	RunID string

	// AgentName, AgentVersion and ModelName are written as agent.name,
	// agent.version and agent.model_name, over what the records say.
	// Without them, the name is the root run's agent name ("agent" when it
	// has none), the version the one its run_started recorded, or else the
	// version of the program's main module from its build info ("devel"
	// when it has none), and the model the one its run_started recorded,
	// or else the model of its first model response.
	AgentName    string
	AgentVersion string
	ModelName    string

	// Redactor, if set, rewrites every free-text field on its way into
	// the trajectory: messages, reasoning, tool arguments and results,
	// errors, assessments, and tool descriptions and parameter schemas.
	// The recorder already redacts before its
	// sink; this is for records that were written without it.
	Redactor recorder.Redactor

	// Conversation picks the conversation FromConversation and
	// ConversationChain export. Empty means the only one in the records.
	Conversation string

	// OmitAssessments leaves assessment records out. By default each one
	// becomes a system step.
	OmitAssessments bool
}

// RootRuns returns the ids of the runs in records that have no parent in
// records, in order of first appearance.
func RootRuns(records []recorder.Record) []string {
	runs := groupRuns(records)
	var roots []string
	for _, r := range runs.order {
		if r.isRoot(runs) {
			roots = append(roots, r.id)
		}
	}
	return roots
}

// FromRecords builds the ATIF trajectory of one root run from recorded
// records, which may hold several runs in any interleaving.
//
// The root run becomes the trajectory, with session_id set to its run id.
// Every run below it (agents used as tools, transfers) becomes an entry
// of its parent's subagent_trajectories, nested as RFC 0001 has it, with
// trajectory_id set to its run id and its own steps numbered from 1. The
// step that delegated carries a subagent_trajectory_ref to it, on the
// first match of:
//
//  1. the tool call named in the child's run_started metadata under
//     ParentToolCallKey, the latest with that id to start before the
//     child when the parent reused the id (when the key is present but
//     names no call of the parent, or is empty, rule 2 is skipped);
//  2. a call of the parent that had started and not ended when the child
//     started, preferring one whose tool name is the child's agent name,
//     then the latest started;
//  3. the last agent step that began at or before the child started, as a
//     result with no source_call_id;
//  4. a new system step at the child's start time.
//
// User and system messages become user and system steps; each model
// response becomes one agent step, and the results of its tool calls
// become that step's observation results, linked by source_call_id, so
// parallel calls share one step. A call id names a call of the latest
// step that made one with that id, since models that number calls per
// turn reuse ids; a call without an id is matched by its tool's name.
// Assessments become system steps. Records of unknown kinds, budgets and
// model requests add no steps; the tool definitions that model requests
// carry become agent.tool_definitions of their run's trajectory (every
// tool once, in the order first offered, with the last definition
// recorded for its name). Each trajectory's final_metrics count its own
// steps and the tokens spent by its steps and by the subagents below it.
// Times that are equal are ordered as the records are given.
//
// Images and audio a record holds inline become files named
// media/<sha256>.<ext> relative to the document (see MediaFiles);
// WriteFile writes them. What records imported by ToRecords kept of the
// original document (Extras under recorder.ExtraATIF) is put back, so the
// document comes back whole.
//
// It fails with ErrNoRootRun when there is nothing to export and with
// ErrAmbiguousRoot when several root runs are present and Options.RunID
// does not pick one.
func FromRecords(records []recorder.Record, opts *Options) (*Trajectory, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	versionSet := o.AgentVersion != ""
	runs := groupRuns(records)
	root, err := runs.root(o.RunID)
	if err != nil {
		return nil, err
	}
	x := &exporter{opts: o, seen: map[string]bool{}, versionSet: versionSet}
	t := x.trajectory(root)
	t.SchemaVersion = Version
	if t.SessionID == "" {
		t.SessionID = root.id
	}
	t.media = x.media
	return t, nil
}

// run is one run's records, in seq order, with what FromRecords learns
// from its run_started record.
type run struct {
	id, parent string
	records    []placed
	started    moment
	agentName  string
	metadata   map[string]string
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
		r.metadata = p.Metadata
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

type exporter struct {
	opts       Options
	versionSet bool              // Options.AgentVersion was given, so it wins over an imported version
	seen       map[string]bool   // runs already exported, so a cycle cannot loop
	media      map[string][]byte // media files to write next to the document, by path
}

// pending is a step under construction. results lines up with the step's
// tool calls so that parallel results come out in call order whatever
// order they finished in.
type pending struct {
	step    Step
	at      moment
	results []*ObservationResult
	others  []ObservationResult

	timestamp   string // the timestamp an imported step had, when not the one at gives
	template    []any  // an imported step's observation results; see observationTemplate
	hasTemplate bool
}

// callSpan is where a tool call sits in the run: its step and position
// there, the order it was made in, and when it started and ended.
type callSpan struct {
	step          *pending
	index, order  int
	id, name      string
	start, end    moment
	started, done bool
}

// callFor returns the call a tool_started or tool_ended record with the
// tool name is about, among the calls made with its call id (spans, in
// the order made): the first in the latest step that made such a call for
// which has reports false. Models that number their calls per turn reuse
// ids across steps, and ATIF allows one id twice in a step; a call made
// without an id is matched by the tool's name too.
func callFor(spans []*callSpan, name string, has func(*callSpan) bool) *callSpan {
	if len(spans) == 0 {
		return nil
	}
	last := spans[len(spans)-1].step
	for _, c := range spans {
		if c.step == last && !has(c) && c.matches(name) {
			return c
		}
	}
	return nil
}

// matches reports whether a record with the tool name can be about call
// c: any name will do for a call made with an id.
func (c *callSpan) matches(name string) bool {
	return c.id != "" || c.name == name
}

func (x *exporter) redact(s string) string {
	if x.opts.Redactor == nil || s == "" {
		return s
	}
	return x.opts.Redactor.Redact(s)
}

// trajectory exports one run and, depth first, the runs below it.
func (x *exporter) trajectory(r *run) *Trajectory {
	x.seen[r.id] = true
	rt := &runTrace{calls: map[string][]*callSpan{}, seen: injectionsOf(r.records)}
	for _, rec := range r.records {
		x.record(rt, rec)
	}
	subs := x.children(r, rt)
	if len(rt.steps) == 0 {
		// ATIF needs a step; a run that recorded none gets an empty one.
		rt.steps = append(rt.steps, carrierStep(moment{}))
	}
	t := &Trajectory{
		Agent:                x.agent(r, rt),
		Steps:                x.finish(rt.steps),
		SubagentTrajectories: subs,
	}
	delegated := make([]*FinalMetrics, len(subs))
	for i := range subs {
		delegated[i] = subs[i].FinalMetrics
	}
	t.FinalMetrics = totals(t.Steps, delegated)
	info := map[string]any{"run_id": r.id}
	if rt.ended != nil {
		x.runEnded(info, rt.ended)
	}
	t.Extra = map[string]any{ExtraKey: info}
	x.applyTrajectoryResidue(t, r.extras)
	return t
}

// runTrace is what a run's records make while they are read in order:
// its steps, the tool calls its model responses made (by call id, in the
// order made), the model of the latest request and of the first, the tools
// it offered and how it ended.
type runTrace struct {
	steps []*pending
	calls map[string][]*callSpan
	made  int
	model string
	first string
	// answered is the model of the first model response.
	answered string
	ended    *recorder.RunEnded
	tools    toolSet
	// seen is what the run's model calls were injected, and injected
	// what the latest was.
	seen     injections
	injected []recorder.InjectedMessage
}

// record adds one of the run's records to rt.
func (x *exporter) record(rt *runTrace, rec placed) {
	now := moment{rec.RecordedAt, rec.pos}
	switch p := rec.Payload.(type) {
	case *recorder.ModelRequest:
		rt.request(p)
		rt.steps = append(rt.steps, x.injectedSteps(rt, p, now)...)
	case *recorder.Message:
		x.message(rt, p, now)
	case *recorder.ModelResponse:
		x.modelResponse(rt, p, now)
	case *recorder.ToolStarted:
		rt.toolStarted(p, now)
	case *recorder.ToolEnded:
		rt.toolEnded(p, x.toolResult(p), now, resultOfStep(p.Extra))
	case *recorder.AssessmentRecord:
		x.assessment(rt, p, now)
	case *recorder.RunEnded:
		rt.ended = p
	}
}

// message adds a message record to rt: as a result of the step before it
// when the import said it was one, or else as a step of its own.
func (x *exporter) message(rt *runTrace, p *recorder.Message, now moment) {
	switch {
	case p.Message == nil:
	case resultOfStep(p.Extra) && len(rt.steps) > 0:
		content := x.messageContent(p.Message)
		last := rt.steps[len(rt.steps)-1]
		last.others = append(last.others, ObservationResult{SourceCallID: p.Message.ToolCallID, Content: &content})
	default:
		step := x.messageStep(p.Message, now)
		x.applyStepResidueOf(step, p.Extra)
		rt.steps = append(rt.steps, step)
	}
}

// modelResponse adds the agent step of a model response record to rt.
func (x *exporter) modelResponse(rt *runTrace, p *recorder.ModelResponse, now moment) {
	if p.Error != "" {
		return // a failed attempt said nothing; the request goes to the next
	}
	step := x.agentStep(p, cmp.Or(p.Model, rt.model), now)
	x.applyStepResidueOf(step, p.Extra)
	rt.response(step, now)
	if rt.answered == "" {
		rt.answered = cmp.Or(p.Model, rt.model)
	}
}

// assessment adds the step of an assessment record to rt, unless
// assessments are left out or a model call was already shown it.
func (x *exporter) assessment(rt *runTrace, p *recorder.AssessmentRecord, now moment) {
	if !x.opts.OmitAssessments && !rt.seen.shown(p.AfterCallIndex) {
		rt.steps = append(rt.steps, x.unshownAssessment(rt, x.assessmentStep(p, now)))
	}
}

// applyStepResidueOf puts back on step what the extras of the record it
// started with kept of an imported step, if anything.
func (x *exporter) applyStepResidueOf(step *pending, extras recorder.Extras) {
	if r := residueOf(extras, stepKey); r != nil {
		x.applyStepResidue(step, r)
	}
}

func (rt *runTrace) request(p *recorder.ModelRequest) {
	rt.model = p.Model
	if rt.first == "" {
		rt.first = p.Model
	}
	rt.tools.add(p.ToolDefinitions)
}

// response adds the agent step of a model response, and a span for each
// tool call it made, starting when the response was recorded until the
// call's own start is seen.
func (rt *runTrace) response(step *pending, now moment) {
	rt.steps = append(rt.steps, step)
	for i, c := range step.step.ToolCalls {
		rt.calls[c.ID] = append(rt.calls[c.ID], &callSpan{step: step, index: i, order: rt.made, id: c.ID, name: c.FunctionName, start: now})
		rt.made++
	}
}

func (rt *runTrace) toolStarted(p *recorder.ToolStarted, now moment) {
	if c := callFor(rt.calls[p.CallID], p.Name, func(c *callSpan) bool { return c.started }); c != nil {
		c.start, c.started = now, true
		markMCP(c, p)
	}
}

// toolEnded puts a tool's result on the step that made its call. A result
// no call made is kept on a step of its own, with the call id and tool
// name it was recorded with.
func (rt *runTrace) toolEnded(p *recorder.ToolEnded, result *ObservationResult, now moment, ofStep bool) {
	if !ofStep {
		if c := callFor(rt.calls[p.CallID], p.Name, func(c *callSpan) bool { return c.done }); c != nil {
			c.end, c.done = now, true
			result.SourceCallID = p.CallID
			c.step.results[c.index] = result
			return
		}
	}
	if ofStep && len(rt.steps) > 0 {
		// An imported result that belongs to the step before it.
		last := rt.steps[len(rt.steps)-1]
		last.others = append(last.others, *result)
		return
	}
	info, _ := result.Extra[ExtraKey].(map[string]any)
	if info == nil {
		info = map[string]any{}
	}
	info["call_id"], info["tool_name"] = p.CallID, p.Name
	result.Extra = map[string]any{ExtraKey: info}
	rt.steps = append(rt.steps, carrierStep(now, *result))
}

// children exports the runs below r not exported yet, links each to the
// step of rt that delegated to it, and returns their trajectories, for
// r's subagent_trajectories: each child's own children sit in its own
// subagent_trajectories, as the RFC nests them.
func (x *exporter) children(r *run, rt *runTrace) []Trajectory {
	var subs []Trajectory
	for _, child := range r.children {
		if x.seen[child.id] {
			continue
		}
		rt.steps = x.link(rt.steps, rt.calls, child)
		sub := x.trajectory(child)
		sub.SchemaVersion = Version
		sub.TrajectoryID = child.id
		subs = append(subs, *sub)
	}
	return subs
}

// toolSet gathers the tool definitions a run recorded: every name once,
// in the order first seen, with the last definition recorded for it.
type toolSet struct {
	defs  []recorder.ToolDefinition
	index map[string]int
}

func (s *toolSet) add(defs []recorder.ToolDefinition) {
	for _, d := range defs {
		if i, ok := s.index[d.Name]; ok {
			s.defs[i] = d
			continue
		}
		if s.index == nil {
			s.index = map[string]int{}
		}
		s.index[d.Name] = len(s.defs)
		s.defs = append(s.defs, d)
	}
}

// toolDefinitions writes recorded definitions in the OpenAI shape ATIF
// uses: {"type":"function","function":{"name","description","parameters"}},
// without a description or parameters the tool did not have.
func (x *exporter) toolDefinitions(defs []recorder.ToolDefinition) []map[string]any {
	if len(defs) == 0 {
		return nil
	}
	out := make([]map[string]any, len(defs))
	for i, d := range defs {
		fn := map[string]any{"name": d.Name}
		if d.Description != "" {
			fn["description"] = x.redact(d.Description)
		}
		if len(d.Parameters) > 0 {
			fn["parameters"] = x.parameters(d.Parameters)
		}
		out[i] = map[string]any{"type": "function", "function": fn}
	}
	return out
}

// parameters is a recorded parameter schema, redacted, as a JSON value.
// Text that is not JSON (or stops being JSON once redacted) is kept as a
// JSON string, so the document still encodes.
func (x *exporter) parameters(raw json.RawMessage) any {
	text := x.redact(string(raw))
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(text)); err != nil {
		return text
	}
	return json.RawMessage(buf.Bytes())
}

// link attaches a child run to the step that delegated to it, by the
// rules in the FromRecords documentation.
func (x *exporter) link(steps []*pending, calls map[string][]*callSpan, child *run) []*pending {
	ref := SubagentTrajectoryRef{TrajectoryID: child.id}
	if c := parentCall(calls, child); c != nil {
		attachToCall(c, ref)
		return steps
	}
	if i := lastAgentStepBefore(steps, child.started); i >= 0 {
		steps[i].others = append(steps[i].others, ObservationResult{SubagentTrajectoryRef: []SubagentTrajectoryRef{ref}})
		return steps
	}
	carrier := carrierStep(child.started, ObservationResult{SubagentTrajectoryRef: []SubagentTrajectoryRef{ref}})
	at := sort.Search(len(steps), func(i int) bool { return child.started.before(steps[i].at) })
	return slices.Insert(steps, at, carrier)
}

// parentCall returns the call that delegated to child: the one its
// metadata names, or, when it names none, the best call running when it
// started. It returns nil when there is no such call.
func parentCall(calls map[string][]*callSpan, child *run) *callSpan {
	callID, named := child.metadata[ParentToolCallKey]
	if !named {
		return openCall(calls, child)
	}
	if spans := calls[callID]; callID != "" && len(spans) > 0 {
		return calledBy(spans, child.started)
	}
	return nil
}

// openCall returns the best parent, by better, among the calls that were
// running when child started, or nil when none was.
func openCall(calls map[string][]*callSpan, child *run) *callSpan {
	var best *callSpan
	for _, spans := range calls {
		for _, c := range spans {
			if c.openAt(child.started) && (best == nil || better(c, best, child.agentName)) {
				best = c
			}
		}
	}
	return best
}

// openAt reports whether the call had started before at and had not
// ended by then.
func (c *callSpan) openAt(at moment) bool {
	return c.started && c.start.before(at) && (!c.done || at.before(c.end))
}

// lastAgentStepBefore returns the index of the last agent step recorded
// before at, or -1.
func lastAgentStepBefore(steps []*pending, at moment) int {
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].step.Source == SourceAgent && steps[i].at.before(at) {
			return i
		}
	}
	return -1
}

// calledBy picks, among the calls made with the id a child names (spans),
// the one that started it: the latest to start before the child did, or
// the first call when none did.
func calledBy(spans []*callSpan, child moment) *callSpan {
	var best *callSpan
	for _, c := range spans {
		if c.start.before(child) && (best == nil || best.start.before(c.start)) {
			best = c
		}
	}
	if best == nil {
		return spans[0]
	}
	return best
}

// better reports whether call a is a better parent for a child than b.
func better(a, b *callSpan, agent string) bool {
	if (a.name == agent) != (b.name == agent) {
		return a.name == agent
	}
	if a.start.before(b.start) != b.start.before(a.start) {
		return b.start.before(a.start)
	}
	return a.order > b.order
}

func attachToCall(c *callSpan, ref SubagentTrajectoryRef) {
	p := c.step
	res := p.results[c.index]
	if res == nil {
		res = &ObservationResult{SourceCallID: p.step.ToolCalls[c.index].ID}
		p.results[c.index] = res
	}
	res.SubagentTrajectoryRef = append(res.SubagentTrajectoryRef, ref)
}

func (x *exporter) messageStep(m *schema.Message, at moment) *pending {
	step := Step{Source: SourceUser, Message: x.messageContent(m)}
	switch m.Role {
	case schema.System:
		step.Source = SourceSystem
	case schema.Assistant:
		step.Source = SourceAgent
		step.ReasoningContent = x.redact(m.ReasoningContent)
		for _, c := range m.ToolCalls {
			step.ToolCalls = append(step.ToolCalls, x.toolCall(c))
		}
		step.Extra = map[string]any{ExtraKey: map[string]any{"role": string(schema.Assistant)}}
	case schema.Tool:
		step.Source = SourceSystem
		step.Extra = map[string]any{ExtraKey: map[string]any{"role": string(schema.Tool), "tool_call_id": m.ToolCallID}}
	}
	return &pending{step: step, at: at}
}

// messageContent is a message's parts when it has multimodal user input,
// or else its text: the content, or the text of its output parts when the
// content is empty. Media ATIF cannot point at (inline data, video,
// files) is replaced by a short text part saying what was left out.
func (x *exporter) messageContent(m *schema.Message) Content {
	input := msgtext.InputParts(m)
	if len(input) == 0 {
		return Text(x.redact(msgtext.Of(m)))
	}
	parts := make([]ContentPart, 0, len(input))
	for _, in := range input {
		parts = append(parts, x.part(in))
	}
	return Parts(parts...)
}

// part turns one input part of a message into ATIF content: text, images
// and audio that ATIF can point at, and for anything else a text that
// says what was left out.
func (x *exporter) part(in schema.MessageInputPart) ContentPart {
	switch in.Type {
	case schema.ChatMessagePartTypeText:
		return ContentPart{Type: PartText, Text: x.redact(in.Text)}
	case schema.ChatMessagePartTypeImageURL:
		if src := x.imageSource(in); src != nil {
			return ContentPart{Type: PartImage, Source: src}
		}
	case schema.ChatMessagePartTypeAudioURL:
		if src := x.audioSource(in); src != nil {
			return ContentPart{Type: PartAudio, Source: src}
		}
	}
	return ContentPart{Type: PartText, Text: fmt.Sprintf("[%s omitted]", in.Type)}
}

// imageSource is where ATIF can point at the image of an image part, or
// nil when the part has no image of a type ATIF allows or it cannot be
// kept.
func (x *exporter) imageSource(in schema.MessageInputPart) *MediaSource {
	if in.Image == nil {
		return nil
	}
	return x.acceptedMedia(in.Image.MessagePartCommon, in.Extra, acceptedImageType)
}

// audioSource is where ATIF can point at the audio of an audio part, or
// nil when the part has no audio of a type ATIF allows or it cannot be
// kept.
func (x *exporter) audioSource(in schema.MessageInputPart) *MediaSource {
	if in.Audio == nil {
		return nil
	}
	return x.acceptedMedia(in.Audio.MessagePartCommon, in.Extra, acceptedAudioType)
}

// acceptedMedia is a part's media c as an ATIF source, under the media
// type accept gives for its MIME type, or nil when accept gives none or
// the media cannot be kept.
func (x *exporter) acceptedMedia(c schema.MessagePartCommon, extra map[string]any, accept func(mime string) string) *MediaSource {
	mime := accept(partMIME(c))
	if mime == "" {
		return nil
	}
	return x.inputMedia(c, extra, mime)
}

// partMIME is a media part's MIME type: the one it names, or else the one
// its data: URL names.
func partMIME(c schema.MessagePartCommon) string {
	if c.MIMEType != "" || c.URL == nil || !strings.HasPrefix(*c.URL, "data:") {
		return c.MIMEType
	}
	meta, _, _ := strings.Cut(strings.TrimPrefix(*c.URL, "data:"), ",")
	mime, _, _ := strings.Cut(meta, ";")
	return mime
}

func (x *exporter) agentStep(p *recorder.ModelResponse, model string, at moment) *pending {
	one := 1
	step := Step{Source: SourceAgent, ModelName: model, LLMCallCount: &one}
	if m := p.Message; m != nil {
		step.Message = Text(x.redact(msgtext.Of(m)))
		step.ReasoningContent = x.redact(m.ReasoningContent)
		for _, c := range m.ToolCalls {
			step.ToolCalls = append(step.ToolCalls, x.toolCall(c))
		}
	}
	if p.UsageReported {
		step.Metrics = responseMetrics(p)
	}
	step.Extra = responseExtra(p)
	return &pending{step: step, at: at, results: make([]*ObservationResult, len(step.ToolCalls))}
}

// responseExtra is the extra of a model response's step: its finish
// reason and latency under Lookout's key, or nil when it has neither.
func responseExtra(p *recorder.ModelResponse) map[string]any {
	extra := map[string]any{}
	if p.FinishReason != "" {
		extra["finish_reason"] = p.FinishReason
	}
	if p.Latency != 0 {
		extra["latency_ms"] = millis(p.Latency)
	}
	if len(extra) == 0 {
		return nil
	}
	return map[string]any{ExtraKey: extra}
}

// toolCall converts a model's tool call. Arguments that are not a JSON
// object are kept as text in extra.lookout.raw_arguments, with {} as the
// arguments.
func (x *exporter) toolCall(c schema.ToolCall) ToolCall {
	args := x.redact(c.Function.Arguments)
	call := ToolCall{ID: c.ID, FunctionName: c.Function.Name}
	if obj, ok := jsonObject(args); ok {
		call.Arguments = obj
	} else {
		call.Arguments = json.RawMessage("{}")
		call.Extra = map[string]any{ExtraKey: map[string]any{"raw_arguments": args}}
	}
	return call
}

// jsonObject returns s compacted when it is one JSON object.
func jsonObject(s string) (json.RawMessage, bool) {
	trimmed := strings.TrimSpace(s)
	if !strings.HasPrefix(trimmed, "{") {
		return nil, false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(trimmed)); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

func metrics(u recorder.TokenUsage) *Metrics {
	prompt, completion := int(u.PromptTokens), int(u.CompletionTokens)
	m := &Metrics{PromptTokens: &prompt, CompletionTokens: &completion}
	if u.CachedTokens > 0 {
		cached := int(u.CachedTokens)
		m.CachedTokens = &cached
	}
	if u.ReasoningTokens > 0 {
		m.Extra = map[string]any{"reasoning_tokens": u.ReasoningTokens}
	}
	return m
}

// toolResult is a tool_ended record as an observation result. Content is
// always set, even when empty: it is how ToRecords tells an ended call from
// one that only delegated.
func (x *exporter) toolResult(p *recorder.ToolEnded) *ObservationResult {
	text := p.Result
	if text == "" && p.IsError {
		text = p.Error
	}
	content := Text(x.redact(text))
	if p.Parts != nil {
		content = x.resultContent(p.Parts)
	}
	result := &ObservationResult{Content: &content}
	if info := x.toolInfo(p); len(info) > 0 {
		result.Extra = map[string]any{ExtraKey: info}
	}
	return result
}

// toolInfo is what a tool result says beyond its text, for the Lookout
// extra: whether and how it failed, whether its output was cut, and how
// long the call took. It is empty for a success of unknown duration.
func (x *exporter) toolInfo(p *recorder.ToolEnded) map[string]any {
	info := map[string]any{}
	if p.IsError {
		info["is_error"] = true
	}
	if p.Error != "" {
		info["error"] = x.redact(p.Error)
	}
	if p.Truncated {
		info["truncated"] = true
		info["result_bytes"] = p.ResultBytes
	}
	if p.Duration != 0 {
		info["duration_ms"] = millis(p.Duration)
	}
	return info
}

func (x *exporter) assessmentStep(p *recorder.AssessmentRecord, at moment) *pending {
	info := map[string]any{"after_call_index": p.AfterCallIndex}
	if len(p.Observers) > 0 {
		observers := make([]any, len(p.Observers))
		for i, o := range p.Observers {
			note := map[string]any{"name": o.Name}
			if o.Severity != "" {
				note["severity"] = o.Severity
			}
			observers[i] = note
		}
		info["observers"] = observers
	}
	return &pending{
		step: Step{Source: SourceSystem, Message: Text(x.redact(p.Markdown)), Extra: map[string]any{ExtraKey: map[string]any{"assessment": info}}},
		at:   at,
	}
}

// carrierStep is a system step that exists only to carry an observation
// result: a tool result or a subagent whose call could not be found. A
// run with no steps at all gets one with no result, since ATIF needs a
// step.
func carrierStep(at moment, results ...ObservationResult) *pending {
	return &pending{
		step: Step{Source: SourceSystem, Extra: map[string]any{ExtraKey: map[string]any{"carrier": true}}},
		at:   at, others: results,
	}
}

func (x *exporter) runEnded(info map[string]any, p *recorder.RunEnded) {
	info["outcome"] = string(p.Outcome)
	if p.Error != "" {
		info["error"] = x.redact(p.Error)
	}
	if p.StopReason != "" {
		info["stop_reason"] = p.StopReason
	}
}

// finish numbers the steps, stamps their times and assembles their
// observations.
func (x *exporter) finish(steps []*pending) []Step {
	out := make([]Step, len(steps))
	for i, p := range steps {
		out[i] = x.finishStep(p, i+1)
	}
	return out
}

// finishStep is step p numbered id, with its time stamped and its
// observation assembled.
func (x *exporter) finishStep(p *pending, id int) Step {
	s := p.step
	s.StepID = id
	if !p.at.at.IsZero() {
		s.Timestamp = p.at.at.UTC().Format(timestampLayout)
	}
	if p.timestamp != "" {
		s.Timestamp = p.timestamp
	}
	results := x.observation(p)
	if len(results) > 0 || (p.hasTemplate && p.template != nil) {
		s.Observation = &Observation{Results: results}
	}
	return s
}

// totals are a trajectory's final metrics: total_steps counts its own
// steps, and the token totals add up its steps' metrics and the final
// metrics of the subagents it delegated to (delegated), which count their
// own subagents in turn, as Harbor's trajectories do.
func totals(steps []Step, delegated []*FinalMetrics) *FinalMetrics {
	n := len(steps)
	fm := &FinalMetrics{TotalSteps: &n}
	var sum tokenSum
	for _, s := range steps {
		sum.addStep(s.Metrics)
	}
	for _, sub := range delegated {
		sum.addSubagent(sub)
	}
	sum.setTotals(fm)
	return fm
}

// setTotals sets on fm the totals that t knows.
func (t *tokenSum) setTotals(fm *FinalMetrics) {
	if t.known {
		fm.TotalPromptTokens, fm.TotalCompletionTokens = &t.prompt, &t.completion
	}
	if t.cachedKnown {
		fm.TotalCachedTokens = &t.cached
	}
	if t.costKnown {
		fm.TotalCostUSD = &t.cost
	}
	if t.reasoning > 0 {
		fm.Extra = map[string]any{"total_reasoning_tokens": t.reasoning}
	}
}

// tokenSum adds up token counts. It remembers whether any prompt or
// completion count, and any cached count, was known at all: a total of
// nothing known is left out, not written as 0.
type tokenSum struct {
	prompt, completion, cached    int
	known, cachedKnown, costKnown bool
	cost                          float64
	reasoning                     int64
}

// addStep adds the metrics of a step, if it has any.
func (t *tokenSum) addStep(m *Metrics) {
	if m == nil {
		return
	}
	t.known = true
	t.prompt += deref(m.PromptTokens)
	t.completion += deref(m.CompletionTokens)
	t.addCached(m.CachedTokens)
	t.addCost(m.CostUSD)
	if n, ok := m.Extra["reasoning_tokens"].(int64); ok {
		t.reasoning += n
	}
}

// addSubagent adds the final metrics of a subagent, if it has any.
func (t *tokenSum) addSubagent(sub *FinalMetrics) {
	if sub == nil {
		return
	}
	if sub.TotalPromptTokens != nil || sub.TotalCompletionTokens != nil {
		t.known = true
		t.prompt += deref(sub.TotalPromptTokens)
		t.completion += deref(sub.TotalCompletionTokens)
	}
	t.addCached(sub.TotalCachedTokens)
	t.addCost(sub.TotalCostUSD)
	if n, ok := sub.Extra["total_reasoning_tokens"].(int64); ok {
		t.reasoning += n
	}
}

// addCached adds a cached token count, when it is known.
func (t *tokenSum) addCached(n *int) {
	if n != nil {
		t.cachedKnown = true
		t.cached += *n
	}
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// millis is a duration in milliseconds, to the microsecond.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/1e3) / 1e3
}
