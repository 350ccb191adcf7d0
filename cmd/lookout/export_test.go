package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/messages"
)

func TestExportATIFToStdoutIsValidAndKeepsParallelCallsInOneStep(t *testing.T) {
	r := lookout("export", "--format", "atif", trajectoryFile(t))
	require.Equal(t, 0, r.code, r.stderr)

	assert.Empty(t, atif.Validate([]byte(r.stdout)))
	doc, err := atif.Decode([]byte(r.stdout))
	require.NoError(t, err)
	assert.Equal(t, "run-1", doc.SessionID)
	var step *atif.Step
	for i := range doc.Steps {
		if len(doc.Steps[i].ToolCalls) > 0 {
			require.Nil(t, step, "one agent step holds the tool calls")
			step = &doc.Steps[i]
		}
	}
	require.NotNil(t, step)
	require.Len(t, step.ToolCalls, 2)
	require.NotNil(t, step.Observation)
	require.Len(t, step.Observation.Results, 2)
	assert.Equal(t, "c1", step.Observation.Results[0].SourceCallID)
	assert.Equal(t, "c2", step.Observation.Results[1].SourceCallID)
	require.Len(t, doc.SubagentTrajectories, 1, "the child run is embedded")
	assert.Equal(t, "run-2", doc.SubagentTrajectories[0].TrajectoryID)
}

func TestExportATIFIntoADirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	r := lookout("export", "--format", "atif", "-o", dir, trajectoryFile(t))
	require.Equal(t, 0, r.code, r.stderr)

	path := filepath.Join(dir, "run-1.trajectory.json")
	assert.Equal(t, path+"\n", r.stdout)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	problems, err := atif.ValidateFile(path, nil)
	require.NoError(t, err)
	assert.Empty(t, problems)
}

func TestExportOpenAIMessages(t *testing.T) {
	r := lookout("export", "--format", "openai", trajectoryFile(t))
	require.Equal(t, 0, r.code, r.stderr)

	msgs, err := messages.Read(strings.NewReader(r.stdout))
	require.NoError(t, err)
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = string(m.Role)
	}
	assert.Equal(t, []string{"user", "assistant", "tool", "tool"}, roles)
	assert.Equal(t, "c1", msgs[2].ToolCallID)
	assert.Equal(t, "exit status 2", msgs[2].Content.Text)
}

func TestExportOpenAIIntoADirectoryIsPrivate(t *testing.T) {
	dir := t.TempDir()
	r := lookout("export", "--format", "openai", "-o", dir, "--run", "run-2", trajectoryFile(t))
	require.Equal(t, 0, r.code, r.stderr)

	path := filepath.Join(dir, "run-2.messages.jsonl")
	assert.Equal(t, path+"\n", r.stdout)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"user","content":"check the schema"}`+"\n"+`{"role":"assistant","content":"The schema is fine."}`+"\n", string(data))
}

func TestExportOpenAIIntoADirectoryWritesEveryRunOfTheQuery(t *testing.T) {
	dir := t.TempDir()
	r := lookout("export", "--format", "openai", "-o", dir, trajectoryFile(t))
	require.Equal(t, 0, r.code, r.stderr)

	root, child := filepath.Join(dir, "run-1.messages.jsonl"), filepath.Join(dir, "run-2.messages.jsonl")
	assert.Equal(t, root+"\n"+child+"\n", r.stdout, "the sub-agent's conversation has a file of its own")
	data, err := os.ReadFile(child)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"user","content":"check the schema"}`+"\n"+`{"role":"assistant","content":"The schema is fine."}`+"\n", string(data))
}

// twoRoots is the trajectory twice, the second copy under other run ids.
func twoRoots(t *testing.T) string {
	one := strings.Join(lines(t), "\n") + "\n"
	return writeFile(t, "two.jsonl", []byte(one+strings.ReplaceAll(one, "run-", "again-")))
}

func TestExportOfSeveralRootRuns(t *testing.T) {
	file := twoRoots(t)

	t.Run("to stdout asks for a choice", func(t *testing.T) {
		r := lookout("export", "--format", "atif", file)
		assert.Equal(t, 1, r.code)
		assert.Empty(t, r.stdout)
		assert.Contains(t, r.stderr, "2 root runs (run-1, again-1); pick one with --run or write them all with -o DIR")
	})
	t.Run("with --run writes the one named", func(t *testing.T) {
		r := lookout("export", "--format", "atif", "--run", "again-1", file)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, `"session_id": "again-1"`)
	})
	t.Run("into a directory writes each", func(t *testing.T) {
		dir := t.TempDir()
		r := lookout("export", "--format", "atif", "-o", dir, file)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, filepath.Join(dir, "run-1.trajectory.json")+"\n"+filepath.Join(dir, "again-1.trajectory.json")+"\n", r.stdout)
	})
	t.Run("of a run that is not there fails", func(t *testing.T) {
		r := lookout("export", "--format", "openai", "--run", "nope", file)
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, `no run "nope" in the file`)
	})
}

func TestExportKeepsFileNamesInsideTheDirectory(t *testing.T) {
	evil := strings.ReplaceAll(strings.Join(lines(t), "\n")+"\n", `"run-1"`, `"../../escape"`)
	file := writeFile(t, "evil.jsonl", []byte(evil))
	dir := filepath.Join(t.TempDir(), "out")

	for _, format := range []string{"atif", "openai"} {
		r := lookout("export", "--format", format, "-o", dir, file)
		require.Equal(t, 0, r.code, r.stderr)
		written := strings.Split(strings.TrimSpace(r.stdout), "\n")[0]
		assert.Equal(t, dir, filepath.Dir(written))
		assert.True(t, strings.HasPrefix(filepath.Base(written), ".._.._escape."), written)
	}
}

func TestExportOfAFileWithoutRunsFails(t *testing.T) {
	r := lookout("export", "--format", "atif", writeFile(t, "empty.jsonl", nil))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "no runs to export")
}
