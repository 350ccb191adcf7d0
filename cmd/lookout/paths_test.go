package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExportShortensTheFileNamesOfLongRunIDs(t *testing.T) {
	// ATIF session ids and user-chosen run ids can be longer than a file
	// name may be; two that differ only at the end still get two files.
	one := strings.Join(lines(t), "\n") + "\n"
	long := strings.Repeat("session-", 40)
	ids := []string{long + "a", long + "b"}
	var all string
	for _, id := range ids {
		all += strings.ReplaceAll(strings.ReplaceAll(one, `"run-1"`, fmt.Sprintf("%q", id)), `"run-2"`, fmt.Sprintf("%q", id+"-child"))
	}
	file := writeFile(t, "long.jsonl", []byte(all))

	for _, format := range []string{"atif", "otlp"} {
		dir := t.TempDir()
		r := lookout("export", "--format", format, "-o", dir, file)
		require.Equal(t, 0, r.code, r.stderr)
		written := strings.Split(strings.TrimSpace(r.stdout), "\n")
		require.Len(t, written, 2)
		assert.NotEqual(t, written[0], written[1])
		for i, path := range written {
			assert.Equal(t, dir, filepath.Dir(path))
			assert.LessOrEqual(t, len(filepath.Base(path)), 255, path)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			if format == "atif" {
				assert.Contains(t, string(data), fmt.Sprintf(`"session_id": %q`, ids[i]))
			}
		}
	}
}

func TestExportNeverOverwritesItsInput(t *testing.T) {
	// Exporting an ATIF file into its own folder would put the run's file
	// exactly where the input is, replacing it with a re-export that drops
	// what records cannot hold.
	dir := t.TempDir()
	r := lookout("export", "--format", "atif", "-o", dir, trajectoryFile(t))
	require.Equal(t, 0, r.code, r.stderr)
	input := filepath.Join(dir, "run-1.trajectory.json")
	before, err := os.ReadFile(input)
	require.NoError(t, err)
	// A field records have no place for, which a re-export would drop.
	edited := strings.Replace(string(before), `"session_id": "run-1",`, `"session_id": "run-1", "notes": "keep me",`, 1)
	require.NoError(t, os.WriteFile(input, []byte(edited), 0o600))

	r = lookout("export", "--format", "atif", "-o", dir, input)
	assert.Equal(t, exitProblems, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "would overwrite the input file")
	after, err := os.ReadFile(input)
	require.NoError(t, err)
	assert.Equal(t, edited, string(after))
}
