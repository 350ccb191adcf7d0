package observer

import (
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
