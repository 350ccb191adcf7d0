package main

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateJSONGivesEveryFileItsVerdict(t *testing.T) {
	good := trajectoryFile(t)
	bad := writeFile(t, "bad.jsonl", []byte("not json\n"))

	r := lookout("validate", "--json", good, bad, "missing.jsonl")

	assert.Equal(t, exitUnreadable, r.code)
	assert.Equal(t, "lookout: read missing.jsonl: open missing.jsonl: no such file or directory\n", r.stderr)
	assert.JSONEq(t, `{
  "valid": false,
  "files": [
    {"file": `+quote(good)+`, "format": "jsonl", "valid": true, "description": "trajectory (15 records, 2 runs)", "problems": [], "problem_count": 0},
    {"file": `+quote(bad)+`, "format": "jsonl", "valid": false, "description": "trajectory (0 records, 0 runs)",
     "problems": ["line 1: recorder: malformed record: invalid character 'o' in literal null (expecting 'u')"], "problem_count": 1},
    {"file": "missing.jsonl", "valid": false, "problems": [], "problem_count": 0, "error": "read missing.jsonl: open missing.jsonl: no such file or directory"}
  ]
}`, r.stdout)
}

func TestValidateJSONOfValidFilesExitsZero(t *testing.T) {
	r := lookout("validate", "--json", trajectoryFile(t))
	require.Equal(t, exitOK, r.code, r.stderr)
	var out validateOutput
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	assert.True(t, out.Valid)
	require.Len(t, out.Files, 1)
	assert.Equal(t, "jsonl", out.Files[0].Format)
}

// TestTheJSONShapesAreStable pins the top-level fields of each --json
// output, which scripts rely on; fields may be added, never renamed or
// removed.
func TestTheJSONShapesAreStable(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	file := trajectoryFile(t)
	cases := []struct {
		args []string
		keys []string
	}{
		{[]string{"inspect", "--json", file}, []string{"budgets", "roots", "runs", "total"}},
		{[]string{"summarize", "--json", file}, []string{"prompt_stats", "prompts", "report"}},
		{[]string{"validate", "--json", file}, []string{"files", "valid"}},
	}
	for _, tc := range cases {
		t.Run(tc.args[0], func(t *testing.T) {
			r := lookout(tc.args...)
			require.Equal(t, exitOK, r.code, r.stderr)
			var top map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &top))
			assert.Equal(t, tc.keys, slices.Sorted(maps.Keys(top)))
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
