package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A JSON document of another agent's making is named as such, with its
// likely origin, by validate and export, rather than read as JSON Lines
// whose every line is malformed.
func TestAJSONDocumentThatIsNotATIFIsNamed(t *testing.T) {
	cases := map[string]struct{ doc, want string }{
		"gemini-cli": {"{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\",\n  \"messages\": [\n    {\"type\": \"user\"}\n  ]\n}\n", "a gemini-cli session"},
		"OpenHands":  {"[\n  {\n    \"id\": 0,\n    \"source\": \"agent\",\n    \"action\": \"system\"\n  }\n]\n", "an OpenHands event log"},
		"mini-swe":   {"{\n  \"info\": {},\n  \"messages\": [],\n  \"trajectory_format\": \"mini-swe-agent-1\"\n}\n", "a mini-swe-agent trajectory"},
		"unknown":    {"{\n  \"alpha\": 1,\n  \"beta\": 2\n}\n", "a JSON document (keys alpha, beta)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session.json")
			if err := os.WriteFile(path, []byte(c.doc), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range [][]string{{"validate", path}, {"export", "--format", "openai", path}} {
				r := lookout(cmd...)
				assert.Equal(t, exitProblems, r.code, cmd)
				assert.Contains(t, r.stderr, "it looks like "+c.want, cmd)
				assert.NotContains(t, r.stdout+r.stderr, "malformed record", cmd)
			}
		})
	}
}

// JSON Lines, whose first line is a whole value, are read as records,
// whatever their first line holds.
func TestJSONLinesAreNotTakenForADocument(t *testing.T) {
	assert.Empty(t, foreignDocument([]byte("{\"a\":1}\n{\"b\":2}\n")))
	assert.Empty(t, foreignDocument([]byte("not json\n")))
}

// A record cut short on the only line of a file is a torn record, not a
// document.
func TestATornRecordIsNotADocument(t *testing.T) {
	assert.Empty(t, foreignDocument([]byte(`{"schema_version":1,"seq":0,"run_id":"x","kind":"mess`)))
	assert.Equal(t, "a JSON document (keys a)", foreignDocument([]byte("{\"a\":\n1}\n")))
}
