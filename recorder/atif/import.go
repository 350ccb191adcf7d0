package atif

import (
	"cmp"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/google/uuid"

	"github.com/lookout-go/lookout/recorder"
)

// ToRecords turns a trajectory into records, as if the run had been
// recorded: the trajectory becomes a run whose id is its session_id (or
// trajectory_id, or a new UUID), and each embedded subagent trajectory a
// child run whose id is its trajectory_id.
//
//   - user and system steps become message records, their content parts
//     (whatever the role) multimodal input parts, and the results of
//     their observation tool_ended records of the step; assessment steps
//     written by FromRecords become assessment records again;
//   - steps copied from earlier context (is_copied_context), as a
//     continuation or a summarization subagent starts with, are the
//     conversation the run was given: message records of their role (an
//     agent step an assistant message with its tool calls) and a tool
//     message for each result with content, not model or tool calls;
//   - when agent.model_name names a model that the first agent step's
//     request would not (there is no agent step, or it names another
//     model, as after a model call that failed), a model_request for it
//     comes first, carrying the tool definitions;
//   - an agent step becomes a model_request (when a model name is known,
//     and always for the first agent step of a trajectory with tool
//     definitions not yet written, which that request carries; a
//     trajectory with tool definitions and no request for them gets a
//     model_request of its own at the end, for the agent's model),
//     a model_response with its message, reasoning, tool calls and usage,
//     and for each tool call a tool_started and, when the observation has
//     content for it, a tool_ended; results with content that name no
//     call are the batched output of the calls without a result of their
//     own (as many results as calls pair in order; fewer go to the last
//     calls; the rest stay results of no call);
//   - a subagent ref with a trajectory_id that names an embedded entry
//     starts that child run, with the delegating call's id in its
//     run_started field parent_tool_call_id; when the ref is not on a
//     call's result the field is empty and the run_started's ATIF extras
//     say the child was not started by a call, so that FromRecords does
//     not link it to one; embedded entries no step refers to become
//     children of the trajectory that holds them;
//   - a run_ended closes each run, unless the trajectory came from
//     FromRecords and the run had not ended.
//
// Record times come from step timestamps, in any ISO 8601 form Validate
// accepts; one without a UTC offset is taken as UTC, and a date alone as
// its midnight. A step without a readable timestamp takes the time of the
// step before it. Embedded subagents nest as the RFC has them: a ref
// names an entry of its own trajectory's subagent_trajectories, or, for
// documents that list every subagent at the root, of a trajectory above.
//
// What records have no field for (agent version and extra, notes, the
// final_metrics as they were, costs, token ids, logprobs, reasoning
// effort, the copied-context flag, llm_call_count, extras, file-form
// subagent refs, continuation refs, timestamps in another form, results
// that name no call) is kept in the records' Extras under
// recorder.ExtraATIF, and FromRecords puts it back: exporting the records
// again gives the trajectory back field for field, except that
// schema_version becomes Version and media paths may change (see
// ToRecordsIn).
func ToRecords(t *Trajectory) ([]recorder.Record, error) {
	return ToRecordsIn("", t)
}

// ToRecordsIn is ToRecords for a trajectory read from a file in the
// folder dir: the local image and audio files its content parts name
// (relative to dir, or absolute) are read into the records, inline up to
// recorder.DefaultMediaInlineBytes and beyond that by reference (their
// absolute path, SHA-256 and size), so that an export elsewhere still
// has them. A file that cannot be read stays a reference to its path.
// With an empty dir, media paths are kept as they are, as ToRecords does.
func ToRecordsIn(dir string, t *Trajectory) ([]recorder.Record, error) {
	if t == nil {
		return nil, errors.New("atif: ToRecords: nil trajectory")
	}
	im := &importer{used: map[string]bool{}, mediaDir: dir}
	id := cmp.Or(t.SessionID, t.TrajectoryID)
	if id == "" {
		id = uuid.NewString()
	}
	if conv, marks := conversationMarks(t); marks != nil {
		im.conversation(t, conv, marks)
		return im.out, nil
	}
	im.used[id] = true
	root := im.run(t, nil, id, "", 0, "", time.Time{})
	root.end(t)
	return im.out, nil
}

// scope is the embedded subagents a trajectory's refs can name: its own
// subagent_trajectories, then those of the trajectories above it (a flat
// list at the root, as exports wrote before nesting, still resolves).
type scope struct {
	subs   map[string]*Trajectory // by trajectory_id; of two with one id, the first
	order  map[string]int         // their position in subagent_trajectories
	parent *scope
}

func newScope(subs []Trajectory, parent *scope) *scope {
	s := &scope{subs: map[string]*Trajectory{}, order: map[string]int{}, parent: parent}
	for i := range subs {
		sub := &subs[i]
		if sub.TrajectoryID != "" && s.subs[sub.TrajectoryID] == nil {
			s.subs[sub.TrajectoryID] = sub
			s.order[sub.TrajectoryID] = i
		}
	}
	return s
}

// find returns the embedded subagent with the id, nearest scope first,
// and its position in its list.
func (s *scope) find(id string) (*Trajectory, int) {
	for ; s != nil; s = s.parent {
		if sub := s.subs[id]; sub != nil {
			return sub, s.order[id]
		}
	}
	return nil, 0
}

// unreferenced imports the subagents of t that no step referred to, as
// children of w's run, started when it did: they still belong to it.
func (im *importer) unreferenced(w *runWriter, t *Trajectory) {
	for i := range t.SubagentTrajectories {
		sub := &t.SubagentTrajectories[i]
		if sub.TrajectoryID == "" || im.used[sub.TrajectoryID] || w.scope.subs[sub.TrajectoryID] != sub {
			continue
		}
		im.used[sub.TrajectoryID] = true
		im.run(sub, w.scope, sub.TrajectoryID, w.id, w.depth+1, "", w.started)
	}
}

// toolDefinitions reads agent.tool_definitions back into records: the
// name, description and parameters of every OpenAI-style function entry.
// Entries without a function name are skipped, and other keys are dropped.
func toolDefinitions(entries []map[string]any) []recorder.ToolDefinition {
	var defs []recorder.ToolDefinition
	for _, e := range entries {
		fn, _ := e["function"].(map[string]any)
		name, ok := fn["name"].(string)
		if !ok {
			continue
		}
		d := recorder.ToolDefinition{Name: name}
		d.Description, _ = fn["description"].(string)
		if params, ok := fn["parameters"]; ok && params != nil {
			if raw, err := marshal(params); err == nil {
				d.Parameters = raw
			}
		}
		defs = append(defs, d)
	}
	return defs
}

type importer struct {
	used     map[string]bool // run ids already imported
	mediaDir string          // where relative media paths are read from; "" keeps them as paths
	out      []recorder.Record
}

// runWriter appends one run's records with dense seqs.
type runWriter struct {
	im         *importer
	id, parent string
	depth      int
	seq        uint64
	at         time.Time
	started    time.Time
	scope      *scope
	calls      int
	usage      recorder.RunUsage
	tools      []recorder.ToolDefinition // not yet written; they go with the first model request
	// injected is what Lookout adds to the next model call's input: the
	// injected steps read since the last response, or, when none were,
	// the messages the call before was given (see injectedSteps).
	injected     []recorder.InjectedMessage
	injectedUsed bool                      // a response followed injected: new injected steps replace it
	injectedAt   time.Time                 // the time of the first of the injected steps, the time of their model request
	toolNames    []string                  // the trajectory's tools, offered to every model call
	assessed     *recorder.InjectedMessage // the latest injected assessment recorded as one
	// unshown says the trajectory has an assessment never shown to the
	// model (extra.lookout.assessment.shown false): its model requests
	// then say what was injected, if only nothing, so that an export
	// marks it again.
	unshown bool
}

func (w *runWriter) add(p recorder.Payload) {
	w.im.out = append(w.im.out, recorder.Record{
		SchemaVersion: recorder.SchemaVersion,
		Seq:           w.seq,
		RunID:         w.id,
		ParentRunID:   w.parent,
		Depth:         w.depth,
		RecordedAt:    w.at,
		Payload:       p,
	})
	w.seq++
}

// run writes a trajectory's records up to, not including, its run_ended;
// the caller ends it once any trailing children are written.
func (im *importer) run(t *Trajectory, outer *scope, id, parent string, depth int, parentCall string, start time.Time) *runWriter {
	w := &runWriter{im: im, id: id, parent: parent, depth: depth, at: start, scope: newScope(t.SubagentTrajectories, outer), unshown: hasUnshown(t.Steps)}
	if start.IsZero() && len(t.Steps) > 0 {
		w.at, _ = parseTimestamp(t.Steps[0].Timestamp)
	}
	w.started = w.at
	w.add(runStarted(t, id, parent, parentCall))
	w.offerTools(t)
	for i := range t.Steps {
		w.step(t, &t.Steps[i])
	}
	if len(w.tools) > 0 {
		// No agent step took them: the run offered tools and got no reply.
		w.add(w.toolRequest(t.Agent.ModelName))
	}
	im.unreferenced(w, t)
	if parent != "" {
		w.end(t)
	}
	return w
}

// runStarted is the run_started record of trajectory t imported as run
// id, a child of run parent when that is not empty.
func runStarted(t *Trajectory, id, parent, parentCall string) *recorder.RunStarted {
	// A child with no parentCall was not started by a tool call; the
	// residue says so, so that FromRecords does not guess one from the
	// times.
	uncalled := parent != "" && parentCall == ""
	return &recorder.RunStarted{AgentName: t.Agent.Name, ParentToolCallID: parentCall, Extra: trajectoryResidue(t, id, uncalled)}
}

// offerTools takes the tool definitions of t for the run's first model
// request, and writes that request now when no agent step names its model
// first.
func (w *runWriter) offerTools(t *Trajectory) {
	w.tools = toolDefinitions(t.Agent.ToolDefinitions)
	for _, d := range w.tools {
		w.toolNames = append(w.toolNames, d.Name)
	}
	if m := t.Agent.ModelName; m != "" && firstStepModel(t) != m {
		// The run's first request was for a model no agent step names
		// first, as when that call failed: keep it, as FromRecords takes
		// agent.model_name from the first request.
		w.add(w.toolRequest(m))
	}
}

// firstStepModel is the model the request of t's first agent step names
// (the step's model, else the agent's), or "" when t has no agent step.
func firstStepModel(t *Trajectory) string {
	for i := range t.Steps {
		if s := &t.Steps[i]; responseStep(s, lookoutExtra(s.Extra)) {
			if s.ModelName != "" {
				return s.ModelName
			}
			return t.Agent.ModelName
		}
	}
	return ""
}

// responseStep reports whether step s, with extra.lookout info, imports as
// a model response.
func responseStep(s *Step, info map[string]any) bool {
	role, _ := info["role"].(string)
	return info["carrier"] != true && s.Source == SourceAgent && role != string(schema.Assistant) && !s.IsCopiedContext
}

func (w *runWriter) end(t *Trajectory) {
	info := lookoutExtra(t.Extra)
	outcome, _ := info["outcome"].(string)
	if info != nil && outcome == "" {
		return // exported from a run that had not ended
	}
	if outcome == "" {
		outcome = string(recorder.OutcomeCompleted)
	}
	ended := &recorder.RunEnded{Outcome: recorder.Outcome(outcome), Usage: w.usage}
	ended.Error, _ = info["error"].(string)
	ended.StopReason, _ = info["stop_reason"].(string)
	ended.Usage.TotalTokens = ended.Usage.PromptTokens + ended.Usage.CompletionTokens
	w.add(ended)
}

func (w *runWriter) step(t *Trajectory, s *Step) {
	if ts, ok := parseTimestamp(s.Timestamp); ok {
		w.at = ts
	}
	s = originalCallIDs(s)
	info := lookoutExtra(s.Extra)
	if s.IsCopiedContext {
		w.copiedStep(s, info)
		return
	}
	calls := w.stepRecord(t, s, info)
	w.results(s, calls, info["carrier"] != true)
}

// copiedStep writes a step of copied context: a message, with its
// results in their own order, that is also history.
func (w *runWriter) copiedStep(s *Step, info map[string]any) {
	results := observationResults(s)
	var calls []ToolCall
	if s.Source == SourceAgent {
		calls = s.ToolCalls
	}
	w.message(s, info, stepResidue(s, false, contentOrder(results, owners(results, calls), len(s.ToolCalls), true)))
	w.history(s)
}

// stepRecord writes the record a step that is not copied context imports
// as, by what it is, and returns the tool calls whose results follow it.
func (w *runWriter) stepRecord(t *Trajectory, s *Step, info map[string]any) []ToolCall {
	results := observationResults(s)
	switch {
	case info["carrier"] == true:
	case responseStep(s, info):
		w.modelResponse(t, s, info, stepResidue(s, true, contentOrder(results, owners(results, s.ToolCalls), len(s.ToolCalls), false)))
		return s.ToolCalls
	case info["assessment"] != nil && s.Source == SourceSystem:
		w.assessment(s, info["assessment"])
	case info["injected"] != nil:
		w.injectedStep(s, info)
	default:
		w.message(s, info, stepResidue(s, false, contentOrder(results, owners(results, nil), 0, false)))
	}
	return nil
}

// observationResults are the results of step s's observation, if any.
func observationResults(s *Step) []ObservationResult {
	if s.Observation == nil {
		return nil
	}
	return s.Observation.Results
}

func (w *runWriter) message(s *Step, info map[string]any, residue map[string]any) {
	role, _ := info["role"].(string)
	m := &schema.Message{Role: schema.User, Content: s.Message.PlainText()}
	switch {
	case role == string(schema.Tool):
		m.Role = schema.Tool
		m.ToolCallID, _ = info["tool_call_id"].(string)
	case s.Source == SourceSystem:
		m.Role = schema.System
	case s.Source == SourceAgent:
		m.Role = schema.Assistant
		m.ReasoningContent = s.ReasoningContent
		m.ToolCalls = toolCalls(s.ToolCalls)
	}
	if s.Message.IsParts() {
		// FromRecords writes parts for any message with multimodal input,
		// whatever its role.
		m.Content = ""
		m.UserInputMultiContent = w.im.inputParts(s.Message.Parts)
	}
	origin, _ := info["origin"].(string)
	w.add(&recorder.Message{Message: m, Extra: atifExtras(stepKey, residue), Origin: recorder.Origin(origin)})
}

func (w *runWriter) assessment(s *Step, raw any) {
	info, _ := raw.(map[string]any)
	a := &recorder.AssessmentRecord{Markdown: s.Message.PlainText()}
	if n, ok := number(info["after_call_index"]); ok {
		a.AfterCallIndex = int(n)
	}
	observers, _ := info["observers"].([]any)
	for _, o := range observers {
		note, _ := o.(map[string]any)
		name, _ := note["name"].(string)
		severity, _ := note["severity"].(string)
		a.Observers = append(a.Observers, recorder.ObserverNote{Name: name, Severity: severity})
	}
	w.add(a)
}

// injectedStep reads a step that FromRecords wrote for a message Lookout
// injected into a model call's input: it goes back into the input of the
// model request that follows, and an assessment is also recorded as one.
func (w *runWriter) injectedStep(s *Step, info map[string]any) {
	if w.injectedUsed {
		w.injected, w.injectedUsed = nil, false
	}
	if len(w.injected) == 0 {
		w.injectedAt = w.at
	}
	kind, _ := info["injected"].(string)
	m := recorder.InjectedMessage{Kind: kind, Role: string(schema.User), Content: s.Message.PlainText()}
	if s.Source == SourceSystem {
		m.Role = string(schema.System)
	}
	if n, ok := number(info["after_call_index"]); ok {
		m.AfterCallIndex = int(n)
	}
	w.injected = append(w.injected, m)
	w.injectedAssessment(m)
}

// injectedAssessment records an injected assessment m as an assessment,
// unless it is the one recorded last: a block given again beside a
// wrap-up reminder is the same assessment.
func (w *runWriter) injectedAssessment(m recorder.InjectedMessage) {
	if m.Kind == recorder.InjectedAssessment && (w.assessed == nil || *w.assessed != m) {
		w.assessed = &m
		w.add(&recorder.AssessmentRecord{Markdown: m.Content, AfterCallIndex: m.AfterCallIndex})
	}
}

func (w *runWriter) modelResponse(t *Trajectory, s *Step, info map[string]any, residue map[string]any) {
	w.modelRequest(cmp.Or(s.ModelName, t.Agent.ModelName))
	m := &schema.Message{Role: schema.Assistant, Content: s.Message.PlainText(), ReasoningContent: s.ReasoningContent}
	m.ToolCalls = toolCalls(s.ToolCalls)
	resp := &recorder.ModelResponse{Message: m, UsageReported: s.Metrics != nil, Extra: atifExtras(stepKey, residue)}
	if s.Metrics != nil {
		resp.Usage = tokenUsage(s.Metrics)
		w.usage.PromptTokens += resp.Usage.PromptTokens
		w.usage.CompletionTokens += resp.Usage.CompletionTokens
	}
	resp.FinishReason, _ = info["finish_reason"].(string)
	if ms, ok := number(info["latency_ms"]); ok {
		resp.Latency = fromMillis(ms)
	}
	w.usage.ModelCalls++
	w.add(resp)
}

// modelRequest writes the model request before a model response for
// model, when it has a model, tools not yet offered or injected messages
// to carry.
func (w *runWriter) modelRequest(model string) {
	if model != "" || len(w.tools) > 0 || len(w.injected) > 0 || w.unshown {
		req := w.toolRequest(model)
		req.Injected = w.injected
		if req.Injected == nil && w.unshown {
			req.Injected = []recorder.InjectedMessage{}
		}
		at := w.at
		if !w.injectedUsed && len(w.injected) > 0 {
			// The injected steps are where the request's input ended.
			w.at = w.injectedAt
		}
		w.injectedUsed = true
		w.add(req)
		w.at = at
	}
}

// hasUnshown reports whether steps hold an assessment never shown to the
// model.
func hasUnshown(steps []Step) bool {
	for _, s := range steps {
		if a, ok := lookoutExtra(s.Extra)["assessment"].(map[string]any); ok && a["shown"] == false {
			return true
		}
	}
	return false
}

// toolCalls are a step's tool calls as a model writes them.
func toolCalls(calls []ToolCall) []schema.ToolCall {
	var out []schema.ToolCall
	for _, c := range calls {
		out = append(out, schema.ToolCall{
			ID:       c.ID,
			Type:     "function",
			Function: schema.FunctionCall{Name: c.FunctionName, Arguments: argumentsText(c)},
		})
	}
	return out
}

// toolRequest is a model request, carrying the trajectory's tool
// definitions when they are not yet written.
func (w *runWriter) toolRequest(model string) *recorder.ModelRequest {
	req := &recorder.ModelRequest{Model: model, Tools: w.toolNames}
	if len(w.tools) > 0 {
		req.ToolDefinitions = w.tools
		w.tools = nil
	}
	return req
}

// argumentsText is the call's arguments as the model sent them: the raw
// text FromRecords kept for arguments that were not a JSON object, or the
// object itself.
func argumentsText(c ToolCall) string {
	if raw, ok := lookoutExtra(c.Extra)["raw_arguments"].(string); ok {
		return raw
	}
	if len(c.Arguments) == 0 {
		return "{}"
	}
	return string(c.Arguments)
}

func tokenUsage(m *Metrics) recorder.TokenUsage {
	u := recorder.TokenUsage{
		PromptTokens:     int64(deref(m.PromptTokens)),
		CompletionTokens: int64(deref(m.CompletionTokens)),
		CachedTokens:     int64(deref(m.CachedTokens)),
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	if n, ok := number(m.Extra["reasoning_tokens"]); ok {
		u.ReasoningTokens = int64(n)
	}
	return u
}

// results writes the tool calls of a step and what its observation says
// about them: every call starts, then the subagents the results refer to
// run (in their subagent_trajectories order, the order they started in),
// then the calls with a result end, followed by results no call claims.
func (w *runWriter) results(s *Step, calls []ToolCall, ofStep bool) {
	var results []ObservationResult
	if s.Observation != nil {
		results = s.Observation.Results
	}
	owner := owners(results, calls)
	indexes := w.startCalls(calls)
	w.delegations(results, calls, owner)
	w.endCalls(results, calls, owner, indexes)
	w.unclaimed(results, owner, ofStep)
}

// startCalls writes a ToolStarted for each call and returns the call
// index each got.
func (w *runWriter) startCalls(calls []ToolCall) []int {
	indexes := make([]int, len(calls))
	for j, c := range calls {
		indexes[j] = w.calls
		w.calls++
		w.usage.ToolCalls++
		args := argumentsText(c)
		started := &recorder.ToolStarted{CallID: c.ID, Name: c.FunctionName, Arguments: args, ArgumentsBytes: len(args), CallIndex: indexes[j]}
		readMCP(started, c)
		w.add(started)
	}
	return indexes
}

// delegation is a subagent a result refers to and the id of the call
// that result answers, if any.
type delegation struct {
	id, callID string
	sub        *Trajectory
	order      int
}

// delegations runs the subagents the results refer to and that have not
// run yet, in the order they appear in subagent_trajectories, each as a
// child of the call its result answers.
func (w *runWriter) delegations(results []ObservationResult, calls []ToolCall, owner []int) {
	var children []delegation
	for i, r := range results {
		callID := ""
		if owner[i] >= 0 {
			callID = calls[owner[i]].ID
		}
		children = w.unusedRefs(children, r.SubagentTrajectoryRef, callID)
	}
	slices.SortStableFunc(children, func(a, b delegation) int { return a.order - b.order })
	for _, c := range children {
		w.im.run(c.sub, w.scope, c.id, w.id, w.depth+1, c.callID, w.at)
	}
}

// unusedRefs appends the embedded subagents refs names that no earlier
// ref claimed, and claims them.
func (w *runWriter) unusedRefs(children []delegation, refs []SubagentTrajectoryRef, callID string) []delegation {
	for _, ref := range refs {
		if sub, order := w.scope.find(ref.TrajectoryID); sub != nil && !w.im.used[ref.TrajectoryID] {
			w.im.used[ref.TrajectoryID] = true
			children = append(children, delegation{ref.TrajectoryID, callID, sub, order})
		}
	}
	return children
}

// endCalls writes a ToolEnded for each result with content that answers
// a call, in the order of the calls.
func (w *runWriter) endCalls(results []ObservationResult, calls []ToolCall, owner, indexes []int) {
	for j, c := range calls {
		for i, r := range results {
			if owner[i] == j && r.Content != nil {
				w.toolEnded(r, c.ID, c.FunctionName, indexes[j])
			}
		}
	}
}

// unclaimed writes a ToolEnded for each result with content that answers
// no call, under the call id and tool name its extra recorded, with a
// call index of its own.
func (w *runWriter) unclaimed(results []ObservationResult, owner []int, ofStep bool) {
	for i, r := range results {
		if owner[i] >= 0 || r.Content == nil {
			continue
		}
		info := lookoutExtra(r.Extra)
		callID, _ := info["call_id"].(string)
		name, _ := info["tool_name"].(string)
		index := w.calls
		w.calls++
		e := w.toolEnded(r, callID, name, index)
		if ofStep {
			// It belongs to the step just written, not to a step of its
			// own as a result no call claims would otherwise get.
			e.Extra = recorder.Extras{recorder.ExtraATIF: map[string]any{resultOfStepKey: true}}
		}
	}
}

// history writes what the observation of a step copied from earlier
// context (is_copied_context) says as the tool messages the conversation
// held, each answering the call it names or is the batched output of. The
// step's message was written as a message of its own: copied steps are
// the context a run was given, not model calls or tool calls it made.
func (w *runWriter) history(s *Step) {
	if s.Observation == nil {
		return
	}
	var calls []ToolCall
	if s.Source == SourceAgent {
		calls = s.ToolCalls
	}
	results := s.Observation.Results
	owner := owners(results, calls)
	for i, r := range results {
		if r.Content == nil {
			continue
		}
		id := r.SourceCallID
		if owner[i] >= 0 {
			id = calls[owner[i]].ID
		}
		w.add(&recorder.Message{
			Message: &schema.Message{Role: schema.Tool, Content: r.Content.PlainText(), ToolCallID: id},
			Extra:   recorder.Extras{recorder.ExtraATIF: map[string]any{resultOfStepKey: true}},
		})
	}
}

// owners returns, for each result, the index of the call in calls it
// answers, or -1: each call takes the first result not yet taken that
// names it, then results that name no call are matched as batched output.
func owners(results []ObservationResult, calls []ToolCall) []int {
	owner := make([]int, len(results))
	for i := range owner {
		owner[i] = -1
	}
	for j, c := range calls {
		for i := range results {
			if owner[i] < 0 && results[i].SourceCallID == c.ID {
				owner[i] = j
				break
			}
		}
	}
	batched(results, calls, owner)
	return owner
}

// batched gives the results of a step that name no call and have
// content to the step's calls that have no result of their own, by
// setting owner (an index into calls for each result, -1 for none). Such
// a result is the calls' output delivered in one piece, as Terminus 2
// writes it: with as many results as calls they pair in order; with fewer,
// they go to the last calls, since the output was read after every call
// ran; with more, the first results pair in order and the rest stay
// results of no call.
func batched(results []ObservationResult, calls []ToolCall, owner []int) {
	if len(calls) == 0 {
		return
	}
	free, loose := unansweredCalls(len(calls), owner), looseResults(results, owner)
	if len(loose) < len(free) {
		free = free[len(free)-len(loose):]
	}
	for k := 0; k < len(free) && k < len(loose); k++ {
		owner[loose[k]] = free[k]
	}
}

// unansweredCalls returns the indexes, in order, of the n calls that no
// result has in owner.
func unansweredCalls(n int, owner []int) []int {
	answered := make([]bool, n)
	for _, j := range owner {
		if j >= 0 {
			answered[j] = true
		}
	}
	var free []int
	for j := range answered {
		if !answered[j] {
			free = append(free, j)
		}
	}
	return free
}

// looseResults returns the indexes, in order, of the results that have
// no call in owner, name none and have content: the candidates for
// batched output.
func looseResults(results []ObservationResult, owner []int) []int {
	var loose []int
	for i, r := range results {
		if owner[i] < 0 && r.SourceCallID == "" && r.Content != nil {
			loose = append(loose, i)
		}
	}
	return loose
}

func (w *runWriter) toolEnded(r ObservationResult, callID, name string, index int) *recorder.ToolEnded {
	info := lookoutExtra(r.Extra)
	e := &recorder.ToolEnded{CallID: callID, Name: name, Result: r.Content.PlainText(), CallIndex: index}
	if r.Content.IsParts() {
		e.Parts = w.im.resultParts(r.Content.Parts)
	}
	e.IsError, _ = info["is_error"].(bool)
	e.Error, _ = info["error"].(string)
	e.Truncated, _ = info["truncated"].(bool)
	e.ResultBytes = len(e.Result)
	if n, ok := number(info["result_bytes"]); ok && e.Truncated {
		e.ResultBytes = int(n)
	}
	if ms, ok := number(info["duration_ms"]); ok {
		e.Duration = fromMillis(ms)
	}
	w.add(e)
	return e
}

// lookoutExtra returns extra[ExtraKey] when it is an object.
func lookoutExtra(extra map[string]any) map[string]any {
	info, _ := extra[ExtraKey].(map[string]any)
	return info
}

// number reads a JSON number however it was decoded or built.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func fromMillis(ms float64) time.Duration {
	ns := math.Round(ms*1e3) * 1e3
	if math.IsNaN(ns) || ns > math.MaxInt64 || ns < math.MinInt64 {
		return 0
	}
	return time.Duration(ns)
}

// parseTimestamp reads a step timestamp in any form Validate accepts,
// RFC 3339 (what exports write) included. One without a UTC offset is
// read as UTC, and a date alone as its midnight.
func parseTimestamp(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	return parseISO(strings.TrimSpace(s))
}
