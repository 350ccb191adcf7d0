package atif

func (v *validator) step(path string, val any, position int) {
	m, ok := v.object(path, val, stepFields)
	if !ok {
		return
	}
	v.stepID(path, m, position)
	v.timestamp(path, m)
	source, sourceOK := v.stepSource(path, m)
	v.str(path, m, "model_name", false)
	v.reasoningEffort(path, m)
	if msg, ok := m["message"]; ok {
		v.content(join(path, "message"), msg, true)
	}
	v.str(path, m, "reasoning_content", false)
	callIDs, idsKnown := v.toolCalls(path, m)
	if obs, ok := v.dict(path, m, "observation", false); ok {
		v.observation(join(path, "observation"), obs, callIDs, idsKnown)
	}
	if mt, ok := v.dict(path, m, "metrics", false); ok {
		v.metrics(join(path, "metrics"), mt)
	}
	v.boolean(path, m, "is_copied_context")
	count, countOK := v.callCount(path, m)
	v.dict(path, m, "extra", false)
	if sourceOK {
		v.sourceRules(path, m, source, count, countOK)
	}
}

// stepID checks that a step's step_id counts from 1 in the order of the
// steps; position is the step's place in that order.
func (v *validator) stepID(path string, m map[string]any, position int) {
	id, ok := v.integer(path, m, "step_id", true)
	switch {
	case !ok:
	case id < 1:
		v.add(join(path, "step_id"), RuleMinimum, "step_id must be at least 1, got %d", id)
	case id != int64(position):
		v.add(join(path, "step_id"), RuleStepOrder, "expected step_id %d (sequential from 1), got %d", position, id)
	}
}

// timestamp checks a step's optional ISO 8601 timestamp.
func (v *validator) timestamp(path string, m map[string]any) {
	if ts, ok := v.str(path, m, "timestamp", false); ok && !validTimestamp(ts) {
		v.add(join(path, "timestamp"), RuleTimestamp, "%q is not an ISO 8601 timestamp", ts)
	}
}

// stepSource checks and returns a step's source. It reports false when
// the source is missing or not one ATIF defines, so that the rules that
// depend on it are not checked against a guess.
func (v *validator) stepSource(path string, m map[string]any) (string, bool) {
	source, ok := v.str(path, m, "source", true)
	if !ok {
		return "", false
	}
	switch Source(source) {
	case SourceSystem, SourceUser, SourceAgent:
		return source, true
	}
	v.add(join(path, "source"), RuleEnum, "source must be \"system\", \"user\" or \"agent\", got %q", source)
	return "", false
}

// reasoningEffort checks that a step's reasoning_effort, when set, is a
// string or a number.
func (v *validator) reasoningEffort(path string, m map[string]any) {
	e, ok := present(m, "reasoning_effort")
	if !ok {
		return
	}
	if _, isStr := e.(string); isStr {
		return
	}
	if _, isNum := asFloat(e); !isNum {
		v.add(join(path, "reasoning_effort"), RuleType, "expected a string or a number, got %s", describe(e))
	}
}

// callCount checks and returns a step's optional llm_call_count.
func (v *validator) callCount(path string, m map[string]any) (int64, bool) {
	count, ok := v.integer(path, m, "llm_call_count", false)
	if ok && count < 0 {
		v.add(join(path, "llm_call_count"), RuleMinimum, "llm_call_count must be at least 0, got %d", count)
	}
	return count, ok
}

// sourceRules checks the fields a step's source allows: only agent steps
// may set the agentOnly fields, and an agent step that made no model call
// (a deterministic dispatch) has no metrics or reasoning to report.
func (v *validator) sourceRules(path string, m map[string]any, source string, count int64, countOK bool) {
	if source != string(SourceAgent) {
		v.agentOnlyFields(path, m, source)
		return
	}
	if countOK && count == 0 {
		v.deterministicFields(path, m)
	}
}

// agentOnlyFields reports each agentOnly field set on step m at path,
// whose source is not the agent.
func (v *validator) agentOnlyFields(path string, m map[string]any, source string) {
	for _, k := range agentOnly {
		if _, set := present(m, k); set {
			v.add(join(path, k), RuleAgentOnly, "%s is only allowed on agent steps, this step's source is %q", k, source)
		}
	}
}

// deterministicFields reports the metrics or reasoning set on agent step
// m at path, which made no model call.
func (v *validator) deterministicFields(path string, m map[string]any) {
	for _, k := range []string{"metrics", "reasoning_content"} {
		if _, set := present(m, k); set {
			v.add(join(path, k), RuleDeterministicStep, "%s must be absent when llm_call_count is 0 (a deterministic dispatch)", k)
		}
	}
}

// toolCalls checks a step's tool_calls and returns their ids. idsKnown is
// false when some id could not be read, so that source_call_id checks do
// not report follow-on problems.
func (v *validator) toolCalls(stepPath string, m map[string]any) (ids map[string]bool, idsKnown bool) {
	calls, ok := v.list(stepPath, m, "tool_calls", false)
	if !ok {
		_, set := present(m, "tool_calls")
		return nil, !set
	}
	path := join(stepPath, "tool_calls")
	ids = make(map[string]bool, len(calls))
	idsKnown = true
	for i, c := range calls {
		p := index(path, i)
		cm, ok := v.object(p, c, toolCallFields)
		if !ok {
			idsKnown = false
			continue
		}
		id, ok := v.str(p, cm, "tool_call_id", true)
		switch {
		case ok && ids[id]:
			v.add(join(p, "tool_call_id"), RuleDuplicateCallID, "tool_call_id %q is given to another call of this step", id)
		case ok:
			ids[id] = true
		default:
			idsKnown = false
		}
		v.str(p, cm, "function_name", true)
		v.dict(p, cm, "arguments", true)
		v.dict(p, cm, "extra", false)
	}
	return ids, idsKnown
}

func (v *validator) observation(path string, m map[string]any, callIDs map[string]bool, idsKnown bool) {
	v.checkKeys(path, m, observationFields)
	results, ok := v.list(path, m, "results", true)
	if !ok {
		return
	}
	resultsPath := join(path, "results")
	for i, r := range results {
		v.result(index(resultsPath, i), r, callIDs, idsKnown)
	}
}

// result checks one observation result at path. Its source_call_id must
// be one of the step's callIDs, when idsKnown says they could all be read.
func (v *validator) result(path string, val any, callIDs map[string]bool, idsKnown bool) {
	m, ok := v.object(path, val, resultFields)
	if !ok {
		return
	}
	if id, ok := v.str(path, m, "source_call_id", false); ok && idsKnown && !callIDs[id] {
		v.add(join(path, "source_call_id"), RuleSourceCallID, "source_call_id %q is not among this step's tool_call_ids", id)
	}
	if c, ok := present(m, "content"); ok {
		v.content(join(path, "content"), c, false)
	}
	v.refs(path, m)
	v.dict(path, m, "extra", false)
}

// refs checks the subagent_trajectory_ref list of result m at path, if
// it has one.
func (v *validator) refs(path string, m map[string]any) {
	if refs, ok := v.list(path, m, "subagent_trajectory_ref", false); ok {
		for j, ref := range refs {
			v.ref(index(join(path, "subagent_trajectory_ref"), j), ref)
		}
	}
}

func (v *validator) ref(path string, val any) {
	m, ok := v.object(path, val, refFields)
	if !ok {
		return
	}
	for _, k := range []string{"trajectory_id", "session_id", "trajectory_path"} {
		v.str(path, m, k, false)
	}
	v.dict(path, m, "extra", false)
	// A blank string resolves nothing either; treating it as unset keeps
	// every accepted document valid after Encode, which omits an empty one.
	id, file := unlessBlank(m, "trajectory_id"), unlessBlank(m, "trajectory_path")
	switch {
	case id == "" && file == "":
		v.add(path, RuleUnresolvableRef, "a subagent trajectory ref needs a trajectory_id or trajectory_path that is not blank; session_id alone does not resolve")
	case file == "" && !v.embedded[id]:
		v.add(join(path, "trajectory_id"), RuleUnresolvableRef, "trajectory_id %q names none of this trajectory's subagent_trajectories", id)
	}
}

// unlessBlank returns the string m sets field k to, or "" when it is
// unset, blank or not a string.
func unlessBlank(m map[string]any, k string) string {
	s, _ := m[k].(string)
	if blank(s) {
		return ""
	}
	return s
}

func (v *validator) metrics(path string, m map[string]any) {
	v.checkKeys(path, m, metricsFields)
	for _, k := range []string{"prompt_tokens", "completion_tokens", "cached_tokens"} {
		v.integer(path, m, k, false)
	}
	v.number(path, m, "cost_usd", false)
	for _, k := range []string{"prompt_token_ids", "completion_token_ids"} {
		items(v, path, m, k, asInteger, "an integer")
	}
	items(v, path, m, "logprobs", asFloat, "a number")
	v.dict(path, m, "extra", false)
}

// items checks that the list under key k of m at path, when there is
// one, holds only items that read accepts, what names as want.
func items[T any](v *validator, path string, m map[string]any, k string, read func(any) (T, bool), want string) {
	list, ok := v.list(path, m, k, false)
	if !ok {
		return
	}
	for i, it := range list {
		if _, ok := read(it); !ok {
			v.add(index(join(path, k), i), RuleType, "expected %s, got %s", want, describe(it))
		}
	}
}

func (v *validator) finalMetrics(path string, m map[string]any) {
	v.checkKeys(path, m, finalMetricsFields)
	for _, k := range []string{"total_prompt_tokens", "total_completion_tokens", "total_cached_tokens"} {
		v.integer(path, m, k, false)
	}
	v.number(path, m, "total_cost_usd", false)
	if n, ok := v.integer(path, m, "total_steps", false); ok && n < 0 {
		v.add(join(path, "total_steps"), RuleMinimum, "total_steps must be at least 0, got %d", n)
	}
	v.dict(path, m, "extra", false)
}
