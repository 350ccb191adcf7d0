package simulate

import (
	"errors"
	"fmt"
)

// Sentinel errors. Typed errors in this package unwrap to one of them, so
// callers branch with errors.Is and read details with errors.As.
var (
	// ErrInvalidScenario reports a scenario that cannot be run: no goal,
	// duplicate or unknown step ids, a precondition with no check, steps
	// that wait for each other through After.
	ErrInvalidScenario = errors.New("simulate: invalid scenario")

	// ErrNoUserModel reports a Runner without a UserModel.
	ErrNoUserModel = errors.New("simulate: runner has no user model")

	// ErrNoTarget reports a run or batch without an agent to talk to.
	ErrNoTarget = errors.New("simulate: no target")

	// ErrAgent marks a run that ended because the agent under test failed.
	ErrAgent = errors.New("simulate: agent failed")

	// ErrTool marks a run that ended because a tool the agent called
	// failed and the agent's turn failed with it (see SideTool).
	ErrTool = errors.New("simulate: tool failed")

	// ErrSimulator marks a run that ended because the simulation itself
	// failed: the user model, a precondition, a satisfaction check, a goal,
	// the policy, the judge, or a cancelled context.
	ErrSimulator = errors.New("simulate: simulator failed")

	// ErrRanker marks a run that ended because the ranker failed: it
	// returned an error that is not a provider's, panicked, or gave no
	// usable score. A scenario may choose to degrade instead (see
	// RankerFailure).
	ErrRanker = errors.New("simulate: ranker failed")

	// ErrInfrastructure marks a run that ended because a model provider
	// failed and kept failing after retries: HTTP 429 or 5xx, a timeout, a
	// connection reset (see IsTransient), whether the model was the
	// simulated user's, the ranker's, the judge's or the agent's.
	ErrInfrastructure = errors.New("simulate: model provider failed")

	// ErrPolicyStop is the cause of a run that a policy stopped with reason
	// StopError; the verdict's note follows it in the message.
	ErrPolicyStop = errors.New("simulate: policy stopped the run with an error")

	// ErrEmptyUserMessage reports a user model that answered with no text.
	ErrEmptyUserMessage = errors.New("simulate: user model returned an empty message")

	// ErrPanicked reports a panic recovered from user code: a check, goal,
	// policy, user model or target, which ends the run with StopError; a
	// ranker, which like any ranker failure (it then also wraps
	// ErrBadRanking) leaves the turn without a step; or a batch's Setup or
	// OnResult, which fails the job. Either way the process goes on.
	ErrPanicked = errors.New("simulate: user code panicked")

	// ErrBadRanking reports ranker output that could not be read as scores.
	// It fails the run with SideRanker, unless the scenario degrades.
	ErrBadRanking = errors.New("simulate: ranker output not understood")

	// ErrUnsafePath reports an artifact name that would leave its output
	// directory.
	ErrUnsafePath = errors.New("simulate: unsafe artifact path")

	// ErrMalformedLine reports a conversation JSONL line that does not decode.
	ErrMalformedLine = errors.New("simulate: malformed conversation line")

	// ErrInvalidBatch reports a batch that cannot run: bad shard numbers,
	// duplicate run names, no scenarios.
	ErrInvalidBatch = errors.New("simulate: invalid batch")

	// ErrOutDirInUse reports a batch whose OutDir another running batch
	// holds (see LockFile).
	ErrOutDirInUse = errors.New("simulate: output directory in use by another batch")
)

// Side says which party a run error belongs to.
//
// A Side is an immutable string, safe for concurrent use.
type Side string

const (
	// SideSimulator blames the simulation: the user model, a check or policy,
	// or the caller cancelling the run's context.
	SideSimulator Side = "simulator"
	// SideAgent blames the agent under test: its Target returned an error.
	SideAgent Side = "agent"
	// SideTool blames a tool the agent called, or the agent's handling of
	// its failure: the agent's turn failed while the tool's call was under
	// way, as when the tool timed out or got an HTTP 5xx and the error
	// ended the agent's run (Lookout's ToolErrorsAbort, or no Lookout
	// middleware at all). A tool's failure is never the infrastructure's,
	// even when it is transient: the run counts in pass^k. End.ErrorTool
	// names the tool.
	SideTool Side = "tool"
	// SideRanker blames the ranker: it failed, panicked or gave no usable
	// score.
	SideRanker Side = "ranker"
	// SideInfrastructure blames a model provider: a call to the user's, the
	// ranker's, the judge's or the agent's model failed with a transient
	// error (see IsTransient) after its retries.
	SideInfrastructure Side = "infrastructure"
)

// RunError is returned by Runner.Run when a run stops with reason
// StopError. It unwraps both to its side's sentinel (ErrAgent, ErrTool,
// ErrRanker, ErrInfrastructure or ErrSimulator) and to
// the underlying cause, so errors.Is(err, ErrAgent) and
// errors.Is(err, context.Canceled) both work.
//
// A RunError is not modified after it is returned and is safe for
// concurrent reads.
type RunError struct {
	Side Side   // who failed
	Turn int    // zero-based turn being played when it failed
	Op   string // what was being done: "user", "respond", "precondition", ...
	Err  error  // the cause
}

func (e *RunError) Error() string {
	return fmt.Sprintf("simulate: %s failed in turn %d (%s): %v", e.Side, e.Turn, e.Op, e.Err)
}

// Unwrap returns the side's sentinel and the cause.
func (e *RunError) Unwrap() []error {
	s := ErrSimulator
	switch e.Side {
	case SideAgent:
		s = ErrAgent
	case SideTool:
		s = ErrTool
	case SideRanker:
		s = ErrRanker
	case SideInfrastructure:
		s = ErrInfrastructure
	}
	return []error{s, e.Err}
}

// ScenarioError describes what is wrong with a scenario. It unwraps to
// ErrInvalidScenario.
//
// A ScenarioError is not modified after it is returned and is safe for
// concurrent reads.
type ScenarioError struct {
	Field  string // e.g. "Goal", "Graph.Steps[2].ID"
	Reason string
}

func (e *ScenarioError) Error() string {
	return fmt.Sprintf("simulate: invalid scenario: %s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrInvalidScenario.
func (e *ScenarioError) Unwrap() error { return ErrInvalidScenario }
