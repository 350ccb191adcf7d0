package simtarget

import "errors"

// Sentinel errors returned by the targets' Respond methods.
var (
	// ErrNilAgent reports a target built around a nil runner, agent or
	// runnable.
	ErrNilAgent = errors.New("simtarget: nil agent")

	// ErrInterrupted reports an ADK run that ended in an interrupt (the
	// agent asked for human input through adk's interrupt mechanism) that
	// the scenario does not answer (simulate.Scenario.Interrupts), or that
	// could not be resumed; the turn fails with this error and the
	// simulate runner blames the agent.
	ErrInterrupted = errors.New("simtarget: agent run interrupted")
)
