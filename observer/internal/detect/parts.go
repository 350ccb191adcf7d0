package detect

import (
	"slices"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/scan"
)

// detectorParts is a detector's observation allocated together with its
// suggestions.
type detectorParts struct {
	observations [1]observer.Observation
	suggestions  [3]string
}

// Parts hands out the observations and suggestions of a detector's
// assessments, allocated several at a time. A detector keeps one in its
// working state.
type Parts struct{ free []detectorParts }

// partsChunk is how many assessments' parts are allocated at a time.
const partsChunk = 16

// ObservationWith returns o as the only observation of an assessment and
// a copy of suggestions, both taken from the parts allocated together
// when there are at most three suggestions.
func (p *Parts) ObservationWith(o observer.Observation, suggestions ...string) ([]observer.Observation, []string) {
	if len(suggestions) > 3 {
		return []observer.Observation{o}, slices.Clone(suggestions)
	}
	d := &scan.Carve(&p.free, 1, partsChunk)[0]
	d.observations[0] = o
	n := copy(d.suggestions[:], suggestions)
	return d.observations[:], d.suggestions[:n:n]
}
