package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

func TestReportWritesAPageOfTheRuns(t *testing.T) {
	in := trajectoryFile(t)
	out := filepath.Join(t.TempDir(), "page.html")

	r := lookout("report", "-o", out, "--title", "Billing <migration>", in)

	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, out+"\n", r.stdout)
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	for _, want := range []string{
		"<title>Billing &lt;migration&gt;</title>",
		`<a href="#run-run-1">migrator</a>`,
		`<li class="node"><span data-agent="helper" data-outcome="completed" data-tools=""><a href="#run-run-2">helper</a>`, // the child, under its parent
		`<details class="tool error" id="run-1-seq-4">`,
		`<div class="budget" id="run-1-seq-9">budget exceeded: tokens, 110 used of 100</div>`,
	} {
		assert.Contains(t, string(page), want)
	}
	info, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".page.html.*"))
	assert.Empty(t, leftovers, "the temporary file is left behind")
}

func TestReportWritesReportHTMLByDefault(t *testing.T) {
	in := trajectoryFile(t)
	t.Chdir(t.TempDir())
	r := lookout("report", in)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "report.html\n", r.stdout)
	_, err := os.Stat("report.html")
	assert.NoError(t, err)
}

func TestReportToStandardOutput(t *testing.T) {
	r := lookout("report", "-o", "-", trajectoryFile(t))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "<!DOCTYPE html>"), r.stdout[:min(len(r.stdout), 100)])
	assert.True(t, strings.HasSuffix(r.stdout, "</html>\n"))
}

func TestReportReadsADirectoryAsTheRunsInside(t *testing.T) {
	dir := runsDir(t)
	page := lookout("report", "-o", "-", dir)
	require.Equal(t, exitOK, page.code, page.stderr)
	whole := lookout("report", "-o", "-", trajectoryFile(t))
	assert.Equal(t, whole.stdout, page.stdout, "a folder of the runs' files gives the page of the whole file")
}

func TestReportExitStatus(t *testing.T) {
	in := trajectoryFile(t)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no file is a usage error", []string{"report"}, exitUsage, "lookout report: missing FILE..."},
		{"an empty -o is a usage error", []string{"report", "-o", "", in}, exitUsage, "-o needs a file name"},
		{"an unknown flag is a usage error", []string{"report", "--format", "pdf", in}, exitUsage, "flag provided but not defined: -format"},
		{"a missing file cannot be read", []string{"report", "-o", "-", "missing.jsonl"}, exitUnreadable, "open missing.jsonl: no such file or directory"},
		{"a file that does not decode is invalid", []string{"report", "-o", "-", writeFile(t, "bad.jsonl", []byte("not json\n"))}, exitProblems, "malformed record"},
		{"a file without records has nothing to show", []string{"report", "-o", "-", writeFile(t, "empty.jsonl", nil)}, exitProblems, "the files hold no records"},
		{"an input is never overwritten", []string{"report", "-o", in, in}, exitProblems, "would overwrite an input file"},
		{"a page that cannot be written", []string{"report", "-o", filepath.Join(t.TempDir(), "no", "such", "dir", "r.html"), in}, exitProblems, "no such file or directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, _ := os.ReadFile(in)
			r := lookout(c.args...)
			assert.Equal(t, c.code, r.code, r.stderr)
			assert.Contains(t, r.stderr, c.stderr)
			after, _ := os.ReadFile(in)
			assert.Equal(t, before, after, "the input changed")
		})
	}
}

func TestReportGroupsAConversationsTurnsFromTheirFiles(t *testing.T) {
	// Each turn in a file of its own, the later turn first.
	ctx := context.Background()
	dir := t.TempDir()
	for _, turn := range []int{1, 0} {
		sink := recorder.NewMemorySink()
		rec := recorder.New(sink, nil)
		id := fmt.Sprintf("turn-%d", turn)
		run, err := rec.StartRun(ctx, recorder.RunInfo{RunID: id, AgentName: "support", ConversationID: "conv-7", Turn: turn})
		require.NoError(t, err)
		require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
		require.NoError(t, rec.Close(ctx))
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d-%s.jsonl", 1-turn, id)), encode(t, sink.Records()), 0o600))
	}

	r := lookout("report", "-o", "-", dir)

	require.Equal(t, exitOK, r.code, r.stderr)
	conv := strings.Index(r.stdout, `<section class="conversation" id="conversation-conv-7">`)
	first, second := strings.Index(r.stdout, `<section class="run" id="run-turn-0"`), strings.Index(r.stdout, `<section class="run" id="run-turn-1"`)
	assert.True(t, conv >= 0 && conv < first && first < second, "the turns are not grouped in order: %d %d %d", conv, first, second)
}
