package observer

import (
	"maps"
	"time"
)

// ToolCallRecord is the session log entry for one completed tool call.
type ToolCallRecord struct {
	// CallIndex numbers the calls of a session 1, 2, 3, … in the order they
	// completed. The pipeline assigns it; it is dense and unique even when
	// calls run in parallel.
	CallIndex int64  `json:"call_index"`
	CallID    string `json:"call_id,omitempty"`
	ToolName  string `json:"tool_name"`
	// ParamsSummary abbreviates the arguments for evidence lines.
	ParamsSummary string `json:"params_summary,omitempty"`
	// Arguments holds the raw arguments, possibly truncated.
	Arguments string `json:"arguments,omitempty"`
	// Result holds the start of the tool's output, possibly truncated.
	Result       string        `json:"result,omitempty"`
	Success      bool          `json:"success"`
	ErrorMessage string        `json:"error_message,omitempty"`
	Timestamp    time.Time     `json:"timestamp"`
	Duration     time.Duration `json:"duration,omitempty"`
}

// ObserverState is one observer's trigger state.
type ObserverState struct {
	// LastAssessmentCallIndex is the call after which the observer last
	// ran; 0 before its first run.
	LastAssessmentCallIndex int64 `json:"last_assessment_call_index"`
	// LastAssessmentTime is when it last ran; zero before its first run.
	LastAssessmentTime time.Time `json:"last_assessment_time,omitzero"`
	// TotalAssessments counts its runs.
	TotalAssessments int64 `json:"total_assessments"`
}

// CallsSinceAssessment returns the calls completed since the observer last
// ran, given the index of the latest call.
func (s ObserverState) CallsSinceAssessment(callIndex int64) int64 {
	return callIndex - s.LastAssessmentCallIndex
}

// ObserverStates is the session slice holding every observer's state,
// keyed by observer name. It is a [session.Cloner]: readers of the
// session value get clones, and the pipeline updates the stored map in
// place.
type ObserverStates map[string]ObserverState

// Clone returns a copy of s.
func (s ObserverStates) Clone() ObserverStates { return maps.Clone(s) }

// Tally is the session slice of run-wide tool-call counters, kept exact
// whatever the log's retention.
type Tally struct {
	Calls             int64 `json:"calls"`
	Failures          int64 `json:"failures"`
	ConsecutiveErrors int64 `json:"consecutive_errors"`
}
