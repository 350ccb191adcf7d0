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
