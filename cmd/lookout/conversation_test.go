package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// conversationFile writes two runs that are turns 0 and 1 of conversation
// conv-1, and returns the file's path.
func conversationFile(t *testing.T) string {
	t.Helper()
	var records []recorder.Record
	for n, user := range []string{"Flights to Lisbon?", "Book it."} {
		run := []string{"run-a", "run-b"}[n]
		for i, p := range []recorder.Payload{
			&recorder.RunStarted{AgentName: "travel", ConversationID: "conv-1", Turn: n},
			&recorder.Message{Message: schema.UserMessage(user)},
			&recorder.ModelResponse{Message: schema.AssistantMessage("ok", nil)},
			&recorder.RunEnded{Outcome: recorder.OutcomeCompleted},
		} {
			records = append(records, recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: uint64(i), RunID: run, Payload: p})
		}
	}
	return writeFile(t, "conv.jsonl", encode(t, records))
}

func TestExportAConversationAsOneDocument(t *testing.T) {
	r := lookout("export", "--format", "atif", "--conversation", "conv-1", conversationFile(t))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, atif.Validate([]byte(r.stdout)))
	doc, err := atif.Decode([]byte(r.stdout))
	require.NoError(t, err)
	assert.Equal(t, "conv-1", doc.SessionID)
	require.Len(t, doc.Steps, 4)
	assert.Equal(t, "Book it.", doc.Steps[2].Message.PlainText())
}

func TestExportAConversationAsAChain(t *testing.T) {
	dir := t.TempDir()
	r := lookout("export", "--format", "atif", "--conversation", "conv-1", "--chain", "-o", dir, conversationFile(t))
	require.Equal(t, 0, r.code, r.stderr)
	first, second := filepath.Join(dir, "conv-1.trajectory.json"), filepath.Join(dir, "conv-1.trajectory.cont-1.json")
	assert.Equal(t, first+"\n"+second+"\n", r.stdout)
	doc, err := atif.ReadFile(first)
	require.NoError(t, err)
	assert.Equal(t, "conv-1.trajectory.cont-1.json", doc.ContinuedTrajectoryRef)
	data, err := os.ReadFile(second)
	require.NoError(t, err)
	assert.Empty(t, atif.Validate(data))
	assert.True(t, strings.Contains(string(data), `"is_copied_context": true`))
}

func TestExportAConversationRefusesWhatItCannotDo(t *testing.T) {
	file := conversationFile(t)
	for _, args := range [][]string{
		{"--format", "openai", "--conversation", "conv-1"},
		{"--format", "atif", "--chain"},
		{"--format", "atif", "--conversation", "conv-1", "--chain"},
		{"--format", "atif", "--conversation", "conv-1", "--run", "run-a"},
	} {
		r := lookout(append(append([]string{"export"}, args...), file)...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", args, r.stderr)
	}
	r := lookout("export", "--format", "atif", "--conversation", "nope", file)
	assert.Equal(t, exitProblems, r.code)
	assert.Contains(t, r.stderr, `conversation "nope" is not in the records`)
}
