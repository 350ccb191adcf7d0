package atif

import (
	"os"
	"path/filepath"
	"testing"
)

func addSeeds(f *testing.F) {
	f.Add([]byte(minimalDoc))
	f.Add([]byte(`{"schema_version":"ATIF-v1.8","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":[{"type":"image","source":{"media_type":"image/png","path":"a.png"}}]}],"subagent_trajectories":[{"trajectory_id":"x","agent":{"name":"b","version":"1"},"steps":[{"step_id":1,"source":"agent","message":"","observation":{"results":[{"subagent_trajectory_ref":[{"trajectory_id":"x"}]}]}}]}]}`))
	f.Add([]byte(`{"steps":[{"step_id":1e3,"timestamp":"2025-W01-1T00Z"}],"agent":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"agent":{"name":"a","version":"1","tool_definitions":[{"type":"function","function":{"name":"t","parameters":"x"}},{"function":[]},{"function":{"name":1}}]},"steps":[{"step_id":1,"source":"agent","message":""}]}`))
	if dir, err := findFixtures(); err == nil {
		if data, err := os.ReadFile(filepath.Join(dir, "rfc-0001-section-IV-example.json")); err == nil {
			f.Add(data)
		}
	}
}

// FuzzValidate checks that validation never panics, and that whatever it
// accepts decodes, re-encodes and still validates.
func FuzzValidate(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		problems := Validate(data)
		tr, err := Decode(data)
		if problems != nil {
			return
		}
		if err != nil {
			t.Fatalf("valid document does not decode: %v", err)
		}
		out, err := Encode(tr)
		if err != nil {
			t.Fatalf("valid document does not encode: %v", err)
		}
		if p := Validate(out); p != nil {
			t.Fatalf("re-encoded valid document is invalid: %v\n%s", p, out)
		}
	})
}

// FuzzToRecords checks that importing any decodable document never
// panics, and that the records export again.
func FuzzToRecords(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Decode(data)
		if err != nil {
			return
		}
		records, err := ToRecords(tr)
		if err != nil {
			t.Fatal(err)
		}
		again, err := FromRecords(records, testOptions)
		if err != nil {
			t.Fatalf("imported records do not export: %v", err)
		}
		if err := again.Validate(); err != nil && Validate(data) == nil {
			t.Fatalf("a valid document imported and exported invalid: %v", err)
		}
	})
}
