package recorder_test

import (
	"path/filepath"
	"testing"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/sinktest"
)

func TestMemorySinkConforms(t *testing.T) {
	sinktest.Run(t, func(t *testing.T) (recorder.Sink, sinktest.ReadBack) {
		s := recorder.NewMemorySink()
		return s, func() ([]recorder.Record, error) { return s.Records(), nil }
	})
}

func TestFileSinkConforms(t *testing.T) {
	sinktest.Run(t, func(t *testing.T) (recorder.Sink, sinktest.ReadBack) {
		path := filepath.Join(t.TempDir(), "run.jsonl")
		s, err := recorder.NewFileSink(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s, func() ([]recorder.Record, error) {
			recs, tear, err := recorder.ReadFile(path)
			if tear != nil {
				t.Errorf("file sink left a torn line: %+v", tear)
			}
			return recs, err
		}
	})
}

func TestFanOutConforms(t *testing.T) {
	sinktest.Run(t, func(t *testing.T) (recorder.Sink, sinktest.ReadBack) {
		a, b := recorder.NewMemorySink(), recorder.NewMemorySink()
		return recorder.FanOut(a, b), func() ([]recorder.Record, error) {
			ra, rb := a.Records(), b.Records()
			if len(ra) != len(rb) {
				t.Errorf("fan-out sinks hold %d and %d records", len(ra), len(rb))
			}
			return rb, nil
		}
	})
}
