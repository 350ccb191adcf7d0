package observer

import (
	"fmt"

	"github.com/lookout-go/lookout/session"
)

// Validate checks specs as NewPipeline does: no nil observer, no two
// observers with one name, triggers that can fire, and observers that have
// a Validate() error method accept their settings. It lets a configuration
// be checked once, before any run.
func Validate(specs []Spec) error {
	_, err := NewPipeline(session.New(nil), specs, nil)
	return err
}

// tooLarge returns the error for a setting of observer above its maximum,
// named maxName, or nil if it is within it.
func tooLarge(observer, field string, value, limit int, maxName string) error {
	if value <= limit {
		return nil
	}
	return &ConfigError{Observer: observer, Field: field, Problem: fmt.Sprintf("%d is more than %s (%d)", value, maxName, limit)}
}

// notFraction returns the error for a threshold of observer that is not a
// number from 0 to 1, or nil if it is one.
func notFraction(observer, field string, value float64) error {
	if value >= 0 && value <= 1 {
		return nil
	}
	return &ConfigError{Observer: observer, Field: field, Problem: fmt.Sprintf("%v is not a number from 0 to 1", value)}
}
