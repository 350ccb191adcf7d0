package summary_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

// Calls of control tools are counted apart from the tool calls, as the
// budget, which does not charge them, counts them.
func TestControlCallsAreCountedApart(t *testing.T) {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var records []recorder.Record
	add := func(p recorder.Payload) {
		records = append(records, recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: uint64(len(records)), RunID: "r1", RecordedAt: at, Payload: p})
	}
	add(&recorder.RunStarted{AgentName: "lead"})
	add(&recorder.ToolStarted{CallID: "c1", Name: "search"})
	add(&recorder.ToolEnded{CallID: "c1", Name: "search", Result: "ok"})
	add(&recorder.ToolStarted{CallID: "c2", Name: "exit", Control: true})
	add(&recorder.ToolEnded{CallID: "c2", Name: "exit"})
	rep := summary.Analyze(records)
	assert.Equal(t, 1, rep.Total.ToolCalls)
	assert.Equal(t, 1, rep.Total.ControlCalls)
	require.Len(t, rep.Total.Tools, 2)
	assert.True(t, rep.Total.Tools[0].Control, "exit")
	assert.False(t, rep.Total.Tools[1].Control, "search")
	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	assert.Contains(t, text.String(), "tools: 1 call, 0 errors (0.0%); 1 control call, not charged")
	assert.Contains(t, text.String(), "exit: 1 call, 0 errors, 0s, control tool")
}
