// Package abharness measures whether what the built-in observers tell an
// agent changes what it does, in a way that can fail.
//
// Each scenario comes in several variants. An agent stuck in a variant
// repeats that variant's calls; the observer's section names what it saw
// (the file reread, the error's cause, the declared scope); and only the
// variant's own fix solves it. So the right next call depends on what the
// block says, not on its being there. A run counts the calls wasted after
// the observer first spoke and before the fix. The same agent on the same
// seed runs with no block, with the block, and with a placebo: the block
// with the variant's key replaced by another's. The effect is the share
// of wasted calls saved against no block, with a bootstrap interval over
// the seeds.
//
// Offline, scripted agents stand in for a model: one that parses the
// section, one that reacts to its heading only, one that changes course
// at random, and one that never reads the block. Live runs a model
// behind an OpenAI-compatible endpoint in the same scenarios.
// cmd/abharness prints the table.
package abharness
