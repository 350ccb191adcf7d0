package simulate

import (
	"time"

	"github.com/cloudwego/eino/schema"
)

// Method says how a turn's step was chosen.
//
// A Method is an immutable string, safe for concurrent use.
type Method string

// Selection methods, in the order the runner tries them.
const (
	MethodStart         Method = "start"                 // the graph's start step, on the first turn
	MethodPreconditions Method = "preconditions-ordered" // first eligible step with preconditions, in graph order
	MethodRanked        Method = "llm-ranked"            // best ranker score above RankThreshold
	MethodNone          Method = "none"                  // no step; the user continues toward the goal
)

// Candidate is a step scored by the ranker, in [0, 1].
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type Candidate struct {
	StepID  string   `json:"stepId"`
	Score   float64  `json:"score"`
	Reasons []string `json:"reasons,omitempty"`
}

// Selection records how a turn's step was chosen. Candidates holds every
// usable score the ranker gave (see Ranker), including those at or below
// RankThreshold that were dropped. RankError is set when the ranker failed
// or gave no usable score; Degraded says the scenario chose to go on
// without a step then (see RankerFailure).
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type Selection struct {
	Method     Method      `json:"method"`
	Candidates []Candidate `json:"candidates,omitempty"`
	RankError  string      `json:"rankError,omitempty"`
	Degraded   bool        `json:"degraded,omitempty"`
}

// StopReason says why a run ended.
//
// A StopReason is an immutable string, safe for concurrent use.
type StopReason string

// Stop reasons.
const (
	StopGoalReached     StopReason = "goal-reached"     // the goal check passed (see State.GoalReached)
	StopMaxTurns        StopReason = "max-turns"        // the scenario's turn limit was used up
	StopPolicyViolation StopReason = "policy-violation" // a policy stopped the run
	StopAgentLoop       StopReason = "agent-loop"       // the same step was chosen more than LoopLimit times in a row
	StopError           StopReason = "error"            // the agent or the simulator failed
	StopJudge           StopReason = "judge-stop"       // the judge found a criterion failed for good (Scenario.JudgeEveryTurn)
)

// End describes how a run ended. Passed says whether the run counts as a
// success in a batch report: it completed and every judged criterion
// passed. Completed says whether the run ended
// because its goal was reached: Reason is StopGoalReached and the scenario's
// own criteria (State.GoalReached) hold. A run that stops for any other
// reason is not completed, even if its goals happen to be met by then.
// Error, ErrorSide and ErrorOp (what was being done: "user", "rank",
// "respond", "judge", ...; see RunError) are set when Reason is StopError.
// DegradedTurns
// counts the turns played without a step because the ranker failed and the
// scenario degrades.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type End struct {
	Reason    StopReason   `json:"reason"`
	Completed bool         `json:"completed"`
	Passed    bool         `json:"passed,omitempty"`
	Summary   string       `json:"summary,omitempty"`
	Turns     int          `json:"turns"`
	Goals     []GoalResult `json:"goals,omitempty"`
	Error     string       `json:"error,omitempty"`
	ErrorSide Side         `json:"errorSide,omitempty"`
	ErrorOp   string       `json:"errorOp,omitempty"`
	// ErrorTool names the tool whose failure ended the run (SideTool).
	ErrorTool string `json:"errorTool,omitempty"`

	// Criteria holds the judge's verdict on each of the scenario's
	// criteria, in their order.
	Criteria []CriterionResult `json:"criteria,omitempty"`
	// UnmetGoals lists, for a run the user stopped (StopUser), the goals
	// not met then; "goal not reached" stands for a scenario without named
	// goals whose goal was not reached.
	UnmetGoals []string `json:"unmetGoals,omitempty"`
	// StopMessage is the user's message that stopped the run (StopUser),
	// which never reached the agent.
	StopMessage string `json:"stopMessage,omitempty"`

	DegradedTurns int `json:"degradedTurns,omitempty"`
}

// StepTrace is one turn: the simulated user's message, everything the agent
// answered (assistant and tool messages, in order), and the step it served.
// StepID is empty when no step was selected. End is set on the last trace
// only.
//
// A StepTrace is not modified after its run ends; it is then safe for
// concurrent reads.
type StepTrace struct {
	Turn      int               `json:"turnIndex"`
	User      *schema.Message   `json:"userMessage"`
	Agent     []*schema.Message `json:"agentMessages"`
	Timestamp time.Time         `json:"timestamp"`
	StepID    string            `json:"stepId,omitempty"`
	Selection Selection         `json:"selection"`
	// Interrupts lists the interrupts the agent raised in the turn and how
	// the scenario answered them.
	Interrupts []Interruption `json:"interrupts,omitempty"`
	End        *End           `json:"end,omitempty"`
}

// Result is a finished run. Traces are the source of truth; the other
// fields are derived from them and kept for convenience. A Result is not
// modified after Run returns and may then be read concurrently.
type Result struct {
	ConversationID string      `json:"conversationId"`
	Scenario       *Scenario   `json:"-"`
	Traces         []StepTrace `json:"traces"`
	Steps          []StepState `json:"stepStates,omitempty"`
	ToolCalls      []ToolCall  `json:"toolCalls,omitempty"`
	End            End         `json:"end"`
	// Usage is what each role's model did, by role (RoleUser, ...).
	Usage map[string]*ModelUsage `json:"usage,omitempty"`

	// keepSecrets is the Runner's KeepSecrets.
	keepSecrets bool
}

// Conversation returns the whole conversation in order: each user message
// followed by the agent's messages of that turn.
func (r *Result) Conversation() []*schema.Message {
	n := 0
	for _, t := range r.Traces {
		n += 1 + len(t.Agent)
	}
	out := make([]*schema.Message, 0, n)
	for _, t := range r.Traces {
		if t.User != nil {
			out = append(out, t.User)
		}
		out = append(out, t.Agent...)
	}
	return out
}

// Summary returns a short human-readable account of the run.
func (r *Result) Summary() string { return r.End.Summary }
