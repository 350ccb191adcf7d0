package lookoutadk

import (
	"encoding/gob"
	"io"
	"testing"
)

// BenchmarkCheckpointProbe measures what Eino's adk.SetRunLocalValue
// spends, on every run, checking that the value Lookout registers for
// checkpoints encodes with gob: it encodes the value the way the check
// does, with a new gob encoder, and throws the result away. Lookout
// cannot skip the check while it registers its state on every run.
func BenchmarkCheckpointProbe(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		live := &checkpoint{}
		live.probing.Store(true)
		if err := gob.NewEncoder(io.Discard).Encode(map[string]any{checkpointKey: live}); err != nil {
			b.Fatal(err)
		}
	}
}
