package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder/summary"
)

func TestInspectShowsRunsUsageToolsErrorsAndAssessments(t *testing.T) {
	r := lookout("inspect", trajectoryFile(t))
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{
		"runs: 2 (1 root, 1 child)\noutcomes: budget_exceeded 1, completed 1\nstop reasons: tokens 1\n",
		"tokens: 80 prompt, 30 completion, 110 total",
		"tools: 2 calls, 1 error (50.0%)\n  helper: 1 call, 0 errors, 2s\n  shell: 1 call, 1 error, 3s\n",
		"assessments: 1 (warning 1)\n  resource: warning 1\n",
		"run run-1 (agent migrator)\n  outcome: budget_exceeded (stop reason: tokens)\n",
		"  budget exceeded: tokens, used 110 of 100 (seq 9)\n  failures:\n    seq 7 shell (c1): exit status 2\n  children: run-2\n",
		"run run-2 (agent helper, child of run-1)\n  outcome: completed\n",
		"  turns: 1 model call (1 without usage), 1 user message\n",
	} {
		assert.Contains(t, r.stdout, want)
	}
}

func TestInspectJSONIsTheReport(t *testing.T) {
	r := lookout("inspect", "--json", trajectoryFile(t))
	require.Equal(t, 0, r.code, r.stderr)
	var rep summary.Report
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	assert.Equal(t, summary.Analyze(recordTrajectory(t)), rep)
}

func TestInspectAddsUpSeveralFiles(t *testing.T) {
	a := trajectoryFile(t)
	other := strings.ReplaceAll(strings.Join(lines(t), "\n")+"\n", "run-", "other-")
	b := writeFile(t, "other.jsonl", []byte(other))
	r := lookout("inspect", a, b)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "runs: 4 (2 roots, 2 children)")
}

func TestInspectFailsOnACorruptLine(t *testing.T) {
	l := lines(t)
	l[3] = `{"schema_version":1,"seq":3,"run_id":"run-1","kind":"tool_started","payload":{"name":7}}`
	path := writeFile(t, "corrupt.jsonl", []byte(strings.Join(l, "\n")+"\n"))

	r := lookout("inspect", path)

	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "lookout: read "+path+": recorder: line 4 (offset")
	assert.Contains(t, r.stderr, "malformed record")
}

func TestInspectReadsATornFileUpToTheTear(t *testing.T) {
	l := lines(t)
	torn := strings.Join(l[:5], "\n") + "\n" + l[5][:20]
	path := writeFile(t, "torn.jsonl", []byte(torn))

	r := lookout("inspect", path)

	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "lookout: "+path+": line 6 is torn (20 bytes at offset")
	assert.Contains(t, r.stdout, "records: 5\n")
	assert.Contains(t, r.stdout, "outcome: unfinished")
}

func TestInspectReadsAnATIFFile(t *testing.T) {
	r := lookout("inspect", filepath.Join(fixtureDir(t), "hello-world.trajectory.json"))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "runs: 1 (1 root, 0 children)")
	assert.Contains(t, r.stdout, "str_replace_editor: 1 call")
}

func TestInspectRunReportsOneRunAndTheRunsItStarted(t *testing.T) {
	path := trajectoryFile(t)
	r := lookout("inspect", "--run", "run-2", path)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "runs: 1 (1 root, 0 children)", "its parent is not in the report")
	assert.Contains(t, r.stdout, "run run-2 (agent helper, child of run-1)")
	assert.NotContains(t, r.stdout, "run run-1 (")

	r = lookout("inspect", "--run", "run-1", path)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "runs: 2 (1 root, 1 child)", "the runs it started come along")

	r = lookout("inspect", "--run", "nobody", path)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `no run "nobody"`)
}

func TestInspectSeqPrintsTheRecordsAroundIt(t *testing.T) {
	path := trajectoryFile(t)
	r := lookout("inspect", "--run", "run-1", "--seq", "7", path)
	require.Equal(t, 0, r.code, r.stderr)
	_, around, ok := strings.Cut(r.stdout, "\nRecords of run run-1 around seq 7:\n")
	require.True(t, ok, r.stdout)
	var seqs []int
	for _, line := range strings.Split(strings.Trim(around, "\n"), "\n") {
		marked := strings.HasPrefix(line, "> ")
		var rec struct {
			Seq   int    `json:"seq"`
			RunID string `json:"run_id"`
		}
		require.NoError(t, json.Unmarshal([]byte(line[2:]), &rec), line)
		assert.Equal(t, "run-1", rec.RunID)
		assert.Equal(t, rec.Seq == 7, marked, line)
		seqs = append(seqs, rec.Seq)
	}
	require.NotEmpty(t, seqs)
	assert.Equal(t, 2, seqs[0], "five before")
	assert.LessOrEqual(t, seqs[len(seqs)-1], 12)

	for _, args := range [][]string{
		{"--seq", "7", path},
		{"--run", "run-1", "--seq", "-1", path},
		{"--run", "run-1", "--seq", "x", path},
		{"--run", "run-1", "--seq", "7", "--json", path},
	} {
		assert.Equal(t, 2, lookout(append([]string{"inspect"}, args...)...).code, args)
	}
}
