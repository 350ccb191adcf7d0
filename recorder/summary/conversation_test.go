package summary_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

// turnRecords are the records of one turn of a conversation: a root run
// that names the conversation and its turn, with one user message.
func turnRecords(run, conv string, turn int, at time.Time) []recorder.Record {
	return []recorder.Record{
		{SchemaVersion: 1, Seq: 0, RunID: run, RecordedAt: at, Payload: &recorder.RunStarted{AgentName: "agent", ConversationID: conv, Turn: turn}},
		{SchemaVersion: 1, Seq: 1, RunID: run, RecordedAt: at.Add(time.Second), Payload: &recorder.Message{Message: schema.UserMessage("question " + run)}},
		{SchemaVersion: 1, Seq: 2, RunID: run, RecordedAt: at.Add(2 * time.Second), Payload: &recorder.RunEnded{Outcome: recorder.OutcomeCompleted}},
	}
}

// A conversation's turns, recorded as root runs in any order, are grouped
// in turn order, and each prompt is found by its conversation and turn.
func TestTheReportGroupsAConversationsTurns(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var records []recorder.Record
	records = append(records, turnRecords("r-b", "conv-1", 1, at)...)
	records = append(records, turnRecords("solo", "", 0, at)...)
	records = append(records, turnRecords("r-a", "conv-1", 0, at)...)
	records = append(records, turnRecords("r-c", "conv-1", 2, at)...)

	rep := summary.Analyze(records)
	require.Equal(t, []summary.Conversation{{ID: "conv-1", Turns: []string{"r-a", "r-b", "r-c"}}}, rep.Conversations)
	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	assert.Contains(t, text.String(), "conversation conv-1: 3 turns\n  turn 1: run r-a\n  turn 2: run r-b\n  turn 3: run r-c\n")

	found := 0
	for _, p := range summary.Split(records) {
		if p.RunID == "r-c" {
			found++
			assert.Equal(t, "conv-1", p.Conversation, "the recorded conversation, not the run")
			assert.Equal(t, 2, p.Turn)
		}
	}
	assert.Equal(t, 1, found)
}
