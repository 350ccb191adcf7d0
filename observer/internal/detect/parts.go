package detect

import (
	"slices"

	"github.com/lookout-go/lookout/observer"
)

// detectorParts is a detector's observation allocated together with its
// suggestions.
type detectorParts struct {
	observations [1]observer.Observation
	suggestions  [3]string
}

// ObservationWith returns o as the only observation of an assessment and
// a copy of suggestions, both from one allocation when there are at most
// three suggestions.
func ObservationWith(o observer.Observation, suggestions ...string) ([]observer.Observation, []string) {
	if len(suggestions) > 3 {
		return []observer.Observation{o}, slices.Clone(suggestions)
	}
	p := &detectorParts{observations: [1]observer.Observation{o}}
	n := copy(p.suggestions[:], suggestions)
	return p.observations[:], p.suggestions[:n:n]
}
