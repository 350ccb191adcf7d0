package lookoutadk

import "errors"

// ErrInvalidConfig is returned by [New] for a configuration that cannot
// work. The error names the field.
var ErrInvalidConfig = errors.New("lookoutadk: invalid config")
