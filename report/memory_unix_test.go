//go:build linux || darwin

package report_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lookout-go/lookout/internal/cmdtest"
	"github.com/lookout-go/lookout/recorder"
)

// maxReportMemory is the memory lookout report may take to write the page
// of a million records: 500 MB.
const maxReportMemory = 500_000_000

// lookout report of a trajectory of 1 M records, a long session's (the
// shape of longRun: 533 MB of JSON Lines), takes at most maxReportMemory,
// as the kernel counts the process's largest resident set.
func TestLookoutReportOf1MRecordsTakesAtMost500MB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reports 1 M records")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	bin := cmdtest.Build(t, ctx)
	dir := t.TempDir()
	path := filepath.Join(dir, "trajectory.jsonl")
	writeJSONL(t, path, func(emit func(recorder.Record)) { eachLongRunRecord(1_000_000, emit) })
	page := filepath.Join(dir, "report.html")
	cmd := exec.CommandContext(ctx, bin, "report", "-o", page, path)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOMEMLIMIT=") })
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	rss, err := cmdtest.RunPeak(cmd)
	if err != nil {
		t.Fatalf("lookout report: %v\n%s", err, out.Bytes())
	}
	info, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("lookout report of 1,000,000 records: %d MB at most resident, %v, a page of %d MB",
		rss/1_000_000, time.Since(start).Round(time.Second), info.Size()/1_000_000)
	if rss > maxReportMemory {
		t.Errorf("lookout report took %d MB, want at most %d MB", rss/1_000_000, maxReportMemory/1_000_000)
	}
}

// writeJSONL writes the records each gives to a JSON Lines file at path,
// as they come.
func writeJSONL(t *testing.T, path string, each func(emit func(recorder.Record))) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var line []byte
	each(func(rec recorder.Record) {
		if err != nil {
			return
		}
		line, err = rec.AppendJSON(line[:0])
		w.Write(append(line, '\n'))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
