package scripted

import (
	"errors"
	"fmt"
)

// ErrScriptExhausted is returned by a call that arrives after every scripted
// turn has been played. The concrete error is an [*ExhaustedError].
var ErrScriptExhausted = errors.New("scripted: script exhausted")

// ErrInvalidTurn is returned when a turn cannot produce a reply: [Fail] given
// a nil error, [Func] given a nil function, or a function that returns
// neither a message nor an error.
var ErrInvalidTurn = errors.New("scripted: invalid turn")

// ExhaustedError reports which call overran the script.
// It unwraps to [ErrScriptExhausted]. It is a plain value, safe to share
// once returned.
type ExhaustedError struct {
	// Call is the 1-based number of the call that found no turn left,
	// counting every Generate and Stream on the model and its copies.
	Call int
	// Played is how many turns the script played before running out.
	Played int
}

func (e *ExhaustedError) Error() string {
	return fmt.Sprintf("scripted: script exhausted: call %d came after all %d scripted replies", e.Call, e.Played)
}

// Unwrap returns [ErrScriptExhausted].
func (e *ExhaustedError) Unwrap() error { return ErrScriptExhausted }
