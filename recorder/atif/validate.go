package atif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	RuleDuplicateCallID   Rule = "duplicate_tool_call_id"  // a tool_call_id a step gives two of its calls
	RuleUnresolvableRef   Rule = "unresolvable_ref"        // a subagent ref with neither trajectory_id nor trajectory_path, or whose trajectory_id names none of its trajectory's subagent_trajectories
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
	// embedded holds the trajectory_ids of the subagent_trajectories of
	// the trajectory whose steps are being checked, which its refs must
	// name.
	embedded   map[string]bool
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
	outer := v.embedded
	v.embedded = embeddedIDs(m)
	v.steps(path, m)
	v.embedded = outer
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

// embeddedIDs returns the trajectory_ids of the subagent_trajectories
// of trajectory m.
func embeddedIDs(m map[string]any) map[string]bool {
	subs, _ := m["subagent_trajectories"].([]any)
	ids := make(map[string]bool, len(subs))
	for _, sub := range subs {
		if sm, ok := sub.(map[string]any); ok {
			if id, ok := sm["trajectory_id"].(string); ok && !blank(id) {
				ids[id] = true
			}
		}
	}
	return ids
}

// blank reports whether s holds nothing but white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// subagentID checks that the embedded subagent m at path, the i-th, has
// a trajectory_id that none before it has (seen, by id, gives where each
// was first used), and records it in seen.
func (v *validator) subagentID(p string, m map[string]any, i int, seen map[string]int) {
	switch id := m["trajectory_id"].(type) {
	case nil:
		v.add(join(p, "trajectory_id"), RuleSubagentID, "an embedded subagent trajectory needs a trajectory_id")
	case string:
		if blank(id) {
			v.add(join(p, "trajectory_id"), RuleSubagentID, "an embedded subagent trajectory needs a trajectory_id that is not blank")
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
