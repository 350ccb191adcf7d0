package lookoutadk_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/supervisor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// The records say which tool calls steered the run and were not charged,
// so that a reader of the trajectory counts the calls as the budget did.
func TestControlToolCallsAreRecordedAsControl(t *testing.T) {
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxToolCalls: 10}})
	lead := s.agent("lead", scripted.New(
		scripted.Calls(transferTo("worker")),
		scripted.Reply("done"),
	))
	worker := s.agent("worker", scripted.New(
		scripted.Call("search", `{"q":"a"}`),
		scripted.Reply("found"),
	), echo("search"))
	root, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{worker}})
	require.NoError(t, err)
	store := session.New(nil)
	runAgent(t, s.mw.Agent(root), store, false)
	control := map[string]bool{}
	for _, r := range flushedRecords(t, s.sink) {
		if p, ok := r.Payload.(*recorder.ToolStarted); ok {
			control[p.Name] = p.Control
		}
	}
	assert.Equal(t, map[string]bool{adk.TransferToAgentToolName: true, "search": false}, control)
	b, _ := lookout.BudgetOf(store)
	assert.Equal(t, int64(1), b.ToolCalls, "the transfer is not charged")
}
