package main

import (
	"bytes"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

// fakeTerminal is a standard error that says it is a terminal.
type fakeTerminal struct{ bytes.Buffer }

func (*fakeTerminal) Stat() (os.FileInfo, error) { return charDevice{}, nil }

type charDevice struct{}

func (charDevice) Name() string       { return "tty" }
func (charDevice) Size() int64        { return 0 }
func (charDevice) Mode() fs.FileMode  { return fs.ModeDevice | fs.ModeCharDevice | 0o620 }
func (charDevice) ModTime() time.Time { return time.Time{} }
func (charDevice) IsDir() bool        { return false }
func (charDevice) Sys() any           { return nil }

func TestProgressIsQuietWhenStandardErrorIsNotATerminal(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	dir := runsDir(t)
	for _, args := range [][]string{{"inspect", dir}, {"validate", dir}, {"summarize", dir}} {
		r := lookout(args...)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Empty(t, r.stderr, args)
	}
}

func TestProgressFlagReportsEachFileOnItsOwnLine(t *testing.T) {
	dir := runsDir(t)
	r := lookout("inspect", "--progress", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "lookout: reading files 1/2\nlookout: reading files 2/2\n", r.stderr)

	r = lookout("validate", dir, "--progress")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "lookout: validating files 1/2\nlookout: validating files 2/2\n", r.stderr)
}

func TestProgressIsShownOnATerminalAndClearedAtTheEnd(t *testing.T) {
	var stderr fakeTerminal
	var stdout bytes.Buffer
	code := run([]string{"inspect", runsDir(t)}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	assert.Equal(t, "\r\x1b[Klookout: reading files 1/2\r\x1b[Klookout: reading files 2/2\r\x1b[K", stderr.String())
	assert.Contains(t, stdout.String(), "runs: 2 (1 root, 1 child)")
}

func TestAWarningStartsOnALineOfItsOwnAfterProgress(t *testing.T) {
	dir := runsDir(t)
	put(t, dir, "c.jsonl", []byte(`{"schema_version":1,"seq":0,"run_id":"x","kind":"mess`))
	var stderr fakeTerminal
	code := run([]string{"inspect", dir}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	assert.Contains(t, stderr.String(), "lookout: reading files 2/3\r\x1b[Klookout: "+dir+"/c.jsonl: line 1 is torn")
}

func TestSummarizeReportsProgressPerPrompt(t *testing.T) {
	serve(t, scripted.New(scripted.Forever(scripted.Reply(modelAnswer))))
	r := lookout("summarize", "--progress", trajectoryFile(t))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "lookout: summarizing prompts 1/2\nlookout: summarizing prompts 2/2\n", r.stderr)
}

func TestATerminalIsACharacterDevice(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer devNull.Close()
	assert.True(t, isTerminal(devNull), "a character device")
	assert.True(t, isTerminal(&fakeTerminal{}))
	f, err := os.Create(t.TempDir() + "/log")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f), "a regular file")
	assert.False(t, isTerminal(&bytes.Buffer{}), "a buffer")
}
