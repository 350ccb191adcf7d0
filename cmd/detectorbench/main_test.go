package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunPrintsTheTableAndExitsByOutcome(t *testing.T) {
	var out, errs strings.Builder
	assert.Equal(t, 2, run(nil, &out, &errs), "no folder is bad usage")

	dir := t.TempDir()
	assert.Equal(t, 1, run([]string{dir}, &out, &errs), "a folder without cases cannot be replayed")

	call := `{"tool": "read_file", "args": {"path": "a.go"}, "result": "package a", "ok": true}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "quiet.json"),
		[]byte(`{"id": "quiet", "labels": {}, "calls": [`+call+`]}`), 0o600))
	out.Reset()
	assert.Equal(t, 0, run([]string{dir}, &out, &errs))
	assert.Contains(t, out.String(), "Stall        0    0    0    1")
}

func TestRunPrintsScoresByFamilyWithTable(t *testing.T) {
	dir := t.TempDir()
	call := `{"tool": "read_file", "args": {"path": "a.go"}, "result": "package a", "ok": true}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "quiet.json"),
		[]byte(`{"id": "quiet", "family": "demo", "labels": {}, "calls": [`+call+`]}`), 0o600))
	var out, errs strings.Builder
	assert.Equal(t, 0, run([]string{"-table", "-replays", "2", dir}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), "| demo | 1 | 0 | 0 | 0 | 1.00 | 1.00 | – | 0.00 |")
	assert.Contains(t, out.String(), "Cost per call")
	assert.Contains(t, out.String(), "| CPU median | CPU most |", "the CPU time of each call besides its time")
	assert.Equal(t, 2, run([]string{"-replays"}, &out, &errs), "a flag without its value is bad usage")
}
