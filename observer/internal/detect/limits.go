package detect

import (
	"fmt"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/scan"
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

// Setting is a numeric setting of an observer: its field name and value.
type Setting struct {
	Field string
	Value int
}

// AnyTooLarge returns [TooLarge]'s error for the first of settings above
// limit, or nil.
func AnyTooLarge(name string, limit int, maxName string, settings ...Setting) error {
	for _, s := range settings {
		if err := TooLarge(name, s.Field, s.Value, limit, maxName); err != nil {
			return err
		}
	}
	return nil
}

// AnyNegative returns the error for the first of settings of the observer
// called name that is negative, or nil.
func AnyNegative(name string, settings ...Setting) error {
	for _, s := range settings {
		if s.Value < 0 {
			return &observer.ConfigError{Observer: name, Field: s.Field, Problem: fmt.Sprintf("%d is negative", s.Value)}
		}
	}
	return nil
}

// MessageCanon returns a Canon of rules for comparing messages: the
// process's shared compilation of [observer.MessageRules] when rules is
// nil, which spares each session compiling them.
func MessageCanon(rules []observer.Rule) *scan.Canon {
	if rules == nil {
		return scan.MessageCanon()
	}
	converted := make([]scan.Rule, len(rules))
	for i, r := range rules {
		converted[i] = scan.Rule(r)
	}
	return &scan.Canon{Compiled: scan.CompileRules(nil, converted)}
}
