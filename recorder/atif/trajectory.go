package atif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Version is the ATIF schema version that exports declare.
const Version = "ATIF-v1.8"

// versions lists every schema_version a reader accepts, oldest first.
var versions = []string{
	"ATIF-v1.0", "ATIF-v1.1", "ATIF-v1.2", "ATIF-v1.3", "ATIF-v1.4",
	"ATIF-v1.5", "ATIF-v1.6", "ATIF-v1.7", "ATIF-v1.8",
}

// KnownVersion reports whether v is a schema_version this package reads.
func KnownVersion(v string) bool { return slices.Contains(versions, v) }

// Trajectory is one ATIF document: an agent, its ordered steps and, from
// v1.7, the trajectories of the subagents it delegated to.
//
// Optional strings are omitted when empty (an empty SchemaVersion too,
// which readers take as the latest version), optional numbers are pointers
// so that an explicit 0 survives a round trip, and Extra maps are omitted
// only when nil (an empty map is written as {}). The zero value is not a
// valid document: it needs an agent and at least one step.
//
// A Trajectory is plain data: safe for concurrent reads, not for a write
// concurrent with anything else.
type Trajectory struct {
	SchemaVersion          string         `json:"schema_version,omitempty"`
	SessionID              string         `json:"session_id,omitempty"`
	TrajectoryID           string         `json:"trajectory_id,omitempty"`
	Agent                  Agent          `json:"agent"`
	Steps                  []Step         `json:"steps"`
	Notes                  string         `json:"notes,omitempty"`
	FinalMetrics           *FinalMetrics  `json:"final_metrics,omitempty"`
	ContinuedTrajectoryRef string         `json:"continued_trajectory_ref,omitempty"`
	Extra                  map[string]any `json:"extra,omitzero"`
	SubagentTrajectories   []Trajectory   `json:"subagent_trajectories,omitzero"`

	media map[string][]byte // files to write next to the document; see MediaFiles
}

// Agent describes the agent system that produced a trajectory. ModelName
// is the default model; a step's own ModelName overrides it. Each entry of
// ToolDefinitions is an OpenAI-style {"type":"function","function":{...}}
// object. Safe for concurrent reads.
type Agent struct {
	Name            string           `json:"name"`
	Version         string           `json:"version"`
	ModelName       string           `json:"model_name,omitempty"`
	ToolDefinitions []map[string]any `json:"tool_definitions,omitzero"`
	Extra           map[string]any   `json:"extra,omitzero"`
}

// Source says who originated a step.
type Source string

// The three step sources ATIF knows.
const (
	SourceSystem Source = "system"
	SourceUser   Source = "user"
	SourceAgent  Source = "agent"
)

// Step is one turn of a trajectory. StepID runs 1..N in array order.
// ModelName, ReasoningEffort, ReasoningContent, ToolCalls and Metrics are
// allowed on agent steps only. Safe for concurrent reads.
type Step struct {
	StepID           int            `json:"step_id"`
	Timestamp        string         `json:"timestamp,omitempty"`
	Source           Source         `json:"source"`
	ModelName        string         `json:"model_name,omitempty"`
	ReasoningEffort  *Effort        `json:"reasoning_effort,omitempty"`
	Message          Content        `json:"message"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall     `json:"tool_calls,omitzero"`
	Observation      *Observation   `json:"observation,omitempty"`
	Metrics          *Metrics       `json:"metrics,omitempty"`
	IsCopiedContext  bool           `json:"is_copied_context,omitempty"`
	LLMCallCount     *int           `json:"llm_call_count,omitempty"`
	Extra            map[string]any `json:"extra,omitzero"`
}

// ToolCall is one action an agent step asked for. Arguments holds a JSON
// object; nil is written as {}. Safe for concurrent reads.
type ToolCall struct {
	ID           string          `json:"tool_call_id"`
	FunctionName string          `json:"function_name"`
	Arguments    json.RawMessage `json:"arguments"`
	Extra        map[string]any  `json:"extra,omitzero"`
}

// MarshalJSON writes a nil or empty Arguments as {} so the document stays
// valid.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	if len(bytes.TrimSpace(c.Arguments)) == 0 {
		c.Arguments = json.RawMessage("{}")
	}
	return marshal(plain(c))
}

// Observation is the environment's feedback on a step. Results is
// required; nil is written as []. Safe for concurrent reads.
type Observation struct {
	Results []ObservationResult `json:"results"`
}

// MarshalJSON writes a nil Results as [].
func (o Observation) MarshalJSON() ([]byte, error) {
	type plain Observation
	if o.Results == nil {
		o.Results = []ObservationResult{}
	}
	return marshal(plain(o))
}

// ObservationResult is one piece of feedback. SourceCallID links it to a
// ToolCall of the same step; empty means it answers no particular call.
// Content is nil when absent. SubagentTrajectoryRef points at the
// trajectories of subagents the call delegated to. Safe for concurrent
// reads.
type ObservationResult struct {
	SourceCallID          string                  `json:"source_call_id,omitempty"`
	Content               *Content                `json:"content,omitempty"`
	SubagentTrajectoryRef []SubagentTrajectoryRef `json:"subagent_trajectory_ref,omitzero"`
	Extra                 map[string]any          `json:"extra,omitzero"`
}

// SubagentTrajectoryRef points at a delegated trajectory: TrajectoryID
// names an entry of the root's SubagentTrajectories (embedded form),
// TrajectoryPath a file relative to the trajectory's folder (file form).
// At least one of the two must be set; SessionID is informational. Safe
// for concurrent reads.
type SubagentTrajectoryRef struct {
	TrajectoryID   string         `json:"trajectory_id,omitempty"`
	SessionID      string         `json:"session_id,omitempty"`
	TrajectoryPath string         `json:"trajectory_path,omitempty"`
	Extra          map[string]any `json:"extra,omitzero"`
}

// Metrics are one step's model usage. PromptTokens includes CachedTokens.
// Nil fields are unknown, which is different from zero. Safe for
// concurrent reads.
type Metrics struct {
	PromptTokens       *int           `json:"prompt_tokens,omitempty"`
	CompletionTokens   *int           `json:"completion_tokens,omitempty"`
	CachedTokens       *int           `json:"cached_tokens,omitempty"`
	CostUSD            *float64       `json:"cost_usd,omitempty"`
	PromptTokenIDs     []int          `json:"prompt_token_ids,omitzero"`
	CompletionTokenIDs []int          `json:"completion_token_ids,omitzero"`
	Logprobs           []float64      `json:"logprobs,omitzero"`
	Extra              map[string]any `json:"extra,omitzero"`
}

// FinalMetrics are totals over a whole trajectory. Nil fields are unknown.
// Safe for concurrent reads.
type FinalMetrics struct {
	TotalPromptTokens     *int           `json:"total_prompt_tokens,omitempty"`
	TotalCompletionTokens *int           `json:"total_completion_tokens,omitempty"`
	TotalCachedTokens     *int           `json:"total_cached_tokens,omitempty"`
	TotalCostUSD          *float64       `json:"total_cost_usd,omitempty"`
	TotalSteps            *int           `json:"total_steps,omitempty"`
	Extra                 map[string]any `json:"extra,omitzero"`
}

// Effort is a step's reasoning effort, which ATIF allows to be a label
// ("low", "medium") or a number. When Numeric is set the effort is Amount,
// otherwise it is Label; the zero value is the empty label. Safe for
// concurrent reads.
type Effort struct {
	Label   string
	Amount  float64
	Numeric bool
}

// MarshalJSON writes the amount as a number or the label as a string.
func (e Effort) MarshalJSON() ([]byte, error) {
	if e.Numeric {
		return json.Marshal(e.Amount)
	}
	return marshal(e.Label)
}

// UnmarshalJSON reads a string or a number.
func (e *Effort) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		*e = Effort{}
		return json.Unmarshal(data, &e.Label)
	}
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("reasoning_effort: %w", err)
	}
	*e = Effort{Amount: f, Numeric: true}
	return nil
}

// Decode reads one ATIF document. Numbers inside free-form maps (Extra,
// tool definitions) decode as json.Number so large integers keep their
// precision. A key given twice in one object takes its last value, as in
// Python. Decode checks JSON types only; run Validate on the same bytes
// for the ATIF rules. Errors wrap ErrMalformed.
func Decode(data []byte) (*Trajectory, error) {
	t, err := decodeStrict(data)
	if err == nil {
		return t, nil
	}
	// Go's decoder reports a type error for an earlier duplicate even when
	// the last value fits. Retry with duplicates resolved through a
	// generic value; this loses the key order inside tool arguments, so it
	// is only the fallback.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var generic any
	if dec.Decode(&generic) != nil {
		return nil, err
	}
	if _, terr := dec.Token(); terr != io.EOF {
		return nil, err
	}
	canonical, merr := json.Marshal(generic)
	if merr != nil {
		return nil, err
	}
	if t, cerr := decodeStrict(canonical); cerr == nil {
		return t, nil
	}
	return nil, err
}

func decodeStrict(data []byte) (*Trajectory, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var t Trajectory
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: trailing data after the document", ErrMalformed)
	}
	return &t, nil
}

// Encode writes t as indented JSON, the form WriteFile puts on disk. HTML
// characters are not escaped, so markdown and tags stay readable.
func Encode(t *Trajectory) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// marshal is json.Marshal without HTML escaping, for the types whose
// MarshalJSON would otherwise escape text that Encode leaves alone.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
