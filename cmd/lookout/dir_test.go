package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gzipped returns data compressed with gzip.
func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

// put writes data to the slash-separated path rel under dir, making its
// folders.
func put(t testing.TB, dir, rel string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// runsDir makes a folder of trajectories: the example's root run in
// a.jsonl, its child run in a nested, gzipped file, and files that are
// not read.
func runsDir(t testing.TB) string {
	t.Helper()
	ls := lines(t)
	var root, child []string
	for _, l := range ls {
		if strings.Contains(l, `"run_id":"run-2"`) {
			child = append(child, l)
		} else {
			root = append(root, l)
		}
	}
	dir := t.TempDir()
	put(t, dir, "a.jsonl", []byte(strings.Join(root, "\n")+"\n"))
	put(t, dir, "b/deeper/child.jsonl.gz", gzipped(t, []byte(strings.Join(child, "\n")+"\n")))
	put(t, dir, "notes.txt", []byte("not a trajectory"))
	put(t, dir, "c.json", []byte("{}"))
	put(t, dir, "0.jsonl.bak", []byte("{}"))
	return dir
}

func TestADirectoryIsReadAsTheRunsInside(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	dir := runsDir(t)
	whole := trajectoryFile(t)

	t.Run("validate checks every trajectory file under it, in lexical order", func(t *testing.T) {
		r := lookout("validate", dir)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t,
			filepath.Join(dir, "a.jsonl")+": valid trajectory (11 records, 1 run)\n"+
				filepath.Join(dir, "b", "deeper", "child.jsonl.gz")+": valid trajectory (4 records, 1 run)\n",
			r.stdout)
	})
	t.Run("inspect reads the runs of all its files together", func(t *testing.T) {
		r := lookout("inspect", "--json", dir)
		require.Equal(t, exitOK, r.code, r.stderr)
		want := lookout("inspect", "--json", whole)
		assert.JSONEq(t, want.stdout, r.stdout)
	})
	t.Run("summarize reads the runs of all its files together", func(t *testing.T) {
		r := lookout("summarize", dir)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "runs: 2 (1 root, 1 child)")
		assert.Contains(t, r.stdout, "prompts: 2")
	})
	t.Run("export reads the runs of all its files together", func(t *testing.T) {
		r := lookout("export", "--format", "atif", dir)
		require.Equal(t, exitOK, r.code, r.stderr)
		want := lookout("export", "--format", "atif", whole)
		assert.Equal(t, want.stdout, r.stdout)
	})
}

func TestADirectoryWithNothingToReadCannotBeRead(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "notes.txt", []byte("not a trajectory"))
	for _, args := range [][]string{{"inspect", dir}, {"validate", dir}, {"summarize", dir}, {"export", "--format", "openai", dir}} {
		t.Run(args[0], func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", "")
			r := lookout(args...)
			assert.Equal(t, exitUnreadable, r.code)
			assert.Empty(t, r.stdout)
			assert.Equal(t, "lookout: read "+dir+": a directory with no *.jsonl or *.jsonl.gz files\n", r.stderr)
		})
	}
}

func TestGzipFilesAreReadTransparently(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	data := encode(t, recordTrajectory(t))
	gz := writeFile(t, "trajectory.jsonl.gz", gzipped(t, data))
	plain := trajectoryFile(t)

	for _, args := range [][]string{{"inspect"}, {"inspect", "--json"}, {"summarize"}, {"export", "--format", "openai"}, {"export", "--format", "atif"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			got := lookout(append(args, gz)...)
			require.Equal(t, exitOK, got.code, got.stderr)
			want := lookout(append(args, plain)...)
			assert.Equal(t, want.stdout, got.stdout)
		})
	}
	t.Run("validate", func(t *testing.T) {
		r := lookout("validate", gz)
		assert.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, gz+": valid trajectory (15 records, 2 runs)\n", r.stdout)
	})
	t.Run("standard input", func(t *testing.T) {
		r := lookoutWithInput(bytes.NewReader(gzipped(t, data)), "validate", "-")
		assert.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, "-: valid trajectory (15 records, 2 runs)\n", r.stdout)
	})
	t.Run("an ATIF document", func(t *testing.T) {
		doc := lookout("export", "--format", "atif", plain)
		require.Equal(t, exitOK, doc.code, doc.stderr)
		atifGz := writeFile(t, "run-1.trajectory.json.gz", gzipped(t, []byte(doc.stdout)))
		r := lookout("validate", atifGz)
		assert.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, ": valid ATIF trajectory (ATIF-v1.8, ")
		r = lookout("export", "--format", "openai", atifGz)
		assert.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, `{"role":"user","content":"migrate the billing service"}`)
	})
	t.Run("a broken gzip stream is invalid input", func(t *testing.T) {
		broken := gzipped(t, data)
		broken = broken[:len(broken)/2]
		r := lookout("validate", writeFile(t, "broken.jsonl.gz", broken))
		assert.Equal(t, exitProblems, r.code)
		assert.Contains(t, r.stderr, "unexpected EOF")
	})
}

// TestAGzipBombIsRefused checks that a gzip stream that decompresses to
// far more than JSON Lines of records do (newlines, here twice the floor
// of the check) is refused with a clear error once past the floor, while
// a file as compressible as the floor allows is read.
func TestAGzipBombIsRefused(t *testing.T) {
	// A floor of 4 MiB rather than 64 keeps the test quick under -race.
	floor := bombFloor
	bombFloor = 4 << 20
	t.Cleanup(func() { bombFloor = floor })
	// One member of a megabyte of newlines, repeated: gzip readers read
	// the members of a stream one after the other.
	member := gzipped(t, bytes.Repeat([]byte("\n"), 1<<20))
	stream := bytes.Repeat(member, int(2*bombFloor>>20))
	require.Less(t, int64(len(stream)*bombRatio), 2*bombFloor, "the bomb compresses enough to trip the check")
	bomb := writeFile(t, "bomb.jsonl.gz", stream)

	for _, args := range [][]string{{"validate"}, {"inspect"}} {
		r := lookout(append(args, bomb)...)
		assert.NotEqual(t, exitOK, r.code, "%v", args)
		assert.Contains(t, r.stderr, "decompresses to more than 250 times its size (a decompression bomb?)", "%v", args)
	}

	// The same newlines below the floor are an empty trajectory, not a bomb.
	small := writeFile(t, "small.jsonl.gz", member)
	r := lookout("validate", small)
	assert.NotContains(t, r.stderr, "bomb")
	assert.Contains(t, r.stdout, "no records")
}
