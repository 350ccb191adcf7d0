package summary

import (
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// EfficacyExtension is the extension record name under which feedback
// efficacy events are written: one per observer whenever the agent's
// reaction to an assessment is known. The body is the JSON of
// observer.EfficacyEvent:
//
//	{"observer":"stall","severity":"warning","assessment_call_index":7,
//	 "reaction":"changed_course","call_index":8,
//	 "counts":{"shown":2,"changed_course":1,"wrapped_up":0,"carried_on":1}}
//
// The Eino adapters write counts for the run alone, not for the whole
// session. Analyze counts the reactions per observer. A body that does
// not have this shape is counted in Stats.MalformedEfficacy.
const EfficacyExtension = "lookout.efficacy"

// UnspecifiedSeverity stands in for an observer note recorded without a
// severity.
const UnspecifiedSeverity = "unspecified"

// Unfinished is the outcome reported for a run without a run_ended record:
// still running when the file was read, or cut off by a crash.
const Unfinished = "unfinished"

// MaxFailures is how many failed tool calls a Run lists in Failures; the
// count in Stats.ToolErrors stays exact.
const MaxFailures = 10

// maxFailureText cuts the error text kept for a listed failure.
const maxFailureText = 200

// Tokens counts model tokens as the provider reported them.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently. The zero value is no tokens.
type Tokens struct {
	Prompt     int64 `json:"prompt"`
	Completion int64 `json:"completion"`
	Total      int64 `json:"total"`
	Cached     int64 `json:"cached,omitempty"`
	Reasoning  int64 `json:"reasoning,omitempty"`
}

func (t *Tokens) add(u Tokens) {
	t.Prompt += u.Prompt
	t.Completion += u.Completion
	t.Total += u.Total
	t.Cached += u.Cached
	t.Reasoning += u.Reasoning
}

// Tool is one tool's use. A call is one tool_started record, or a
// tool_ended record that no tool_started announced; the two are paired by
// call id (or call index when the id is empty).
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
//
// MCPServer names the MCP server that served the tool, when its calls
// say so (tool_started.mcp_server), and MCPTool its name there.
type Tool struct {
	Name       string        `json:"name"`
	MCPServer  string        `json:"mcp_server,omitempty"`
	MCPTool    string        `json:"mcp_tool,omitempty"`
	Calls      int           `json:"calls"`
	Errors     int           `json:"errors"`
	Unfinished int           `json:"unfinished,omitempty"` // started and never ended
	Duration   time.Duration `json:"duration_ns"`          // summed over ended calls
	// Control marks a control tool (a transfer, an exit): its calls steer
	// the run and are not charged to the budget.
	Control bool `json:"control,omitempty"`
}

// ErrorRate returns Errors / Calls, or 0 without calls.
func (t Tool) ErrorRate() float64 { return rate(t.Errors, t.Calls) }

// MCPServer is the use of the tools one MCP server served: their calls,
// errors and time, summed, and their names, sorted.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type MCPServer struct {
	Name     string        `json:"name"`
	Tools    []string      `json:"tools"`
	Calls    int           `json:"calls"`
	Errors   int           `json:"errors"`
	Duration time.Duration `json:"duration_ns"`
}

// ObserverAssessments counts one observer's parts in assessments by
// severity.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type ObserverAssessments struct {
	Observer   string         `json:"observer"`
	Count      int            `json:"count"`
	BySeverity map[string]int `json:"by_severity"`
}

// Assessments counts assessment records and the observer notes in them.
// Severities are as recorded; a note without one counts as
// UnspecifiedSeverity.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently. The zero value is no assessments.
type Assessments struct {
	Count      int                   `json:"count"`                 // assessment records
	BySeverity map[string]int        `json:"by_severity,omitempty"` // observer notes by severity
	Observers  []ObserverAssessments `json:"observers,omitempty"`   // sorted by observer name
}

// Efficacy counts one observer's feedback efficacy events (see
// EfficacyExtension): how the agent reacted after being shown its
// assessments.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Efficacy struct {
	Observer      string `json:"observer"`
	Reactions     int    `json:"reactions"`
	ChangedCourse int    `json:"changed_course"`
	WrappedUp     int    `json:"wrapped_up"`
	CarriedOn     int    `json:"carried_on"`
	// Shown is how many of the observer's assessments the model was shown,
	// from the counts in the events: the largest in a run, summed over
	// runs. Lookout's adapters record the counts of each run alone, so
	// runs that shared a session are not counted twice. It can exceed
	// Reactions when a run ended before the agent reacted.
	Shown int64 `json:"shown"`
}

// Followed returns how many reactions followed the feedback: the agent
// changed course or wrapped up.
func (e Efficacy) Followed() int { return e.ChangedCourse + e.WrappedUp }

// FollowRate returns Followed / Reactions, or 0 without reactions.
func (e Efficacy) FollowRate() float64 { return rate(e.Followed(), e.Reactions) }

// Stats are the counters kept for one run and, summed, for all runs.
// Maps are keyed by name and encode in key order; slices are sorted by
// name.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently. The zero value is an empty trajectory.
type Stats struct {
	Records int `json:"records"`
	// Duration is, for a run, run_started to run_ended, or first to last
	// record when either is missing; in Totals, the sum over root runs
	// (child runs overlap their parents).
	Duration               time.Duration  `json:"duration_ns"`
	UserMessages           int            `json:"user_messages"`
	ModelCalls             int            `json:"model_calls"`               // model_response records
	ModelCallsWithoutUsage int            `json:"model_calls_without_usage"` // responses whose provider reported no usage
	Tokens                 Tokens         `json:"tokens"`                    // summed over responses that reported usage
	ToolCalls              int            `json:"tool_calls"`                // calls charged to the budget: control calls are apart
	ControlCalls           int            `json:"control_calls,omitempty"`   // calls of control tools, which the budget does not charge
	ToolErrors             int            `json:"tool_errors"`
	ErrorRate              float64        `json:"error_rate"` // ToolErrors / ToolCalls, 0 without calls
	Tools                  []Tool         `json:"tools,omitempty"`
	MCPServers             []MCPServer    `json:"mcp_servers,omitempty"` // Tools grouped by the MCP server that served them, by name
	Assessments            Assessments    `json:"assessments"`
	BudgetExceeded         map[string]int `json:"budget_exceeded,omitempty"` // budget "exceeded" events by resource
	Efficacy               []Efficacy     `json:"efficacy,omitempty"`
	MalformedEfficacy      int            `json:"malformed_efficacy,omitempty"` // efficacy extensions whose body did not parse
	Extensions             map[string]int `json:"extensions,omitempty"`         // extension records by name, efficacy included
	UnknownKinds           map[string]int `json:"unknown_kinds,omitempty"`      // records of kinds this version does not know
}

// Exceeded is a budget limit a run went past, from a budget record with
// event "exceeded".
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Exceeded struct {
	Seq      uint64 `json:"seq"`
	Resource string `json:"resource"`
	Used     int64  `json:"used"`
	Limit    int64  `json:"limit"`
}

// Failure is a failed tool call, with its error text cut to 200 bytes.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Failure struct {
	Seq    uint64 `json:"seq"` // of the tool_ended record
	Tool   string `json:"tool"`
	CallID string `json:"call_id,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Run is the analysis of one run.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Run struct {
	RunID       string   `json:"run_id"`
	ParentRunID string   `json:"parent_run_id,omitempty"`
	Depth       int      `json:"depth"`
	AgentName   string   `json:"agent_name,omitempty"`
	Children    []string `json:"children,omitempty"` // runs in the records whose parent this is, in order of appearance

	// ConversationID and Turn place a root run in its conversation, as
	// its run_started recorded them (runs of one session, or the turns
	// of a simulated conversation).
	ConversationID string `json:"conversation_id,omitempty"`
	Turn           int    `json:"turn,omitempty"`

	// Started and Ended are the times of run_started and run_ended, or
	// of the first and last record when either is missing.
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`

	Limits     recorder.RunLimits `json:"limits"`
	Outcome    string             `json:"outcome"` // from run_ended, or Unfinished
	StopReason string             `json:"stop_reason,omitempty"`
	Error      string             `json:"error,omitempty"`
	Usage      *recorder.RunUsage `json:"usage,omitempty"` // totals as run_ended reported them; nil without run_ended
	Exceeded   []Exceeded         `json:"exceeded,omitempty"`
	Failures   []Failure          `json:"failures,omitempty"` // the first MaxFailures failed tool calls

	Stats
}

// Totals are the counters of every run together.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Totals struct {
	Runs        int            `json:"runs"`
	RootRuns    int            `json:"root_runs"`
	ChildRuns   int            `json:"child_runs"`
	Outcomes    map[string]int `json:"outcomes,omitempty"` // by outcome, Unfinished included
	StopReasons map[string]int `json:"stop_reasons,omitempty"`

	Stats
}

// Report is the analysis of a set of records: each run, and all of them
// together. Runs are in order of first appearance; everything else is
// sorted by name, so the same records always give the same report.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently. The zero Report describes no records.
type Report struct {
	// Roots are the runs whose parent is not in the records, and of runs
	// whose parents loop back to them (a damaged file), the first.
	Roots []string `json:"roots,omitempty"`
	// Conversations are the conversations whose runs the records hold,
	// each with its root runs in turn order, in order of first
	// appearance.
	Conversations []Conversation `json:"conversations,omitempty"`
	Runs          []Run          `json:"runs"`
	Total         Totals         `json:"total"`
}

// Conversation is one conversation of a Report: its id, and its root
// runs (its turns) ordered by turn, then by appearance.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Conversation struct {
	ID    string   `json:"id"`
	Turns []string `json:"turns"`
}
