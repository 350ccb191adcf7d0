package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

func TestStandardInputIsReadForADash(t *testing.T) {
	data := encode(t, recordTrajectory(t))

	r := lookoutWithInput(bytes.NewReader(data), "inspect", "-")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "runs: 2 (1 root, 1 child)")

	r = lookoutWithInput(bytes.NewReader(data), "validate", "-")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "-: valid trajectory (15 records, 2 runs)\n", r.stdout)

	atifDoc := lookout("export", "--format", "atif", trajectoryFile(t))
	require.Equal(t, 0, atifDoc.code, atifDoc.stderr)
	r = lookoutWithInput(strings.NewReader(atifDoc.stdout), "validate", "-")
	assert.Equal(t, 0, r.code, r.stdout)
	assert.Contains(t, r.stdout, "-: valid ATIF trajectory (ATIF-v1.8, ")
	r = lookoutWithInput(strings.NewReader(atifDoc.stdout), "export", "--format", "openai", "-")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `{"role":"user","content":"migrate the billing service"}`)
}

// TestAPipeIsReadOnce reads the trajectory from a pipe by its name, as a
// shell's process substitution or /dev/stdin passes it: what was read to
// tell the format must not be lost.
func TestAPipeIsReadOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /dev/fd")
	}
	data := encode(t, recordTrajectory(t))
	for _, args := range [][]string{{"inspect"}, {"validate"}, {"summarize"}, {"export", "--format", "openai", "--run", "run-2"}} {
		t.Run(args[0], func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", "")
			pr, pw, err := os.Pipe()
			require.NoError(t, err)
			defer pr.Close()
			go func() {
				pw.Write(data)
				pw.Close()
			}()
			r := lookout(append(args, fmt.Sprintf("/dev/fd/%d", pr.Fd()))...)
			require.Equal(t, 0, r.code, r.stderr)
			switch args[0] {
			case "inspect", "summarize":
				assert.Contains(t, r.stdout, "runs: 2 (1 root, 1 child)")
			case "validate":
				assert.Contains(t, r.stdout, ": valid trajectory (15 records, 2 runs)")
			case "export":
				assert.Contains(t, r.stdout, `{"role":"assistant","content":"The schema is fine."}`)
			}
		})
	}
}

// endless is a record line whose result never ends; it fails once more
// than limit bytes have been read from it.
type endless struct {
	prefix string
	read   int
	limit  int
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read > e.limit {
		return 0, errors.New("read far past the start of the file")
	}
	n := 0
	for n < len(p) {
		if e.read < len(e.prefix) {
			c := copy(p[n:], e.prefix[e.read:])
			n += c
			e.read += c
			continue
		}
		c := copy(p[n:], strings.Repeat("x", min(len(p)-n, 4096)))
		n += c
		e.read += c
	}
	return n, nil
}

func TestTheFormatIsToldFromABoundedPrefix(t *testing.T) {
	src := &endless{prefix: `{"schema_version":1,"seq":0,"run_id":"r","kind":"tool_ended","payload":{"result":"`, limit: 4 * sniffLimit}
	e := &env{stdin: src}
	in, err := e.open(stdinName)
	require.NoError(t, err)
	defer in.close()
	assert.Equal(t, formatJSONL, in.format)
	assert.LessOrEqual(t, src.read, sniffLimit+64<<10, "read %d bytes to tell the format", src.read)

	// Files whose first value is longer than the prefix are still told
	// apart, and read whole after it.
	big := strings.Repeat("y", 2*sniffLimit)
	records := []recorder.Record{
		{SchemaVersion: 1, RunID: "r", RecordedAt: recordTrajectory(t)[0].RecordedAt, Payload: &recorder.ToolEnded{Name: "t", Result: big}},
		{SchemaVersion: 1, Seq: 1, RunID: "r", RecordedAt: recordTrajectory(t)[0].RecordedAt, Payload: &recorder.RunEnded{Outcome: recorder.OutcomeCompleted}},
	}
	r := lookoutWithInput(bytes.NewReader(encode(t, records)), "validate", "-")
	assert.Equal(t, "-: valid trajectory (2 records, 1 run)\n", r.stdout, r.stderr)

	doc := `{"schema_version":"ATIF-v1.6","session_id":"s","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"` + big + `"}]}`
	r = lookoutWithInput(strings.NewReader(doc), "validate", "-")
	assert.Equal(t, "-: valid ATIF trajectory (ATIF-v1.6, 1 step, 0 subagent trajectories)\n", r.stdout, r.stderr)
	unversioned := `{"session_id":"s","steps":[{"step_id":1,"source":"user","message":"` + big + `"}],"agent":{"name":"a","version":"1"}}`
	assert.Equal(t, formatATIF, sniff([]byte(unversioned[:sniffLimit])), "steps and no kind before the prefix ends")
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		head string
		want format
	}{
		{`{"schema_version":1,"seq":0,"kind":"run_started","payload":{}}` + "\n", formatJSONL},
		{`{"schema_version":"ATIF-v1.5","steps":[]}`, formatATIF},
		{`{"steps":[],"session_id":"x"}`, formatATIF},
		{`{"steps":[],"kind":"x"}`, formatJSONL},
		{`{"schema_version": "ATIF-v1.5", "steps": [{"step_id": 1,`, formatATIF},
		{`[{"schema_version": "ATIF-v1.5"}]`, formatATIF},
		{`{"steps":[1,2`, formatATIF},
		{`{"kind":"x","payload":"unfinished`, formatJSONL},
		{"not json at all", formatJSONL},
		{"", formatJSONL},
	} {
		assert.Equal(t, tc.want, sniff([]byte(tc.head)), tc.head)
	}
}

func TestExportNeverWritesTwoRunsToOneFile(t *testing.T) {
	one := strings.Join(lines(t), "\n") + "\n"
	var all string
	for _, id := range []string{"a/b", "a_b", "A:B"} {
		all += strings.ReplaceAll(strings.ReplaceAll(one, `"run-1"`, fmt.Sprintf("%q", id)), `"run-2"`, fmt.Sprintf("%q", id+"-child"))
	}
	file := writeFile(t, "collide.jsonl", []byte(all))

	for _, tc := range []struct{ format, ext string }{{"atif", ".trajectory.json"}, {"otlp", ".otlp.json"}} {
		dir := t.TempDir()
		r := lookout("export", "--format", tc.format, "-o", dir, file)
		require.Equal(t, 0, r.code, r.stderr)
		want := []string{"a_b", "a_b-2", "A_B-3"}
		for i := range want {
			want[i] = filepath.Join(dir, want[i]+tc.ext)
		}
		assert.Equal(t, strings.Join(want, "\n")+"\n", r.stdout)
		assert.Contains(t, r.stderr, `run a_b is written as a_b-2, since run a/b has its file name`)
		assert.Contains(t, r.stderr, `run A:B is written as A_B-3, since run a/b has its file name`)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, entries, 3)
		if tc.format == "atif" {
			for i, id := range []string{"a/b", "a_b", "A:B"} {
				data, err := os.ReadFile(want[i])
				require.NoError(t, err)
				assert.Contains(t, string(data), fmt.Sprintf(`"session_id": %q`, id))
			}
		}
	}
}

// brokenWriter fails every write, as /dev/full does.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

func TestOutputThatCannotBeWrittenFailsEveryCommand(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	file := trajectoryFile(t)
	for _, args := range [][]string{
		{"inspect", file},
		{"inspect", "--json", file},
		{"validate", file},
		{"summarize", file},
		{"summarize", "--json", file},
		{"export", "--format", "atif", file},
		{"export", "--format", "openai", file},
		{"export", "--format", "openai", "-o", t.TempDir(), file},
		{"help"},
		{"help", "inspect"},
		{"validate", "-h"},
	} {
		var stderr bytes.Buffer
		code := run(args, strings.NewReader(""), brokenWriter{}, &stderr)
		assert.Equal(t, exitProblems, code, "%s", strings.Join(args, " "))
		assert.Contains(t, stderr.String(), "no space left on device", "%s", strings.Join(args, " "))
	}
}

// TestABadFormatPrintsTheSynopsis checks that a usage error says what is
// wrong, the command's synopsis and where its help is, and not the whole
// help, which would bury the error.
func TestABadFormatPrintsTheSynopsis(t *testing.T) {
	r := lookout("export", "--format", "xml", trajectoryFile(t))
	assert.Equal(t, exitUsage, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, "lookout export: --format must be atif, openai, otlp or otlp-metrics, not \"xml\"\nUsage: lookout export [flags] FILE\nRun 'lookout help export' for details.\n", r.stderr)
}
