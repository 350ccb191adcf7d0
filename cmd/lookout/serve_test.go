package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viewerOf serves the directory dir as lookout serve does.
func viewerOf(t *testing.T, dir string) *httptest.Server {
	t.Helper()
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	srv := httptest.NewServer(newViewer(root))
	t.Cleanup(func() {
		srv.Close()
		root.Close()
	})
	return srv
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(body)
}

func TestServeListsTheRunsOfEveryTrajectoryAsTheyAreWritten(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "batch"), 0o755))
	path := filepath.Join(dir, "batch", "a.jsonl")
	records := recordTrajectory(t)
	data := encode(t, records[:3])
	require.NoError(t, os.WriteFile(path, data, 0o600))
	srv := viewerOf(t, dir)

	runs := func() []listedRun {
		code, body := get(t, srv.URL+"/runs.json")
		require.Equal(t, http.StatusOK, code)
		var out []listedRun
		require.NoError(t, json.Unmarshal([]byte(body), &out))
		return out
	}
	first := runs()
	require.Len(t, first, 1)
	assert.Equal(t, "batch/a.jsonl", first[0].File)

	// The rest of the records are appended: the child run appears.
	require.NoError(t, os.WriteFile(path, encode(t, records), 0o600))
	assert.Len(t, runs(), 2)

	code, page := get(t, srv.URL+"/run?file=batch/a.jsonl&run=run-1")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, page, `id="run-run-2"`, "the run's report holds the runs it started")
}

func TestServeRefusesPathsOutsideItsDirectory(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.jsonl")
	require.NoError(t, os.WriteFile(secret, encode(t, recordTrajectory(t)), 0o600))
	dir := t.TempDir()
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "link.jsonl")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "out")))
	srv := viewerOf(t, dir)
	for _, path := range []string{"../" + filepath.Base(outside) + "/secret.jsonl", secret, "link.jsonl", "out/secret.jsonl", "/etc/passwd"} {
		code, body := get(t, srv.URL+"/run?file="+path)
		assert.NotEqual(t, http.StatusOK, code, path)
		assert.NotContains(t, body, "migrator", path)
	}
	code, body := get(t, srv.URL+"/runs.json")
	assert.Equal(t, http.StatusOK, code)
	assert.NotContains(t, body, "secret", "nothing outside the directory is listed")
	code, _ = get(t, srv.URL+"/anything-else")
	assert.Equal(t, http.StatusNotFound, code)
}

func TestServeBindsToLoopbackByDefault(t *testing.T) {
	fs, _, _ := serveCmd.declare()
	assert.Equal(t, "127.0.0.1:8080", fs.Lookup("addr").DefValue)
	res, err := http.Post(viewerOf(t, t.TempDir()).URL+"/runs.json", "text/plain", nil)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode, "read-only")
}

func TestServesPageFetchesFromItsServerAlone(t *testing.T) {
	res, err := http.Get(viewerOf(t, t.TempDir()).URL + "/")
	require.NoError(t, err)
	defer res.Body.Close()
	csp := res.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "default-src 'none'")
	assert.Contains(t, csp, "connect-src 'self'")
}
