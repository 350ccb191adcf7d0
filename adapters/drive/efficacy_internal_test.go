package drive

import (
	"encoding/json"
	"strconv"
	"testing"
	"unsafe"

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

// The head of an observer's efficacy records is written once per observer
// and severity and kept; records built on it are what encoding/json
// writes. Past the heads kept, heads are written each time.
func TestEfficacyHeadsAreKeptPerObserverAndSeverity(t *testing.T) {
	l, err := New(nil)
	require.NoError(t, err)
	for range 2 {
		for n := range maxEfficacyHeads + 4 {
			for _, sev := range []observer.Severity{observer.Info, observer.Warning} {
				ev := observer.EfficacyEvent{Observer: "Obs" + strconv.Itoa(n), Severity: sev, AssessmentCallIndex: 7, Reaction: observer.CarriedOn, CallIndex: 9}
				head, nameEnd := l.efficacyHead(&ev)
				want, wantEnd := appendEfficacyHead(nil, &ev)
				require.Equal(t, string(want), head)
				require.Equal(t, wantEnd, nameEnd)
				js, err := json.Marshal(ev)
				require.NoError(t, err)
				assert.Equal(t, string(js), string(appendEfficacyTail([]byte(head), &ev)))
				again, _ := l.efficacyHead(&ev)
				// The heads are made in order, two to an observer.
				kept := 2*n+int(sev)/2 < maxEfficacyHeads
				assert.Equal(t, kept, unsafe.StringData(head) == unsafe.StringData(again), "head of %s at %v kept", ev.Observer, sev)
			}
		}
	}
}
