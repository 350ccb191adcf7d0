package atif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Rule names one ATIF rule a document can break.
type Rule string

// The rules Validate enforces.
const (
	RuleSyntax            Rule = "syntax"                  // not JSON, or not a JSON object
	RuleUnknownField      Rule = "unknown_field"           // a key ATIF does not define
	RuleMissingField      Rule = "missing_field"           // a required key is absent
	RuleType              Rule = "type"                    // a value of the wrong JSON type, or null where a value is required
	RuleEnum              Rule = "enum"                    // a value outside a fixed set (source, part type, media type)
	RuleMinimum           Rule = "minimum"                 // a number below its lower bound
	RuleSchemaVersion     Rule = "schema_version"          // not ATIF-v1.0 … ATIF-v1.8
	RuleEmptySteps        Rule = "empty_steps"             // steps is []
	RuleStepOrder         Rule = "step_order"              // step_id is not its 1-based position
	RuleAgentOnly         Rule = "agent_only"              // an agent-only field on a user or system step
	RuleTimestamp         Rule = "timestamp"               // not an ISO 8601 date-time
	RuleSourceCallID      Rule = "source_call_id"          // not among the same step's tool_call_ids
	RuleUnresolvableRef   Rule = "unresolvable_ref"        // a subagent ref with neither trajectory_id nor trajectory_path
	RuleSubagentID        Rule = "subagent_trajectory_id"  // an embedded subagent without a trajectory_id
	RuleDuplicateSubagent Rule = "duplicate_trajectory_id" // two embedded subagents share a trajectory_id
	RuleDeterministicStep Rule = "llm_call_count_zero"     // llm_call_count 0 with metrics or reasoning_content
	RuleContentPart       Rule = "content_part"            // a part whose type disagrees with its text or source
	RuleMediaMissing      Rule = "media_missing"           // a local image or audio file that does not exist
)

// Problem is one broken rule at one place in a document. Path is the JSON
// path of the offending value, such as
// "steps[3].observation.results[0].source_call_id"; it is empty for the
// document as a whole. Problem implements error and unwraps to ErrInvalid.
// It is a plain value, safe for concurrent use.
type Problem struct {
	Path    string
	Rule    Rule
	Message string
}

// String formats the problem as "path: message (rule)".
func (p Problem) String() string {
	path := p.Path
	if path == "" {
		path = "(document)"
	}
	return fmt.Sprintf("%s: %s (%s)", path, p.Message, p.Rule)
}

func (p Problem) Error() string { return "atif: " + p.String() }

// Unwrap returns ErrInvalid.
func (p Problem) Unwrap() error { return ErrInvalid }

// Validate checks an ATIF document against the rules of the upstream
// validator and returns every problem it finds, or nil when the document
// is valid. It works on the raw JSON, so unknown keys and wrong types are
// caught wherever they are, then checks the rules that span fields. It
// does not look at the file system: use ValidateFile for media checks.
func Validate(data []byte) []Problem {
	v := &validator{}
	v.document(data)
	return v.problems
}

// FileOptions tune ValidateFile. The zero value (and nil) checks media.
// ValidateFile only reads them, so one value may be shared.
type FileOptions struct {
	// SkipMedia turns off the check that local image and audio files
	// exist.
	SkipMedia bool
}

// ValidateFile reads and validates the document at name. Local image and
// audio paths are checked relative to the file's directory unless
// opts.SkipMedia is set; URLs (anything with "://") are not checked. The
// error is for reading the file only; problems are returned separately.
func ValidateFile(name string, opts *FileOptions) ([]Problem, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("atif: validate: %w", err)
	}
	return ValidateIn(filepath.Dir(name), data, opts), nil
}

// ValidateIn validates a document already read, as ValidateFile validates
// a file in dir: local image and audio paths are checked relative to dir
// unless opts.SkipMedia is set. It is for documents read from a stream,
// such as standard input, that should still have their media checked.
func ValidateIn(dir string, data []byte, opts *FileOptions) []Problem {
	v := &validator{}
	if opts == nil || !opts.SkipMedia {
		v.mediaDir = dir
		v.checkMedia = true
	}
	v.document(data)
	return v.problems
}

// Validate encodes t and validates the result. It returns nil or a
// *ValidationError.
func (t *Trajectory) Validate() error {
	data, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if problems := Validate(data); problems != nil {
		return &ValidationError{Problems: problems}
	}
	return nil
}

type validator struct {
	problems   []Problem
	checkMedia bool
	mediaDir   string
	pending    map[string]bool // media paths written with the document, which need not exist yet
}

func (v *validator) add(path string, rule Rule, format string, args ...any) {
	v.problems = append(v.problems, Problem{Path: path, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) document(data []byte) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		v.add("", RuleSyntax, "not valid JSON: %v", err)
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		v.add("", RuleSyntax, "trailing data after the document")
		return
	}
	if _, ok := doc.(map[string]any); !ok {
		v.add("", RuleSyntax, "the document must be a JSON object, got %s", jsonType(doc))
		return
	}
	v.trajectory("", doc)
}

// fields maps each key an object may hold to whether it is required.
type fields map[string]bool

var (
	trajectoryFields = fields{
		"schema_version": false, "session_id": false, "trajectory_id": false,
		"agent": true, "steps": true, "notes": false, "final_metrics": false,
		"continued_trajectory_ref": false, "extra": false, "subagent_trajectories": false,
	}
	agentFields = fields{
		"name": true, "version": true, "model_name": false, "tool_definitions": false, "extra": false,
	}
	stepFields = fields{
		"step_id": true, "timestamp": false, "source": true, "model_name": false,
		"reasoning_effort": false, "message": true, "reasoning_content": false,
		"tool_calls": false, "observation": false, "metrics": false,
		"is_copied_context": false, "llm_call_count": false, "extra": false,
	}
	toolCallFields    = fields{"tool_call_id": true, "function_name": true, "arguments": true, "extra": false}
	observationFields = fields{"results": true}
	resultFields      = fields{
		"source_call_id": false, "content": false, "subagent_trajectory_ref": false, "extra": false,
	}
	refFields     = fields{"trajectory_id": false, "session_id": false, "trajectory_path": false, "extra": false}
	metricsFields = fields{
		"prompt_tokens": false, "completion_tokens": false, "cached_tokens": false, "cost_usd": false,
		"prompt_token_ids": false, "completion_token_ids": false, "logprobs": false, "extra": false,
	}
	finalMetricsFields = fields{
		"total_prompt_tokens": false, "total_completion_tokens": false, "total_cached_tokens": false,
		"total_cost_usd": false, "total_steps": false, "extra": false,
	}
	partFields        = fields{"type": true, "text": false, "source": false}
	imageSourceFields = fields{"media_type": true, "path": true}
	audioSourceFields = fields{"media_type": true, "path": true, "duration_sec": false}

	// agentOnly are the step fields that only agent steps may set.
	agentOnly = []string{"model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"}
)

func (v *validator) trajectory(path string, val any) {
	m, ok := v.object(path, val, trajectoryFields)
	if !ok {
		return
	}
	v.schemaVersion(path, m)
	for _, k := range []string{"session_id", "trajectory_id", "notes", "continued_trajectory_ref"} {
		v.str(path, m, k, false)
	}
	if a, ok := v.dict(path, m, "agent", true); ok {
		v.agent(join(path, "agent"), a)
	}
	v.steps(path, m)
	if fm, ok := v.dict(path, m, "final_metrics", false); ok {
		v.finalMetrics(join(path, "final_metrics"), fm)
	}
	v.dict(path, m, "extra", false)
	if subs, ok := v.list(path, m, "subagent_trajectories", false); ok {
		v.subagents(join(path, "subagent_trajectories"), subs)
	}
}

// schemaVersion checks that the trajectory m at path, if it names its
// schema_version, names one of the versions this package knows.
func (v *validator) schemaVersion(path string, m map[string]any) {
	if s, ok := v.str(path, m, "schema_version", false); ok && !KnownVersion(s) {
		v.add(join(path, "schema_version"), RuleSchemaVersion, "unknown schema_version %q (want ATIF-v1.0 … ATIF-v1.8)", s)
	}
}

// steps checks the steps of the trajectory m at path: there must be at
// least one, and each is checked against its position, counted from 1.
func (v *validator) steps(path string, m map[string]any) {
	steps, ok := v.list(path, m, "steps", true)
	if !ok {
		return
	}
	stepsPath := join(path, "steps")
	if len(steps) == 0 {
		v.add(stepsPath, RuleEmptySteps, "a trajectory needs at least one step")
	}
	for i, s := range steps {
		v.step(index(stepsPath, i), s, i+1)
	}
}

func (v *validator) subagents(path string, subs []any) {
	seen := make(map[string]int, len(subs))
	for i, sub := range subs {
		p := index(path, i)
		v.trajectory(p, sub)
		if m, ok := sub.(map[string]any); ok {
			v.subagentID(p, m, i, seen)
		}
	}
}

// subagentID checks that the embedded subagent m at path, the i-th, has
// a trajectory_id that none before it has (seen, by id, gives where each
// was first used), and records it in seen.
func (v *validator) subagentID(p string, m map[string]any, i int, seen map[string]int) {
	switch id := m["trajectory_id"].(type) {
	case nil:
		v.add(join(p, "trajectory_id"), RuleSubagentID, "an embedded subagent trajectory needs a trajectory_id")
	case string:
		if id == "" {
			v.add(join(p, "trajectory_id"), RuleSubagentID, "an embedded subagent trajectory needs a non-empty trajectory_id")
			return
		}
		if first, dup := seen[id]; dup {
			v.add(join(p, "trajectory_id"), RuleDuplicateSubagent, "trajectory_id %q is already used by subagent_trajectories[%d]", id, first)
			return
		}
		seen[id] = i
	}
}

func (v *validator) agent(path string, m map[string]any) {
	v.checkKeys(path, m, agentFields)
	v.str(path, m, "name", true)
	v.str(path, m, "version", true)
	v.str(path, m, "model_name", false)
	if defs, ok := v.list(path, m, "tool_definitions", false); ok {
		for i, d := range defs {
			if _, ok := d.(map[string]any); !ok {
				v.add(index(join(path, "tool_definitions"), i), RuleType, "expected an object, got %s", jsonType(d))
			}
		}
	}
	v.dict(path, m, "extra", false)
}

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
		if ok {
			ids[id] = true
		} else {
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
	// An empty string resolves nothing either; treating it as unset keeps
	// every accepted document valid after Encode, which omits it.
	if unsetOrEmpty(m, "trajectory_id") && unsetOrEmpty(m, "trajectory_path") {
		v.add(path, RuleUnresolvableRef, "a subagent trajectory ref needs a non-empty trajectory_id or trajectory_path; session_id alone does not resolve")
	}
}

// unsetOrEmpty reports whether m leaves field k unset or sets it to "".
func unsetOrEmpty(m map[string]any, k string) bool {
	val, set := present(m, k)
	return !set || val == ""
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

// content checks a string-or-parts value. A null is allowed where the
// content is optional.
func (v *validator) content(path string, val any, required bool) {
	switch c := val.(type) {
	case string:
	case nil:
		if required {
			v.add(path, RuleType, "expected a string or a list of content parts, got null")
		}
	case []any:
		for i, p := range c {
			v.part(index(path, i), p)
		}
	default:
		v.add(path, RuleType, "expected a string or a list of content parts, got %s", jsonType(val))
	}
}

func (v *validator) part(path string, val any) {
	m, ok := v.object(path, val, partFields)
	if !ok {
		return
	}
	kind, kindOK := v.partType(path, m)
	v.str(path, m, "text", false)
	_, hasText := present(m, "text")
	source, hasSource := present(m, "source")
	switch {
	case !kindOK:
	case kind == string(PartText):
		v.textPart(path, hasText, hasSource)
	default:
		v.mediaPart(path, kind, hasText, source, hasSource)
	}
}

// partType checks and returns a content part's type. It reports false
// when the type is missing or not one ATIF defines, so that the rules for
// each type are not checked against a guess.
func (v *validator) partType(path string, m map[string]any) (string, bool) {
	kind, ok := v.str(path, m, "type", true)
	if !ok {
		return "", false
	}
	switch PartType(kind) {
	case PartText, PartImage, PartAudio:
		return kind, true
	}
	v.add(join(path, "type"), RuleEnum, "type must be \"text\", \"image\" or \"audio\", got %q", kind)
	return "", false
}

// textPart checks that a text part has text and no source.
func (v *validator) textPart(path string, hasText, hasSource bool) {
	if !hasText {
		v.add(path, RuleContentPart, "a text part needs text")
	}
	if hasSource {
		v.add(join(path, "source"), RuleContentPart, "a text part must not have a source")
	}
}

// mediaPart checks that an image or audio part has a source of its kind
// and no text.
func (v *validator) mediaPart(path, kind string, hasText bool, source any, hasSource bool) {
	if hasText {
		v.add(join(path, "text"), RuleContentPart, "an %s part must not have text", kind)
	}
	if !hasSource {
		v.add(path, RuleContentPart, "an %s part needs a source", kind)
		return
	}
	v.source(join(path, "source"), source, PartType(kind))
}

// source checks a media source against the kind its part declares.
func (v *validator) source(path string, val any, kind PartType) {
	spec := imageSourceFields
	if kind == PartAudio {
		spec = audioSourceFields
	}
	m, ok := v.object(path, val, spec)
	if !ok {
		return
	}
	if mt, ok := v.str(path, m, "media_type", true); ok {
		v.mediaType(join(path, "media_type"), mt, kind)
	}
	v.duration(path, m)
	if p, ok := v.str(path, m, "path", true); ok && v.checkMedia {
		v.mediaExists(join(path, "path"), p, kind)
	}
}

// duration checks that source m at path gives no duration_sec below 0.
func (v *validator) duration(path string, m map[string]any) {
	if d, ok := v.number(path, m, "duration_sec", false); ok && d < 0 {
		v.add(join(path, "duration_sec"), RuleMinimum, "duration_sec must be at least 0, got %v", d)
	}
}

// mediaType checks that a source's media type, at path, is one ATIF
// allows for the kind of its part.
func (v *validator) mediaType(path, mt string, kind PartType) {
	allowed, known := mediaTypesOf[kind]
	switch got := mediaKind(mt); {
	case !known || got == kind:
	case got != "":
		v.add(path, RuleContentPart, "an %s part needs an %s source, got media_type %q", kind, kind, mt)
	default:
		v.add(path, RuleEnum, "%s media_type must be one of %s, got %q", kind, strings.Join(allowed, ", "), mt)
	}
}

// mediaTypesOf are the media types ATIF allows for each kind of media
// part.
var mediaTypesOf = map[PartType][]string{PartImage: imageMediaTypes, PartAudio: audioMediaTypes}

// mediaKind is the kind of media part ATIF allows media type mt for, or
// "" when it allows it for none.
func mediaKind(mt string) PartType {
	switch {
	case acceptedImageType(mt) != "":
		return PartImage
	case acceptedAudioType(mt) != "":
		return PartAudio
	}
	return ""
}

func (v *validator) mediaExists(path, file string, kind PartType) {
	if file == "" || strings.Contains(file, "://") || v.pending[file] {
		return
	}
	full := file
	if !filepath.IsAbs(full) {
		full = filepath.Join(v.mediaDir, file)
	}
	if _, err := os.Stat(full); err != nil {
		v.add(path, RuleMediaMissing, "referenced %s file does not exist: %s", kind, file)
	}
}

// object checks that val is an object holding only known keys and every
// required key.
func (v *validator) object(path string, val any, spec fields) (map[string]any, bool) {
	m, ok := val.(map[string]any)
	if !ok {
		v.add(path, RuleType, "expected an object, got %s", jsonType(val))
		return nil, false
	}
	v.checkKeys(path, m, spec)
	return m, true
}

func (v *validator) checkKeys(path string, m map[string]any, spec fields) {
	for _, k := range sortedKeys(m) {
		if _, known := spec[k]; !known {
			v.add(join(path, k), RuleUnknownField, "unexpected field (not part of ATIF)")
		}
	}
	for _, k := range sortedKeys(spec) {
		if _, has := m[k]; spec[k] && !has {
			v.add(join(path, k), RuleMissingField, "required field is missing")
		}
	}
}

// value returns m[key] when it is set to something other than null. A
// null in a required field is reported; a missing one was reported by
// checkKeys already.
func (v *validator) value(path string, m map[string]any, key string, required bool, want string) (any, bool) {
	x, has := m[key]
	if !has {
		return nil, false
	}
	if x == nil {
		if required {
			v.add(join(path, key), RuleType, "expected %s, got null", want)
		}
		return nil, false
	}
	return x, true
}

func (v *validator) str(path string, m map[string]any, key string, required bool) (string, bool) {
	x, ok := v.value(path, m, key, required, "a string")
	if !ok {
		return "", false
	}
	s, ok := x.(string)
	if !ok {
		v.add(join(path, key), RuleType, "expected a string, got %s", jsonType(x))
	}
	return s, ok
}

func (v *validator) integer(path string, m map[string]any, key string, required bool) (int64, bool) {
	x, ok := v.value(path, m, key, required, "an integer")
	if !ok {
		return 0, false
	}
	n, ok := asInteger(x)
	if !ok {
		v.add(join(path, key), RuleType, "expected an integer, got %s", describe(x))
	}
	return n, ok
}

func (v *validator) number(path string, m map[string]any, key string, required bool) (float64, bool) {
	x, ok := v.value(path, m, key, required, "a number")
	if !ok {
		return 0, false
	}
	f, ok := asFloat(x)
	if !ok {
		v.add(join(path, key), RuleType, "expected a number, got %s", describe(x))
	}
	return f, ok
}

func (v *validator) boolean(path string, m map[string]any, key string) {
	if x, ok := v.value(path, m, key, false, "a boolean"); ok {
		if _, isBool := x.(bool); !isBool {
			v.add(join(path, key), RuleType, "expected a boolean, got %s", jsonType(x))
		}
	}
}

func (v *validator) dict(path string, m map[string]any, key string, required bool) (map[string]any, bool) {
	x, ok := v.value(path, m, key, required, "an object")
	if !ok {
		return nil, false
	}
	d, ok := x.(map[string]any)
	if !ok {
		v.add(join(path, key), RuleType, "expected an object, got %s", jsonType(x))
	}
	return d, ok
}

func (v *validator) list(path string, m map[string]any, key string, required bool) ([]any, bool) {
	x, ok := v.value(path, m, key, required, "a list")
	if !ok {
		return nil, false
	}
	l, ok := x.([]any)
	if !ok {
		v.add(join(path, key), RuleType, "expected a list, got %s", jsonType(x))
	}
	return l, ok
}

// present returns m[key] when it is set and not null.
func present(m map[string]any, key string) (any, bool) {
	x, ok := m[key]
	return x, ok && x != nil
}

// asInteger accepts JSON integers: a number written without a fraction or
// exponent that fits in 64 bits. The upstream models also take 3.0 for 3;
// this validator does not, so that every document it accepts decodes into
// the Go types.
func asInteger(x any) (int64, bool) {
	n, ok := x.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// asFloat accepts JSON numbers that fit in a float64.
func asFloat(x any) (float64, bool) {
	n, ok := x.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func jsonType(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

// describe is jsonType, quoting numbers so that 1.5 or 1e999 reads as
// the reason an integer or float was refused.
func describe(x any) string {
	if n, ok := x.(json.Number); ok {
		return "the number " + n.String()
	}
	return jsonType(x)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
