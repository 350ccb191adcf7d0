package detect

import (
	"fmt"

	"github.com/lookout-go/lookout/observer"
)

// TooLarge returns the error for a setting of the observer called name
// above its maximum, named maxName, or nil if it is within it.
func TooLarge(name, field string, value, limit int, maxName string) error {
	if value <= limit {
		return nil
	}
	return &observer.ConfigError{Observer: name, Field: field, Problem: fmt.Sprintf("%d is more than %s (%d)", value, maxName, limit)}
}

// NotFraction returns the error for a threshold of the observer called
// name that is not a number from 0 to 1, or nil if it is one.
func NotFraction(name, field string, value float64) error {
	if value >= 0 && value <= 1 {
		return nil
	}
	return &observer.ConfigError{Observer: name, Field: field, Problem: fmt.Sprintf("%v is not a number from 0 to 1", value)}
}
