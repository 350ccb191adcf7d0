package lookoutadk

import "github.com/lookout-go/lookout/adapters/internal/engine"

// Config configures the middleware: limits, observers, the injection role,
// the staleness limit, which resources are enforced, the wrap-up
// threshold, what tool errors do, the clock and the error handler. A nil
// *Config, and every zero field, means the defaults.
//
// The type is shared with the react adapter and defined in an internal
// package, so `go doc` on this alias does not list its fields;
// `go doc github.com/lookout-go/lookout/adapters/internal/engine Config`
// does, and docs/eino.md has them as a table.
type Config = engine.Config

// ToolErrors says what happens when a tool returns an error.
type ToolErrors = engine.ToolErrors

// What a tool error does.
const (
	// ToolErrorsAsMessages turns a tool's error into a tool message the
	// model can read ("Error: ..."), counted as a failure. The default.
	ToolErrorsAsMessages = engine.ToolErrorsAsMessages
	// ToolErrorsAbort keeps Eino's behaviour: the error ends the run, after
	// the call is recorded as a failure.
	ToolErrorsAbort = engine.ToolErrorsAbort
)

// Defaults used when a [Config] field is zero.
const (
	DefaultWrapUpAt       = engine.DefaultWrapUpAt
	DefaultRetention      = engine.DefaultRetention
	DefaultMaxRecordBytes = engine.DefaultMaxRecordBytes
)

// Tag is the key Lookout sets in the Extra of every message it injects.
// Its value says what the message is: [TagAssessment] or [TagWrapUp].
const Tag = engine.Tag

// The values of [Tag].
const (
	TagAssessment = engine.TagAssessment
	TagWrapUp     = engine.TagWrapUp
)

// Injected reports whether msg was injected by Lookout, and what it is.
var Injected = engine.Injected
