package lookoutadk

import "github.com/lookout-go/lookout/adapters/internal/engine"

// ErrInvalidConfig is returned by [New] for a configuration that cannot
// work. The error names the field.
var ErrInvalidConfig = engine.ErrInvalidConfig
