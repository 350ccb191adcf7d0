package atif

import (
	"bytes"
	"encoding/json"
	"maps"
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
//     ids, extra);
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
// as the run id.
func trajectoryResidue(t *Trajectory, id string) recorder.Extras {
	r := map[string]any{}
	if t.SessionID != "" && (t.SessionID != id || t.TrajectoryID != "") {
		// A subagent's session_id is not its run id, which is its
		// trajectory_id, even when the two are the same string.
		r["session_id"] = t.SessionID
	}
	if t.TrajectoryID != "" {
		r["trajectory_id"] = t.TrajectoryID
	}
	agent := map[string]any{"version": t.Agent.Version}
	if t.Agent.ModelName != "" {
		agent["model_name"] = t.Agent.ModelName
	}
	if t.Agent.Extra != nil {
		agent["extra"] = t.Agent.Extra
	}
	if defs := t.Agent.ToolDefinitions; defs != nil && !encodesAlike((&exporter{}).toolDefinitions(toolDefinitions(defs)), defs) {
		// Records keep a tool's name, description and parameters; this
		// one said more.
		agent["tool_definitions"] = plain(defs)
	}
	r["agent"] = agent
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

// stepResidue is what records do not hold of step s. response says the
// step imports as a model response, whose metrics and model the records
// keep; order lists, for each of the step's results, the place among the
// step's tool results (in the order they are written) of the one it
// becomes, or -1 for a result without content.
func stepResidue(s *Step, response bool, order []int) map[string]any {
	var r map[string]any
	set := func(k string, v any) {
		if r == nil {
			r = map[string]any{}
		}
		r[k] = v
	}
	if s.Timestamp != "" {
		var buf [40]byte
		if ts, ok := parseTimestamp(s.Timestamp); !ok || string(ts.UTC().AppendFormat(buf[:0], timestampLayout)) != s.Timestamp {
			set("timestamp", s.Timestamp)
		}
	}
	if s.ReasoningEffort != nil {
		set("reasoning_effort", plain(*s.ReasoningEffort))
	}
	if s.IsCopiedContext {
		set("is_copied_context", true)
	}
	if s.LLMCallCount != nil && (!response || *s.LLMCallCount != 1) {
		set("llm_call_count", *s.LLMCallCount)
	}
	if s.ModelName != "" && !response {
		set("model_name", s.ModelName)
	}
	if s.Metrics != nil && (!response || !tokenCountsOnly(s.Metrics)) {
		set("metrics", toGeneric(s.Metrics))
	}
	if s.Message.IsParts() && response {
		// Records keep the media of input messages only.
		set("message", plain(s.Message))
	}
	if extra := withoutLookout(s.Extra); extra != nil {
		set("extra", extra)
	}
	var callExtras []any
	for i, c := range s.ToolCalls {
		if extra := withoutLookout(c.Extra); extra != nil {
			callExtras = append(callExtras, make([]any, i+1-len(callExtras))...)
			callExtras[i] = extra
		}
	}
	if callExtras != nil {
		set(toolCallsKey, callExtras)
	}
	if s.Observation != nil && !(response && plainObservation(s)) {
		set("observation", observationTemplate(s.Observation, order))
	}
	return r
}

// tokenCountsOnly reports whether m holds only what a model response's
// usage keeps and an export writes back alike: prompt and completion
// tokens, cached tokens above zero, reasoning tokens above zero.
func tokenCountsOnly(m *Metrics) bool {
	if m.PromptTokens == nil || m.CompletionTokens == nil || (m.CachedTokens != nil && *m.CachedTokens <= 0) ||
		m.CostUSD != nil || m.PromptTokenIDs != nil || m.CompletionTokenIDs != nil || m.Logprobs != nil {
		return false
	}
	if m.Extra == nil {
		return true
	}
	reasoning, ok := number(m.Extra["reasoning_tokens"])
	return ok && reasoning > 0 && reasoning == float64(int64(reasoning)) && len(m.Extra) == 1
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
		if r.SourceCallID != s.ToolCalls[i].ID || r.SourceCallID == "" || r.Content == nil || r.SubagentTrajectoryRef != nil || withoutLookout(r.Extra) != nil {
			return false
		}
		for j := range i {
			if s.ToolCalls[j].ID == r.SourceCallID {
				return false // a repeated id: let the template say which is which
			}
		}
	}
	return true
}

// observationTemplate is the observation with the content of each result
// replaced by its place among the tool results written for the step.
func observationTemplate(o *Observation, order []int) map[string]any {
	results := make([]any, len(o.Results))
	for i, res := range o.Results {
		m := map[string]any{}
		if res.SourceCallID != "" {
			m["source_call_id"] = res.SourceCallID
		}
		if res.SubagentTrajectoryRef != nil {
			refs := make([]any, len(res.SubagentTrajectoryRef))
			for j, ref := range res.SubagentTrajectoryRef {
				refs[j] = refValue(ref)
			}
			m["subagent_trajectory_ref"] = refs
		}
		if res.Extra != nil {
			m["extra"] = res.Extra
		}
		if res.Content != nil && i < len(order) && order[i] >= 0 {
			m[contentIndexKey] = order[i]
		}
		results[i] = m
	}
	return map[string]any{"results": results}
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
	order := make([]int, len(results))
	next := 0
	for i := range order {
		order[i] = -1
	}
	if !inOrder {
		for j := range calls {
			for i, r := range results {
				if owner[i] == j && r.Content != nil {
					order[i] = next
					next++
				}
			}
		}
	}
	for i, r := range results {
		if (inOrder || owner[i] < 0) && r.Content != nil {
			order[i] = next
			next++
		}
	}
	return order
}

// applyTrajectoryResidue puts back on t what its run's run_started kept
// of the imported trajectory. Strings are redacted.
func (x *exporter) applyTrajectoryResidue(t *Trajectory, extras recorder.Extras) {
	r := residueOf(extras, trajectoryKey)
	if r == nil {
		return
	}
	str := func(k string) string { s, _ := r[k].(string); return x.redact(s) }
	if s := str("session_id"); s != "" {
		t.SessionID = s
	}
	if s := str("trajectory_id"); s != "" {
		t.TrajectoryID = s
	}
	if agent, ok := r["agent"].(map[string]any); ok {
		if v, ok := agent["version"].(string); ok && !x.versionSet {
			t.Agent.Version = v
		}
		if m, ok := agent["model_name"].(string); ok {
			t.Agent.ModelName = m
		}
		if extra, ok := agent["extra"].(map[string]any); ok {
			t.Agent.Extra = x.redactMap(extra)
		}
		if defs, ok := agent["tool_definitions"].([]any); ok {
			var kept []map[string]any
			if fromGeneric(x.redactValue(defs), &kept) {
				t.Agent.ToolDefinitions = kept
			}
		}
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
		merged := x.redactMap(extra)
		maps.Copy(merged, t.Extra)
		t.Extra = merged
	}
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
	if e, ok := r["reasoning_effort"]; ok {
		var effort Effort
		if fromGeneric(e, &effort) {
			s.ReasoningEffort = &effort
		}
	}
	if r["is_copied_context"] == true {
		s.IsCopiedContext = true
	}
	if n, ok := r["llm_call_count"]; ok {
		var count int
		if fromGeneric(n, &count) {
			s.LLMCallCount = &count
		}
	}
	if m, ok := r["model_name"].(string); ok {
		s.ModelName = m
	}
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
	if extra, ok := r["extra"].(map[string]any); ok {
		merged := x.redactMap(extra)
		maps.Copy(merged, s.Extra)
		s.Extra = merged
	}
	if calls, ok := r[toolCallsKey].([]any); ok {
		for i, e := range calls {
			extra, ok := e.(map[string]any)
			if !ok || i >= len(s.ToolCalls) {
				continue
			}
			merged := x.redactMap(extra)
			maps.Copy(merged, s.ToolCalls[i].Extra)
			s.ToolCalls[i].Extra = merged
		}
	}
	if o, ok := r["observation"].(map[string]any); ok {
		p.template, _ = o["results"].([]any)
		p.hasTemplate = true
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
	var contents []*Content
	for _, r := range results {
		if r.Content != nil {
			contents = append(contents, r.Content)
		}
	}
	filled, ok := x.fill(p.template, contents)
	if !ok {
		return results
	}
	return filled
}

// fill builds results from an observation template, taking the content
// of each from contents. It reports false when the template and the
// contents do not match one for one.
func (x *exporter) fill(template []any, contents []*Content) ([]ObservationResult, bool) {
	out := make([]ObservationResult, 0, len(template))
	used := 0
	for _, t := range template {
		m, ok := t.(map[string]any)
		if !ok {
			return nil, false
		}
		m = maps.Clone(m)
		n, hasContent := m[contentIndexKey]
		delete(m, contentIndexKey)
		var r ObservationResult
		if !fromGeneric(x.redactValue(m), &r) {
			return nil, false
		}
		if hasContent {
			i, ok := number(n)
			if !ok || int(i) < 0 || int(i) >= len(contents) {
				return nil, false
			}
			r.Content = contents[int(i)]
			used++
		}
		out = append(out, r)
	}
	if used != len(contents) {
		return nil, false
	}
	return out, true
}

// mediaExtension is the file extension for a media type.
func mediaExtension(mediaType string) string {
	switch mediaType {
	case "image/jpeg":
		return ".jpg"
	case "audio/mpeg":
		return ".mp3"
	case "audio/mp4":
		return ".m4a"
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
