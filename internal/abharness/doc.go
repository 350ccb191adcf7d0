// Package abharness measures whether the built-in observers' feedback
// changes what an agent does. It runs the same scripted scenarios with
// and without the assessment block injected, on two scripted agents: an
// oblivious one that ignores its input, and an attentive one that acts on
// the block. It reports, per scenario, agent and arm, the calls to finish,
// the failed calls, whether the budget stopped the run and whether the
// agent wrapped up with an answer; and, per observer and agent, how many
// of the assessments shown the agent followed, as each observer judges
// it (see observer.EfficacyJudge). cmd/abharness prints the tables.
package abharness
