package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateAcceptsARecordedTrajectory(t *testing.T) {
	path := trajectoryFile(t)
	r := lookout("validate", path)
	assert.Equal(t, 0, r.code)
	assert.Equal(t, path+": valid trajectory (15 records, 2 runs)\n", r.stdout)
}

func TestValidateNamesEveryProblemOfAJSONLFile(t *testing.T) {
	l := lines(t)
	cases := []struct {
		name string
		edit func(l []string) []string
		want []string
	}{
		{"a line that is not a record", func(l []string) []string {
			l[2] = `{"schema_version":1,"seq":2,"run_id":"run-1","kind":"model_request","payload":[]}`
			return l
		}, []string{"line 3: recorder: malformed record: model_request payload", "run run-1: seq 2 is missing (a lost record)"}},
		{"a newer schema version", func(l []string) []string {
			l[2] = strings.Replace(l[2], `"schema_version":1`, `"schema_version":9`, 1)
			return l
		}, []string{"line 3: recorder: record schema version 9 is newer than supported version 1", "run run-1: seq 2 is missing (a lost record)"}},
		{"a torn last line", func(l []string) []string {
			l[len(l)-1] = l[len(l)-1][:30]
			return l
		}, []string{"line 15: torn last line: 30 bytes without a newline"}},
		{"a repeated seq", func(l []string) []string {
			l[3] = strings.Replace(l[3], `"seq":3`, `"seq":2`, 1)
			return l
		}, []string{"line 4: run run-1: seq 2 repeats line 3", "run run-1: seq 3 is missing (a lost record)"}},
		{"lost records", func(l []string) []string {
			return append(l[:3], l[6:]...)
		}, []string{"run run-1: seq 3 to 5 are missing (3 lost records)"}},
		{"a run that does not start at 0", func(l []string) []string {
			return l[1:]
		}, []string{"run run-1: seq starts at 1, not 0 (line 1)"}},
		{"a run whose records disagree about their parent", func(l []string) []string {
			l[8] = strings.Replace(l[8], `"parent_run_id":"run-1","depth":1`, `"parent_run_id":"","depth":0`, 1)
			return l
		}, []string{`line 9: run run-2: parent_run_id "" differs from "run-1" on line 7`, "line 9: run run-2: depth 0 differs from 1 on line 7"}},
		{"an empty run id", func(l []string) []string {
			return append(l, `{"schema_version":1,"seq":0,"run_id":"","kind":"run_started","payload":{}}`)
		}, []string{"line 16: empty run_id"}},
	}
	for _, tc := range cases {
		t.Run("names "+tc.name, func(t *testing.T) {
			edited := tc.edit(append([]string(nil), l...))
			text := strings.Join(edited, "\n")
			if tc.name != "a torn last line" {
				text += "\n"
			}
			path := writeFile(t, "bad.jsonl", []byte(text))

			r := lookout("validate", path)

			assert.Equal(t, 1, r.code)
			assert.Contains(t, r.stdout, path+": invalid trajectory")
			for _, w := range tc.want {
				assert.Contains(t, r.stdout, "\n  "+w)
			}
			assert.Equal(t, len(tc.want), strings.Count(r.stdout, "\n  "), r.stdout)
		})
	}
}

func TestValidateOfAnEmptyFileFails(t *testing.T) {
	path := writeFile(t, "empty.jsonl", []byte("\n\n"))
	r := lookout("validate", path)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, path+": invalid trajectory (0 records, 0 runs): 1 problem\n  no records\n", r.stdout)
}

func TestValidateShowsAtMostAHundredProblems(t *testing.T) {
	path := writeFile(t, "junk.jsonl", []byte(strings.Repeat("not json\n", 150)))
	r := lookout("validate", path)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, ": 150 problems\n")
	assert.Contains(t, r.stdout, "\n  … and 50 more\n")
}

// TestValidateKeepsTheFirstProblemsAndCountsTheRest checks that a file of
// garbage is checked in bounded memory: the verdict keeps the first
// maxProblemsKept problems and counts every one.
func TestValidateKeepsTheFirstProblemsAndCountsTheRest(t *testing.T) {
	n := maxProblemsKept + 1500
	path := writeFile(t, "junk.jsonl", []byte(strings.Repeat("not json\n", n)))
	r := lookout("validate", "--json", path)
	assert.Equal(t, 1, r.code, r.stderr)
	var got struct {
		Files []verdict `json:"files"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	require.Len(t, got.Files, 1)
	v := got.Files[0]
	assert.Equal(t, n, v.ProblemCount)
	require.Len(t, v.Problems, maxProblemsKept)
	assert.Equal(t, "line 1: recorder: malformed record: invalid character 'o' in literal null (expecting 'u')", v.Problems[0])
	assert.Contains(t, v.Problems[maxProblemsKept-1], fmt.Sprintf("line %d:", maxProblemsKept))

	r = lookout("validate", path)
	assert.Contains(t, r.stdout, fmt.Sprintf(": %d problems\n", n))
	assert.Contains(t, r.stdout, fmt.Sprintf("\n  … and %d more\n", n-maxProblemsShown))
}

func TestValidateAcceptsTheATIFFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixtureDir(t), "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := lookout("validate", f)
			assert.Equal(t, 0, r.code, r.stdout)
			assert.Contains(t, r.stdout, f+": valid ATIF trajectory (ATIF-v1.")
		})
	}
}

func TestValidateNamesTheProblemsOfABrokenATIFFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir(t), "hello-world.trajectory.json"))
	require.NoError(t, err)
	text := string(data)

	t.Run("by JSON path", func(t *testing.T) {
		broken := strings.Replace(text, `"step_id": 2`, `"step_id": 7`, 1)
		broken = strings.Replace(broken, `"source": "user"`, `"source": "robot"`, 1)
		require.NotEqual(t, text, broken)
		path := writeFile(t, "broken.json", []byte(broken))

		r := lookout("validate", path)

		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stdout, path+": invalid ATIF trajectory: ")
		assert.Contains(t, r.stdout, "\n  steps[1].step_id: ")
		assert.Contains(t, r.stdout, "(step_order)")
		assert.Contains(t, r.stdout, "(enum)")
	})
	t.Run("cut short, by its syntax", func(t *testing.T) {
		path := writeFile(t, "cut.json", []byte(text[:len(text)/2]))
		r := lookout("validate", path)
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stdout, path+": invalid ATIF trajectory: 1 problem\n  (document): ")
		assert.Contains(t, r.stdout, "(syntax)")
	})
	t.Run("of a newer version", func(t *testing.T) {
		path := writeFile(t, "new.json", []byte(strings.Replace(text, `"ATIF-v1.5"`, `"ATIF-v9.0"`, 1)))
		r := lookout("validate", path)
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stdout, "schema_version: ")
		assert.Contains(t, r.stdout, "(schema_version)")
	})
}

func TestValidateReportsEachFile(t *testing.T) {
	good := trajectoryFile(t)
	bad := writeFile(t, "bad.jsonl", []byte("{}\n"))
	r := lookout("validate", good, bad)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, good+": valid trajectory")
	assert.Contains(t, r.stdout, bad+": invalid trajectory")
	assert.Contains(t, r.stdout, "line 1: recorder: malformed record: missing kind")
}

func TestValidateReadsATIFWithoutAVersion(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir(t), "hello-world.trajectory.json"))
	require.NoError(t, err)
	unversioned := strings.Replace(string(data), `"schema_version": "ATIF-v1.5",`, "", 1)
	require.NotEqual(t, string(data), unversioned)
	path := writeFile(t, "plain.json", []byte(unversioned))

	r := lookout("validate", path)

	assert.Equal(t, 0, r.code, r.stdout)
	assert.Equal(t, path+": valid ATIF trajectory (no schema_version, 6 steps, 0 subagent trajectories)\n", r.stdout)
}

func TestValidateCountsInTheSingular(t *testing.T) {
	assert.Equal(t, "1 run", count(1, "run", "runs"))
	assert.Equal(t, "0 runs", count(0, "run", "runs"))
	assert.Equal(t, "12 records", count(12, "record", "records"))
}
