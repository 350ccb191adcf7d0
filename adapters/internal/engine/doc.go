// Package engine is the Eino glue Lookout's adapters share, over the
// runtime-neutral core in the root package: a chat model that charges
// and records every attempt, streamed tool results passed through to
// their end, interrupts told from errors, and the mark of the tool call a
// ctx runs inside.
package engine
