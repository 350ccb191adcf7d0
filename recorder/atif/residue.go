package atif

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/lookout-go/lookout/recorder"
)

// What an imported document says that records have no field for is kept
// in the records' Extras under recorder.ExtraATIF, so that FromRecords
// gives the document back field for field:
//
//   - on a run's run_started: the trajectory's fields other than its
//     steps, subagents, agent name and tool definitions (agent version,
//     model and extra, notes, final_metrics, continued_trajectory_ref,
//     ids, extra), and, for a subagent no tool call started, uncalledKey;
//   - on the record a step starts with (its model_response or message):
//     the step's fields that the records do not give back as they were
//     (a timestamp in another form, reasoning_effort, metrics beyond the
//     token counts, is_copied_context, llm_call_count, model_name of a
//     step that is not a model call, extra, the extra of its tool calls),
//     and its observation as a template: every result as it was, with
//     the content of those that had some replaced by its place among the
//     step's tool results (contentIndexKey);
//   - on a tool result (tool_ended, or a tool message of copied context)
//     that belongs to the step before it rather than to a call or a step
//     of its own: resultOfStepKey.

// Keys of the ATIF extras.
const (
	stepKey         = "step"            // the step's residue, on the record it starts with
	trajectoryKey   = "trajectory"      // the trajectory's residue, on run_started
	uncalledKey     = "uncalled"        // in a trajectory residue: true for a subagent no tool call started
	resultOfStepKey = "result_of_step"  // a tool result that belongs to the step before it
	contentIndexKey = "$content_index"  // in an observation template: which tool result's content goes here
	toolCallsKey    = "tool_call_extra" // in a step residue: each tool call's extra, by position
)

// toGeneric is v encoded and decoded as plain JSON values, numbers as
// json.Number.
func toGeneric(v any) map[string]any {
	m, _ := plain(v).(map[string]any)
	return m
}

// plain is v encoded and decoded as plain JSON values, numbers as
// json.Number: what the residue holds, so that it reads the same in
// memory as after the records' JSON form.
func plain(v any) any {
	data, err := marshal(v)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

// withoutLookout is extra without the Lookout key, or nil when nothing
// else is left of an extra that had it. An extra that was empty from the
// start stays empty, so that it comes back as {}.
func withoutLookout(extra map[string]any) map[string]any {
	if extra == nil {
		return nil
	}
	_, had := extra[ExtraKey]
	if had && len(extra) == 1 {
		return nil
	}
	rest := maps.Clone(extra)
	delete(rest, ExtraKey)
	if had && len(rest) == 0 {
		return nil
	}
	return rest
}

// atifExtras wraps an ATIF residue for a record's Extras, or is nil when
// there is nothing to keep.
func atifExtras(key string, residue map[string]any) recorder.Extras {
	if len(residue) == 0 {
		return nil
	}
	return recorder.Extras{recorder.ExtraATIF: map[string]any{key: residue}}
}

// residueOf returns the residue under key of a record's ATIF extras.
func residueOf(extras recorder.Extras, key string) map[string]any {
	info, _ := extras[recorder.ExtraATIF].(map[string]any)
	r, _ := info[key].(map[string]any)
	return r
}

// trajectoryResidue is what records do not hold of trajectory t imported
// as the run id; uncalled marks a subagent no tool call started.
func trajectoryResidue(t *Trajectory, id string, uncalled bool) recorder.Extras {
	r := map[string]any{}
	idResidue(r, t, id)
	if uncalled {
		r[uncalledKey] = true
	}
	r["agent"] = agentResidue(&t.Agent)
	if t.Notes != "" {
		r["notes"] = t.Notes
	}
	if t.FinalMetrics != nil {
		r["final_metrics"] = toGeneric(t.FinalMetrics)
	}
	if t.ContinuedTrajectoryRef != "" {
		r["continued_trajectory_ref"] = t.ContinuedTrajectoryRef
	}
	if extra := withoutLookout(t.Extra); extra != nil {
		r["extra"] = extra
	}
	return atifExtras(trajectoryKey, r)
}

// idResidue sets in r the ids of trajectory t imported as the run id
// that the run id does not give back.
func idResidue(r map[string]any, t *Trajectory, id string) {
	if t.SessionID != "" && (t.SessionID != id || t.TrajectoryID != "") {
		// A subagent's session_id is not its run id, which is its
		// trajectory_id, even when the two are the same string.
		r["session_id"] = t.SessionID
	}
	if t.TrajectoryID != "" {
		r["trajectory_id"] = t.TrajectoryID
	}
}

// agentResidue is what records do not hold of a trajectory's agent.
func agentResidue(a *Agent) map[string]any {
	agent := map[string]any{"version": a.Version}
	if a.ModelName != "" {
		agent["model_name"] = a.ModelName
	}
	if a.Extra != nil {
		agent["extra"] = a.Extra
	}
	if defs := a.ToolDefinitions; defs != nil && !encodesAlike((&exporter{}).toolDefinitions(toolDefinitions(defs)), defs) {
		// Records keep a tool's name, description and parameters; this
		// one said more.
		agent["tool_definitions"] = plain(defs)
	}
	return agent
}

// stepResidue is what records do not hold of step s. response says the
// step imports as a model response, whose metrics and model the records
// keep; order lists, for each of the step's results, the place among the
// step's tool results (in the order they are written) of the one it
// becomes, or -1 for a result without content.
func stepResidue(s *Step, response bool, order []int) map[string]any {
	var r residue
	stepFormResidue(&r, s)
	if response {
		responseResidue(&r, s)
	} else {
		messageResidue(&r, s)
	}
	if s.Observation != nil && !(response && plainObservation(s)) {
		r.set("observation", observationTemplate(s.Observation, order))
	}
	return r
}

// residue is a step's residue as it is built: nil until a field is set,
// so that a step with nothing to keep costs no allocation.
type residue map[string]any

// set sets field k of the residue to v.
func (r *residue) set(k string, v any) {
	if *r == nil {
		*r = residue{}
	}
	(*r)[k] = v
}

// stepFormResidue sets in r what records do not hold of step s whatever
// it imports as: a timestamp in another form, reasoning_effort,
// is_copied_context, and the extras of the step and of its tool calls.
func stepFormResidue(r *residue, s *Step) {
	if rewrittenTimestamp(s.Timestamp) {
		r.set("timestamp", s.Timestamp)
	}
	if s.ReasoningEffort != nil {
		r.set("reasoning_effort", plain(*s.ReasoningEffort))
	}
	if s.IsCopiedContext {
		r.set("is_copied_context", true)
	}
	if extra := withoutLookout(s.Extra); extra != nil {
		r.set("extra", extra)
	}
	if extras := toolCallExtras(s.ToolCalls); extras != nil {
		r.set(toolCallsKey, extras)
	}
}

// responseResidue sets in r what the records of a model response do not
// hold of step s: an llm_call_count other than one, or none (null), since
// a response record stands for one call; metrics beyond the token counts;
// and a message in parts.
func responseResidue(r *residue, s *Step) {
	switch {
	case s.LLMCallCount == nil:
		r.set("llm_call_count", nil)
	case *s.LLMCallCount != 1:
		r.set("llm_call_count", *s.LLMCallCount)
	}
	if s.Metrics != nil && !tokenCountsOnly(s.Metrics) {
		r.set("metrics", toGeneric(s.Metrics))
	}
	if s.Message.IsParts() {
		// Records keep the media of input messages only.
		r.set("message", plain(s.Message))
	}
}

// messageResidue sets in r what a message record does not hold of step
// s: its llm_call_count, model_name and metrics.
func messageResidue(r *residue, s *Step) {
	if s.LLMCallCount != nil {
		r.set("llm_call_count", *s.LLMCallCount)
	}
	if s.ModelName != "" {
		r.set("model_name", s.ModelName)
	}
	if s.Metrics != nil {
		r.set("metrics", toGeneric(s.Metrics))
	}
}

// rewrittenTimestamp reports whether a step's timestamp ts is one an
// export would not write back as it is.
func rewrittenTimestamp(ts string) bool {
	if ts == "" {
		return false
	}
	var buf [40]byte
	parsed, ok := parseTimestamp(ts)
	return !ok || string(parsed.UTC().AppendFormat(buf[:0], timestampLayout)) != ts
}

// toolCallExtras lists each tool call's extra without Lookout's key, by
// position up to the last call that has one, or is nil when none has.
func toolCallExtras(calls []ToolCall) []any {
	var extras []any
	for i, c := range calls {
		if extra := withoutLookout(c.Extra); extra != nil {
			extras = append(extras, make([]any, i+1-len(extras))...)
			extras[i] = extra
		}
	}
	return extras
}

// tokenCountsOnly reports whether m holds only what a model response's
// usage keeps and an export writes back alike: prompt and completion
// tokens, cached tokens above zero, reasoning tokens above zero.
func tokenCountsOnly(m *Metrics) bool {
	return hasTokenCounts(m) && !hasTokenDetail(m) && reasoningOnly(m.Extra)
}

// hasTokenCounts reports whether m has prompt and completion tokens, and
// cached tokens only above zero.
func hasTokenCounts(m *Metrics) bool {
	return m.PromptTokens != nil && m.CompletionTokens != nil && (m.CachedTokens == nil || *m.CachedTokens > 0)
}

// hasTokenDetail reports whether m has a cost, token ids or logprobs.
func hasTokenDetail(m *Metrics) bool {
	return m.CostUSD != nil || m.PromptTokenIDs != nil || m.CompletionTokenIDs != nil || m.Logprobs != nil
}

// reasoningOnly reports whether a metrics extra is absent or holds only
// a whole count of reasoning tokens above zero.
func reasoningOnly(extra map[string]any) bool {
	if extra == nil {
		return true
	}
	reasoning, ok := number(extra["reasoning_tokens"])
	return ok && reasoning > 0 && reasoning == float64(int64(reasoning)) && len(extra) == 1
}

// plainObservation reports whether the observation of a model call's
// step is what an export of its records writes anyway: one result per
// call, in call order, each naming its call, with content, and with no
// extra but Lookout's own and no subagent refs.
func plainObservation(s *Step) bool {
	results := s.Observation.Results
	if len(results) != len(s.ToolCalls) || len(results) == 0 {
		return false
	}
	for i, r := range results {
		if !plainResult(&r, s.ToolCalls[i].ID) || repeatedID(s.ToolCalls, i) {
			return false
		}
	}
	return true
}

// plainResult reports whether result r is what an export writes for the
// call with id callID: naming it, with content, with no extra but
// Lookout's own and no subagent refs.
func plainResult(r *ObservationResult, callID string) bool {
	return r.SourceCallID == callID && callID != "" && r.Content != nil && r.SubagentTrajectoryRef == nil && withoutLookout(r.Extra) == nil
}

// repeatedID reports whether the id of calls[i] is that of a call before
// it, so that the observation template must say which result is which.
func repeatedID(calls []ToolCall, i int) bool {
	for j := range i {
		if calls[j].ID == calls[i].ID {
			return true
		}
	}
	return false
}

// observationTemplate is the observation with the content of each result
// replaced by its place among the tool results written for the step.
func observationTemplate(o *Observation, order []int) map[string]any {
	results := make([]any, len(o.Results))
	for i := range o.Results {
		place := -1
		if i < len(order) {
			place = order[i]
		}
		results[i] = resultTemplate(&o.Results[i], place)
	}
	return map[string]any{"results": results}
}

// resultTemplate is result res as plain JSON values with its content
// replaced by place, its place among the step's tool results, or left
// out when place is negative.
func resultTemplate(res *ObservationResult, place int) map[string]any {
	m := map[string]any{}
	if res.SourceCallID != "" {
		m["source_call_id"] = res.SourceCallID
	}
	if res.SubagentTrajectoryRef != nil {
		m["subagent_trajectory_ref"] = refValues(res.SubagentTrajectoryRef)
	}
	if res.Extra != nil {
		m["extra"] = res.Extra
	}
	if res.Content != nil && place >= 0 {
		m[contentIndexKey] = place
	}
	return m
}

// refValues is subagent refs as plain JSON values.
func refValues(refs []SubagentTrajectoryRef) []any {
	out := make([]any, len(refs))
	for j, ref := range refs {
		out[j] = refValue(ref)
	}
	return out
}

// refValue is a subagent ref as plain JSON values.
func refValue(ref SubagentTrajectoryRef) map[string]any {
	m := map[string]any{}
	if ref.TrajectoryID != "" {
		m["trajectory_id"] = ref.TrajectoryID
	}
	if ref.SessionID != "" {
		m["session_id"] = ref.SessionID
	}
	if ref.TrajectoryPath != "" {
		m["trajectory_path"] = ref.TrajectoryPath
	}
	if ref.Extra != nil {
		m["extra"] = ref.Extra
	}
	return m
}

// encodesAlike reports whether a and b encode alike.
func encodesAlike(a, b any) bool {
	x, errA := marshal(a)
	y, errB := marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

// contentOrder lists, for each result of a step, its place among the
// tool results the import writes for the step, or -1 for one without
// content. A model call's results are written for its calls in call order
// (owner gives each result's call), then the results no call claims; the
// results of copied context are written in their own order.
func contentOrder(results []ObservationResult, owner []int, calls int, inOrder bool) []int {
	order := slices.Repeat([]int{-1}, len(results))
	next := 0
	if !inOrder {
		next = placeCallResults(order, results, owner, calls)
	}
	for i, r := range results {
		if (inOrder || owner[i] < 0) && r.Content != nil {
			order[i] = next
			next++
		}
	}
	return order
}

// placeCallResults sets in order the places of the results with content
// that calls claim (owner gives each result's call), for each call in
// call order, and returns how many it placed.
func placeCallResults(order []int, results []ObservationResult, owner []int, calls int) int {
	next := 0
	for j := range calls {
		for i, r := range results {
			if owner[i] == j && r.Content != nil {
				order[i] = next
				next++
			}
		}
	}
	return next
}

// applyTrajectoryResidue puts back on t what its run's run_started kept
// of the imported trajectory. Strings are redacted.
func (x *exporter) applyTrajectoryResidue(t *Trajectory, extras recorder.Extras) {
	r := residueOf(extras, trajectoryKey)
	if r == nil {
		return
	}
	str := func(k string) string { s, _ := r[k].(string); return x.redact(s) }
	t.SessionID = cmpOr(str("session_id"), t.SessionID)
	t.TrajectoryID = cmpOr(str("trajectory_id"), t.TrajectoryID)
	if agent, ok := r["agent"].(map[string]any); ok {
		x.applyAgentResidue(&t.Agent, agent)
	}
	t.Notes = cmpOr(str("notes"), t.Notes)
	t.ContinuedTrajectoryRef = cmpOr(str("continued_trajectory_ref"), t.ContinuedTrajectoryRef)
	if fm, ok := r["final_metrics"].(map[string]any); ok {
		var kept FinalMetrics
		if fromGeneric(fm, &kept) {
			t.FinalMetrics = &kept
		}
	}
	if extra, ok := r["extra"].(map[string]any); ok {
		t.Extra = x.mergeRedacted(extra, t.Extra)
	}
}

// applyAgentResidue puts back on a what a trajectory residue kept of the
// imported agent. Strings of its extra and tool definitions are redacted.
func (x *exporter) applyAgentResidue(a *Agent, agent map[string]any) {
	if v, ok := agent["version"].(string); ok && !x.versionSet {
		a.Version = v
	}
	if m, ok := agent["model_name"].(string); ok {
		a.ModelName = m
	}
	if extra, ok := agent["extra"].(map[string]any); ok {
		a.Extra = x.redactMap(extra)
	}
	x.applyToolDefinitionsResidue(a, agent)
}

// applyToolDefinitionsResidue puts back on a the tool definitions, with
// their strings redacted, that an agent residue kept because records did
// not hold all they said.
func (x *exporter) applyToolDefinitionsResidue(a *Agent, agent map[string]any) {
	if defs, ok := agent["tool_definitions"].([]any); ok {
		var kept []map[string]any
		if fromGeneric(x.redactValue(defs), &kept) {
			a.ToolDefinitions = kept
		}
	}
}

// mergeRedacted is kept, a residue's extra, redacted, with the entries
// of extra, the one the records give back, over it.
func (x *exporter) mergeRedacted(kept, extra map[string]any) map[string]any {
	merged := x.redactMap(kept)
	maps.Copy(merged, extra)
	return merged
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fromGeneric decodes plain JSON values into v.
func fromGeneric(m any, v any) bool {
	data, err := marshal(m)
	if err != nil {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v) == nil
}

// redactMap is a copy of m with every string in it redacted.
func (x *exporter) redactMap(m map[string]any) map[string]any {
	out, _ := x.redactValue(m).(map[string]any)
	return out
}

func (x *exporter) redactValue(v any) any {
	switch t := v.(type) {
	case string:
		return x.redact(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = x.redactValue(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = x.redactValue(e)
		}
		return out
	}
	return v
}

// applyStepResidue puts back on step p what the record it started with
// kept of the imported step.
func (x *exporter) applyStepResidue(p *pending, r map[string]any) {
	s := &p.step
	if ts, ok := r["timestamp"].(string); ok {
		p.timestamp = ts
	}
	if r["is_copied_context"] == true {
		s.IsCopiedContext = true
	}
	applyCallResidue(s, r)
	x.applyContentResidue(s, r)
	x.applyExtraResidue(s, r)
	if o, ok := r["observation"].(map[string]any); ok {
		p.template, _ = o["results"].([]any)
		p.hasTemplate = true
	}
}

// applyCallResidue puts back on s the reasoning_effort, llm_call_count
// and model_name that step residue r kept.
func applyCallResidue(s *Step, r map[string]any) {
	if e, ok := r["reasoning_effort"]; ok {
		var effort Effort
		if fromGeneric(e, &effort) {
			s.ReasoningEffort = &effort
		}
	}
	if n, ok := r["llm_call_count"]; ok {
		var count int
		switch {
		case n == nil:
			s.LLMCallCount = nil
		case fromGeneric(n, &count):
			s.LLMCallCount = &count
		}
	}
	if m, ok := r["model_name"].(string); ok {
		s.ModelName = m
	}
}

// applyContentResidue puts back on s the metrics and message that step
// residue r kept, with their strings redacted.
func (x *exporter) applyContentResidue(s *Step, r map[string]any) {
	if m, ok := r["metrics"].(map[string]any); ok {
		var kept Metrics
		if fromGeneric(x.redactValue(m), &kept) {
			s.Metrics = &kept
		}
	}
	if m, ok := r["message"]; ok {
		var kept Content
		if fromGeneric(x.redactValue(m), &kept) {
			s.Message = kept
		}
	}
}

// applyExtraResidue merges into the extras of s and of its tool calls
// what step residue r kept of them.
func (x *exporter) applyExtraResidue(s *Step, r map[string]any) {
	if extra, ok := r["extra"].(map[string]any); ok {
		s.Extra = x.mergeRedacted(extra, s.Extra)
	}
	calls, _ := r[toolCallsKey].([]any)
	for i, e := range calls {
		if extra, ok := e.(map[string]any); ok && i < len(s.ToolCalls) {
			s.ToolCalls[i].Extra = x.mergeRedacted(extra, s.ToolCalls[i].Extra)
		}
	}
}

// observation assembles the results of step p: the results of its calls
// in call order, then the others. When the step was imported with an
// observation template that has a place for each of its tool results,
// the template gives the results, each with its content from the tool
// result it names.
func (x *exporter) observation(p *pending) []ObservationResult {
	var results []ObservationResult
	for _, r := range p.results {
		if r != nil {
			results = append(results, *r)
		}
	}
	results = append(results, p.others...)
	if !p.hasTemplate {
		return results
	}
	filled, ok := x.fill(p.template, contentsOf(results))
	if !ok {
		return results
	}
	return filled
}

// contentsOf lists the content of each result that has some.
func contentsOf(results []ObservationResult) []*Content {
	var contents []*Content
	for _, r := range results {
		if r.Content != nil {
			contents = append(contents, r.Content)
		}
	}
	return contents
}

// fill builds results from an observation template, taking the content
// of each from contents. It reports false when the template and the
// contents do not match one for one.
func (x *exporter) fill(template []any, contents []*Content) ([]ObservationResult, bool) {
	out := make([]ObservationResult, 0, len(template))
	used := 0
	for _, t := range template {
		r, hasContent, ok := x.fillResult(t, contents)
		if !ok {
			return nil, false
		}
		if hasContent {
			used++
		}
		out = append(out, r)
	}
	if used != len(contents) {
		return nil, false
	}
	return out, true
}

// fillResult builds the result of one entry t of an observation template,
// taking its content from contents. It reports whether the entry has a
// place for content, and false for ok when the entry does not decode or
// its place is not among contents.
func (x *exporter) fillResult(t any, contents []*Content) (r ObservationResult, hasContent, ok bool) {
	m, ok := t.(map[string]any)
	if !ok {
		return r, false, false
	}
	m = maps.Clone(m)
	n, hasContent := m[contentIndexKey]
	delete(m, contentIndexKey)
	if !fromGeneric(x.redactValue(m), &r) {
		return r, false, false
	}
	if !hasContent {
		return r, false, true
	}
	r.Content, ok = contentAt(n, contents)
	return r, ok, ok
}

// contentAt is the content of contents at place n, a template's content
// index, or false when n is not a place among them.
func contentAt(n any, contents []*Content) (*Content, bool) {
	i, ok := number(n)
	if !ok || int(i) < 0 || int(i) >= len(contents) {
		return nil, false
	}
	return contents[int(i)], true
}

// mediaExtensions are the file extensions of the media types whose
// subtype is not their usual extension.
var mediaExtensions = map[string]string{
	"image/jpeg": ".jpg",
	"audio/mpeg": ".mp3",
	"audio/mp4":  ".m4a",
}

// mediaExtension is the file extension for a media type.
func mediaExtension(mediaType string) string {
	if ext, ok := mediaExtensions[mediaType]; ok {
		return ext
	}
	if _, sub, ok := strings.Cut(mediaType, "/"); ok && sub != "" && !strings.ContainsAny(sub, "/\\.") {
		return "." + sub
	}
	return ".bin"
}

// resultOfStep reports whether a record's extras say it is a tool result
// of the step before it.
func resultOfStep(extras recorder.Extras) bool {
	info, _ := extras[recorder.ExtraATIF].(map[string]any)
	return info[resultOfStepKey] == true
}
