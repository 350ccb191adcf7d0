package report_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// liveWait is how soon a run appended to a trajectory must show in the
// page lookout serve gives.
const liveWait = 2 * time.Second

// A browser holds lookout serve's list open while a run is appended to a
// trajectory under its directory: the run shows within liveWait, and the
// page fetches nothing but from the server.
func TestServeShowsARunAppendedWhileTheListIsOpen(t *testing.T) {
	ctx, bin, b := withLookoutAndBrowser(t, 5*time.Minute)
	dir := t.TempDir()
	records := batchRun(100)
	var first, rest []recorder.Record
	for _, r := range records {
		if strings.HasPrefix(r.RunID, "q0") {
			first = append(first, r)
		} else if strings.HasPrefix(r.RunID, "q1") {
			rest = append(rest, r)
		}
	}
	path := filepath.Join(dir, "runs", "batch.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	appendRecords(t, path, first)

	cmd := exec.CommandContext(ctx, bin, "serve", "-addr", "127.0.0.1:0", dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(line, "http://")
	if at < 0 || !strings.Contains(line, "http://127.0.0.1:") {
		t.Fatalf("lookout serve said %q, want its loopback address", line)
	}
	url := strings.TrimSpace(line[at:])

	b.open(t, ctx, url)
	var waited float64
	b.evalAsync(t, ctx, appeared("run-q0"), &waited)
	if waited < 0 {
		t.Fatal("the list never showed the first run")
	}
	appendRecords(t, path, rest)
	start := time.Now()
	b.evalAsync(t, ctx, appeared("run-q1"), &waited)
	if waited < 0 {
		t.Fatalf("a run appended to the trajectory did not show within %v", liveWait)
	}
	t.Logf("the appended run showed after %v", time.Since(start).Round(time.Millisecond))

	origin := strings.TrimSuffix(url, "/")
	for _, p := range b.problems(url) {
		if !strings.HasPrefix(p, "request: "+origin+"/") {
			t.Errorf("the browser reported: %s", p)
		}
	}
}

// appeared is a script that waits, up to liveWait, for the element with
// id to be in the page, and gives the milliseconds it waited, or -1.
func appeared(id string) string {
	return `new Promise(function (done) {
  var start = performance.now();
  (function look() {
    if (document.getElementById(` + quoteJS(id) + `)) { return done(performance.now() - start); }
    if (performance.now() - start > ` + itoa(uint64(liveWait.Milliseconds())) + `) { return done(-1); }
    setTimeout(look, 50);
  })();
})`
}

// appendRecords appends records to the file at path, as a recorder does.
func appendRecords(t *testing.T, path string, records []recorder.Record) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range records {
		line, err := r.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}
