package summary

import (
	"errors"
	"fmt"
)

// Sentinel errors. Typed errors in this package unwrap to one of them, so
// callers test with errors.Is and read detail with errors.As.
var (
	// ErrNoModel reports a Summarizer without a chat model.
	ErrNoModel = errors.New("summary: no chat model configured")

	// ErrModel reports a model call that failed, panicked or returned no
	// message.
	ErrModel = errors.New("summary: model call failed")

	// ErrResponse reports a model answer that holds no usable summary: no
	// JSON object in it, or an object without a summary.
	ErrResponse = errors.New("summary: model answer has no usable summary")
)

// PromptError reports a user prompt that could not be summarized. It
// names the prompt by run id and the seq of its user message, and unwraps
// to the cause, which matches ErrNoModel, ErrModel or ErrResponse (or a
// context error). It is immutable once returned and safe for concurrent
// use.
type PromptError struct {
	RunID string
	Seq   uint64
	Err   error
}

func (e *PromptError) Error() string {
	return fmt.Sprintf("summary: prompt at run %s seq %d: %v", e.RunID, e.Seq, e.Err)
}

// Unwrap returns the cause.
func (e *PromptError) Unwrap() error { return e.Err }
