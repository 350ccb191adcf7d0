package lookout

import "errors"

// ErrInvalidConfig is returned by [New] for a configuration that cannot
// work. The error names the field.
var ErrInvalidConfig = errors.New("lookout: invalid config")

// ErrToolPanicked is the error a call is recorded with when its tool
// panicked.
var ErrToolPanicked = errors.New("the tool panicked")
