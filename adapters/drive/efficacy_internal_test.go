package drive

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
)

// An efficacy event is written byte for byte as encoding/json writes it.
func TestAppendEfficacyWritesWhatEncodingJSONWrites(t *testing.T) {
	for _, name := range []string{"Stall", "", `quo"te`, `back\slash`, "<tag>&", "tab\there", "ünïcode", "\x7f"} {
		for _, ev := range []observer.EfficacyEvent{
			{Observer: name, Severity: observer.Warning, AssessmentCallIndex: 12, Reaction: observer.ChangedCourse, CallIndex: 14,
				Counts: observer.EfficacyCounts{Shown: 3, ChangedCourse: 1, WrappedUp: -1, CarriedOn: 1 << 40}},
			{Observer: name, Severity: observer.Info, Reaction: observer.WrappedUp},
			{Observer: name, Severity: observer.Caution, Reaction: observer.CarriedOn, CallIndex: 1},
			{Observer: name, Severity: observer.Warning},
		} {
			want, err := json.Marshal(ev)
			require.NoError(t, err)
			got, _, err := appendEfficacy(nil, &ev)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		}
	}
}

func TestAppendEfficacyRejectsAnUnknownSeverityOrReaction(t *testing.T) {
	_, _, err := appendEfficacy(nil, &observer.EfficacyEvent{Severity: observer.Severity(99)})
	assert.Error(t, err)
	_, _, err = appendEfficacy(nil, &observer.EfficacyEvent{Severity: observer.Info, Reaction: observer.Reaction(-1)})
	assert.Error(t, err)
}

// Encoding an event allocates nothing beyond the buffer it is given.
func TestAppendEfficacyAllocatesNothingInARoomyBuffer(t *testing.T) {
	ev := observer.EfficacyEvent{Observer: "Stall", Severity: observer.Warning, AssessmentCallIndex: 7, Reaction: observer.CarriedOn, CallIndex: 9}
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := appendEfficacy(buf[:0], &ev); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}
