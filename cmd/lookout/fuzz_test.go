package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCommandsOnAnyFile feeds arbitrary bytes to every reading command:
// none may panic, and each ends in success or a runtime failure.
func FuzzCommandsOnAnyFile(f *testing.F) {
	good := string(encode(f, recordTrajectory(f)))
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(`{"schema_version":"ATIF-v1.6","steps":[{"step_id":1,"source":"user","message":"hi"}]}`)
	f.Add(`{"schema_version":1,"seq":0,"run_id":"r","kind":"extension","payload":{"name":"lookout.efficacy","body":{"observer":"x","reaction":"wrapped_up"}}}` + "\n")
	f.Add("\n\n{}\r\n[")
	f.Fuzz(func(t *testing.T, data string) {
		path := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("OPENAI_API_KEY", "")
		for _, args := range [][]string{
			{"validate", path},
			{"inspect", path},
			{"summarize", "--json", path},
			{"export", "--format", "atif", "--run", "r", path},
			{"export", "--format", "openai", path},
		} {
			r := lookout(args...)
			if r.code != exitOK && r.code != exitProblems {
				t.Fatalf("%s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
			}
		}
	})
}
