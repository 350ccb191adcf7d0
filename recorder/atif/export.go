package atif

import (
	"cmp"

	"github.com/lookout-go/lookout/recorder"
)

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
//  1. the tool call named by the child's run_started field
//     parent_tool_call_id (recorder.RunStarted.ParentToolCallID), the
//     latest with that id to start before the child when the parent
//     reused the id (when it names no call of the parent, or the child
//     was imported by ToRecords as not started by a call, rule 2 is
//     skipped);
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
		step := x.messageStep(p.Message, p.Origin, now)
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
	return uniqueCallIDs(s)
}
