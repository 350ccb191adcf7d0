package recorder

import (
	"encoding/json"
	"time"
	"unsafe"

	"github.com/cloudwego/eino/schema"
)

// Kind names what a record describes. It is written as the record's "kind"
// field. Kinds this package does not know decode as *Unknown. Kind is a
// string value and safe for concurrent use.
type Kind string

// The kinds this version writes.
const (
	KindRunStarted    Kind = "run_started"
	KindRunEnded      Kind = "run_ended"
	KindModelRequest  Kind = "model_request"
	KindModelResponse Kind = "model_response"
	KindMessage       Kind = "message"
	KindToolStarted   Kind = "tool_started"
	KindToolEnded     Kind = "tool_ended"
	KindAssessment    Kind = "assessment"
	KindBudget        Kind = "budget"
	KindExtension     Kind = "extension"
)

// Payload is the kind-specific body of a record. The implementations are
// the pointer types in this file (*RunStarted, *ToolEnded, ...) plus
// *Unknown, so a type switch on Record.Payload covers every case.
//
// A payload is treated as immutable once it is part of a written record:
// sinks may hold it, and the recorder copies what it changes (redaction,
// truncation) rather than editing the caller's values.
type Payload interface {
	Kind() Kind
}

// RunLimits are the run's limits as recorded in run_started. A zero field
// means "no limit", so the zero RunLimits is unlimited.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type RunLimits struct {
	Timeout       time.Duration `json:"timeout_ns,omitempty"`
	Deadline      time.Time     `json:"deadline,omitzero"`
	MaxTokens     int64         `json:"max_tokens,omitempty"`
	MaxToolCalls  int64         `json:"max_tool_calls,omitempty"`
	MaxModelCalls int64         `json:"max_model_calls,omitempty"`
}

// Thresholds are the shares of a limit left (from 0 to 1) at or below
// which the run's Resource observer speaks with caution and with a
// warning, as run_started records them for a run that has one. A report
// draws its bands there.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Thresholds struct {
	CautionAt float64 `json:"caution_at"`
	WarningAt float64 `json:"warning_at"`
}

// RunStarted is the first record of a run.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
//
// ConversationID and Turn place a root run in its conversation: runs that
// share a session, or that a driver such as a conversation simulator
// names as turns of one conversation, carry one ConversationID, and Turn
// counts them from 0. Runs recorded before the fields existed, and child
// runs, have neither. AgentVersion and AgentModel describe the agent, as
// configured. ParentToolCallID names the tool call of the parent run that
// started a child run (a sub-agent called as a tool), and is empty for a
// root run and for a child not started by a tool call. A record read
// from a file whose run_started holds that id in its metadata under
// "parent_tool_call_id" has it here instead, and that key is not in
// Metadata. Thresholds is nil for a run without a Resource observer and
// in runs recorded before the field existed.
type RunStarted struct {
	AgentName        string            `json:"agent_name,omitempty"`
	AgentVersion     string            `json:"agent_version,omitempty"`
	AgentModel       string            `json:"agent_model,omitempty"`
	ConversationID   string            `json:"conversation_id,omitempty"`
	Turn             int               `json:"turn,omitempty"`
	ParentToolCallID string            `json:"parent_tool_call_id,omitempty"`
	Limits           RunLimits         `json:"limits"`
	Thresholds       *Thresholds       `json:"thresholds,omitempty"`
	Metadata         map[string]string `json:"metadata,omitempty"`
	Extra            Extras            `json:"extra,omitempty"` // see Extras
}

// Outcome is how a run ended. It is a string value and safe for
// concurrent use.
type Outcome string

// Run outcomes.
const (
	OutcomeCompleted      Outcome = "completed"
	OutcomeError          Outcome = "error"
	OutcomeBudgetExceeded Outcome = "budget_exceeded"
	OutcomeCancelled      Outcome = "cancelled"
)

// RunUsage is what a run's own calls consumed in total: with a budget
// shared by several runs or by sub-agents, each run counts only its own.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
//
// CachedTokens, CacheWriteTokens and ReasoningTokens add up what the
// model responses reported (see TokenUsage), and CostUSD their cost in US
// dollars, zero when no price was configured for their models.
type RunUsage struct {
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	TotalTokens      int64   `json:"total_tokens"`
	CachedTokens     int64   `json:"cached_tokens,omitempty"`
	CacheWriteTokens int64   `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64   `json:"reasoning_tokens,omitempty"`
	CostUSD          float64 `json:"cost_usd,omitempty"`
	ToolCalls        int64   `json:"tool_calls"`
	ModelCalls       int64   `json:"model_calls"`
}

// RunEnded is the last record of a run.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type RunEnded struct {
	Outcome    Outcome  `json:"outcome"`
	Error      string   `json:"error,omitempty"`
	StopReason string   `json:"stop_reason,omitempty"`
	Usage      RunUsage `json:"usage"`
}

// ModelRequest describes one model call as it is sent.
//
// Tools always names the tools offered. ToolDefinitions holds their full
// definitions only when the offered set is new to the run: on the run's
// first request that offers tools and whenever the set changes. Other
// requests leave it empty, and a reader takes each named tool's
// definition from the run's latest request that carried one. Records
// written before the field existed have no definitions at all.
//
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type ModelRequest struct {
	Model           string           `json:"model,omitempty"`
	MessageCount    int              `json:"message_count"`
	Tools           []string         `json:"tools,omitempty"`            // names of the tools offered
	ToolDefinitions []ToolDefinition `json:"tool_definitions,omitempty"` // full definitions, when the offered set is new to the run
	ToolsWithheld   bool             `json:"tools_withheld,omitempty"`   // tools were removed, e.g. for a wrap-up turn
	Stream          bool             `json:"stream,omitempty"`           // the call asked for a streamed reply
	// Injected lists the messages Lookout added to the call's input, as
	// the model received them. A recorder that records them writes an
	// empty list for a call that got none; records written before the
	// field existed have none at all (nil), and say nothing either way.
	Injected []InjectedMessage `json:"injected,omitzero"`
}

// InjectedMessage is a message Lookout added to a model call's input:
// the current assessment or the wrap-up reminder. Kind says which
// ("assessment" or "wrap_up"), and Role and Content are the message as
// the model received it. Injected messages are the last messages of the
// input, in the order listed. AfterCallIndex names the assessment's tool
// call, as the assessment record does; -1 when unknown.
//
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type InjectedMessage struct {
	Kind           string `json:"kind"`
	Role           string `json:"role"`
	Content        string `json:"content"`
	AfterCallIndex int    `json:"after_call_index,omitempty"`
}

// The kinds of InjectedMessage.
const (
	InjectedAssessment = "assessment"
	InjectedWrapUp     = "wrap_up"
)

// ToolDefinition is a tool as it was offered to the model: its name, the
// description the model reads and the JSON Schema of its arguments.
// Parameters is nil for a tool that takes no arguments; otherwise it is
// the schema exactly as sent, usually an object schema. The recorder's
// redactors run over Description and Parameters like any other free
// text. The zero value is a tool with an empty name.
//
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type ToolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// TokenUsage is one model call's token usage, as its provider reported
// it. CachedTokens (prompt tokens read from the provider's cache) and
// CacheWriteTokens (prompt tokens written to it) count inside
// PromptTokens, and ReasoningTokens inside CompletionTokens.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type TokenUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	CachedTokens     int64 `json:"cached_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64 `json:"reasoning_tokens,omitempty"`
}

// ModelResponse is one model call's answer. UsageReported tells "the
// provider reported zero tokens" (true, zero Usage) from "the provider
// reported nothing" (false).
//
// Model and Provider name the model that answered and its
// implementation: a per-call model option when the call had one, or else
// what the model's own callbacks reported (Eino's callback config and run
// info type, such as "OpenAI"), or else the agent's configured model.
// CostUSD is the call's cost in US dollars from the configured price
// table, zero when the model has no price. Error is the error of an
// attempt that failed, which has no Message and reported no usage: it
// counts as a model call, as the budget counts it.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type ModelResponse struct {
	Message       *schema.Message `json:"message,omitempty"`
	Usage         TokenUsage      `json:"usage"`
	UsageReported bool            `json:"usage_reported"`
	FinishReason  string          `json:"finish_reason,omitempty"`
	Latency       time.Duration   `json:"latency_ns,omitempty"`
	Extra         Extras          `json:"extra,omitempty"` // see Extras
	Model         string          `json:"model,omitempty"`
	Provider      string          `json:"provider,omitempty"`
	CostUSD       float64         `json:"cost_usd,omitempty"`
	Error         string          `json:"error,omitempty"`
}

// Message records a message of a model call's input that no other record
// holds: a user or system message, or, from the caller's history or from
// what the runtime passes on from the query's earlier agents, an
// assistant or tool message. Origin says where it came from; it is empty
// in records written before the field existed.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Message struct {
	Message *schema.Message `json:"message,omitempty"`
	Extra   Extras          `json:"extra,omitempty"` // see Extras
	Origin  Origin          `json:"origin,omitempty"`
}

// Origin says where a recorded input message came from. It is a string
// value and safe for concurrent use.
type Origin string

// The origins of recorded input messages. The other messages of a model
// call's input are recorded where they come from: the model's replies as
// model responses, tool results as tool_ended records, and what Lookout
// injected (assessments, wrap-up reminders) in the model request.
const (
	// OriginHistory is the caller's history: the messages before the
	// query passed to the run (Runner.Run), earlier turns included.
	OriginHistory Origin = "history"
	// OriginQuery is the user's query: the messages after the last
	// reply or tool result of what was passed to the run.
	OriginQuery Origin = "query"
	// OriginContext is what the runtime passes an agent from the
	// query's earlier agents: a transfer's hand-over and the other
	// agents' messages, which Eino rewrites as "For context: ..." user
	// messages, and the agent's own earlier messages.
	OriginContext Origin = "context"
	// OriginRequest is the request of the tool call that runs an agent
	// used as a tool.
	OriginRequest Origin = "request"
	// OriginAgent is what the agent wrote into its own input: its
	// instruction, and prompts its code composes (a planner's).
	OriginAgent Origin = "agent"
)

// ToolStarted records a tool call about to run. Arguments longer than the
// recorder's limit are cut; ArgumentsBytes keeps the full size. MCPServer
// and MCPTool name the MCP server that serves the tool and the tool's name
// there, for a tool served by one (empty otherwise). Control marks a call
// of a control tool (lookout.Config.ControlTools), which steers the run
// and is not charged to its budget.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type ToolStarted struct {
	CallID             string `json:"call_id,omitempty"`
	Name               string `json:"name"`
	Arguments          string `json:"arguments,omitempty"`
	ArgumentsBytes     int    `json:"arguments_bytes,omitempty"`
	ArgumentsTruncated bool   `json:"arguments_truncated,omitempty"`
	CallIndex          int    `json:"call_index"`
	MCPServer          string `json:"mcp_server,omitempty"`
	MCPTool            string `json:"mcp_tool,omitempty"`
	Control            bool   `json:"control,omitempty"`
}

// ToolEnded records a tool call's result. Results longer than the
// recorder's limit are cut; ResultBytes keeps the full size. Result is
// what the model read: for a call that failed and whose error reached the
// model as a message, that message ("Error: <text>"), with the error's
// own text in Error; for a call the budget refused, the refusal.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type ToolEnded struct {
	CallID      string        `json:"call_id,omitempty"`
	Name        string        `json:"name"`
	Result      string        `json:"result,omitempty"`
	ResultBytes int           `json:"result_bytes,omitempty"`
	Truncated   bool          `json:"truncated,omitempty"`
	IsError     bool          `json:"is_error,omitempty"`
	Error       string        `json:"error,omitempty"`
	Duration    time.Duration `json:"duration_ns,omitempty"`
	CallIndex   int           `json:"call_index"`
	Parts       []Part        `json:"parts,omitempty"` // the result as text and media parts, when it has media
	Extra       Extras        `json:"extra,omitempty"` // see Extras
}

// ObserverNote is one observer's part in an assessment.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type ObserverNote struct {
	Name     string `json:"name"`
	Severity string `json:"severity,omitempty"`
}

// AssessmentRecord records the block of observations shown to the model.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type AssessmentRecord struct {
	Markdown       string         `json:"markdown"`
	AfterCallIndex int            `json:"after_call_index"`
	Observers      []ObserverNote `json:"observers,omitempty"`
}

// BudgetEvent says what happened to a budget. It is a string value and
// safe for concurrent use.
type BudgetEvent string

// Budget events.
const (
	BudgetCharged  BudgetEvent = "charged"
	BudgetExceeded BudgetEvent = "exceeded"
	// BudgetUnpriced is a model call under a cost limit that no price
	// matched, so that it cost nothing against the limit.
	BudgetUnpriced BudgetEvent = "unpriced"
)

// BudgetRecord records a charge against a limit, or a limit being exceeded.
// Resource names what is counted ("tokens", "tool_calls", "model_calls",
// "time"). For "time", Used and Limit are milliseconds, as in
// budget.ExceededError.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type BudgetRecord struct {
	Event    BudgetEvent `json:"event"`
	Resource string      `json:"resource"`
	Amount   int64       `json:"amount"`
	Used     int64       `json:"used"`
	Limit    int64       `json:"limit"`
}

// Extension is a user-defined record. Body must be valid JSON, or empty,
// when the record has no body: "body" is then left out.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Extension struct {
	Name string          `json:"name"`
	Body json.RawMessage `json:"body,omitempty"`
}

// Unknown holds a record of a kind this version does not know, written by
// a newer writer. Body is the payload exactly as read, and is written back
// byte for byte, so unknown records survive a read-write cycle. A Body
// made in code may be indented: JSON holding newlines, which a line read
// back never does, is written compacted, so the record stays on one line.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Unknown struct {
	Name Kind
	Body json.RawMessage
}

// Kind returns KindRunStarted.
func (*RunStarted) Kind() Kind { return KindRunStarted }

// Kind returns KindRunEnded.
func (*RunEnded) Kind() Kind { return KindRunEnded }

// Kind returns KindModelRequest.
func (*ModelRequest) Kind() Kind { return KindModelRequest }

// Kind returns KindModelResponse.
func (*ModelResponse) Kind() Kind { return KindModelResponse }

// Kind returns KindMessage.
func (*Message) Kind() Kind { return KindMessage }

// Kind returns KindToolStarted.
func (*ToolStarted) Kind() Kind { return KindToolStarted }

// Kind returns KindToolEnded.
func (*ToolEnded) Kind() Kind { return KindToolEnded }

// Kind returns KindAssessment.
func (*AssessmentRecord) Kind() Kind { return KindAssessment }

// Kind returns KindBudget.
func (*BudgetRecord) Kind() Kind { return KindBudget }

// Kind returns KindExtension.
func (*Extension) Kind() Kind { return KindExtension }

// Kind returns the kind as it was read.
func (u *Unknown) Kind() Kind {
	if u == nil {
		return ""
	}
	return u.Name
}

// payloadMakers makes an empty payload of each known kind.
var payloadMakers = map[Kind]func() Payload{
	KindRunStarted:    newOf[RunStarted],
	KindRunEnded:      newOf[RunEnded],
	KindModelRequest:  newOf[ModelRequest],
	KindModelResponse: newOf[ModelResponse],
	KindMessage:       newOf[Message],
	KindToolStarted:   newOf[ToolStarted],
	KindToolEnded:     newOf[ToolEnded],
	KindAssessment:    newOf[AssessmentRecord],
	KindBudget:        newOf[BudgetRecord],
	KindExtension:     newOf[Extension],
}

// newOf returns a new empty payload of type *T.
func newOf[T any, P interface {
	*T
	Payload
}]() Payload {
	return P(new(T))
}

// newPayload returns an empty payload for a known kind, or nil.
func newPayload(k Kind) Payload {
	if newEmpty, ok := payloadMakers[k]; ok {
		return newEmpty()
	}
	return nil
}

// IsNilPayload reports whether p is nil or a nil pointer of one of the
// payload types: a record built in code can hold either, one read from a
// file never does. Such a record carries nothing to read.
func IsNilPayload(p Payload) bool {
	// The second word of an interface holding a pointer is the pointer,
	// and that of one holding any other value points to it: a payload
	// whose second word is not nil is not nil, whatever its type.
	if (*[2]unsafe.Pointer)(unsafe.Pointer(&p))[1] != nil {
		return false
	}
	switch t := p.(type) {
	case nil:
		return true
	case *Unknown:
		return t == nil
	}
	return isNilConversation(p) || isNilEvent(p)
}

// isNilConversation reports whether p is a nil pointer of a run, model or
// message payload.
func isNilConversation(p Payload) bool {
	switch t := p.(type) {
	case *RunStarted:
		return t == nil
	case *RunEnded:
		return t == nil
	case *ModelRequest:
		return t == nil
	case *ModelResponse:
		return t == nil
	case *Message:
		return t == nil
	}
	return false
}

// isNilEvent reports whether p is a nil pointer of a tool, assessment,
// budget or extension payload.
func isNilEvent(p Payload) bool {
	switch t := p.(type) {
	case *ToolStarted:
		return t == nil
	case *ToolEnded:
		return t == nil
	case *AssessmentRecord:
		return t == nil
	case *BudgetRecord:
		return t == nil
	case *Extension:
		return t == nil
	}
	return false
}
