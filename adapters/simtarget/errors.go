package simtarget

import "errors"

// Sentinel errors returned by the targets' Respond methods.
var (
	// ErrNilAgent reports a target built around a nil runner, agent or
	// runnable.
	ErrNilAgent = errors.New("simtarget: nil agent")

	// ErrInterrupted reports an ADK run that ended in an interrupt (the
	// agent asked for human input through adk's interrupt mechanism). A
	// simulated turn cannot resume it, so the turn fails with this error;
	// the simulate runner blames the agent.
	ErrInterrupted = errors.New("simtarget: agent run interrupted")
)
