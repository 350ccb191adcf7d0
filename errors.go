package lookout

import "errors"

// ErrInvalidConfig is returned by [Config.Check], and by the adapters made from a Config, for a configuration that cannot
// work. The error names the field.
var ErrInvalidConfig = errors.New("lookout: invalid config")

// ErrToolPanicked is the error a call is recorded with when its tool
// panicked.
var ErrToolPanicked = errors.New("the tool panicked")

// ErrRepeatRefused is the error a tool call refused by an observer (see
// observer.Gatekeeper), such as the repeat of a stuck loop, is recorded
// with. A run whose model, stuck, calls a tool on the wrap-up turn that
// withholds them ends with an error that wraps it.
var ErrRepeatRefused = errors.New("lookout: tool call refused as a repeat")
