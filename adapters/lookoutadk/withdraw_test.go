package lookoutadk_test

import (
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// modelInput returns the text of model call i's input.
func modelInput(t *testing.T, m *scripted.Model, i int) string {
	t.Helper()
	req, ok := m.Request(i)
	require.True(t, ok, "model call %d was made", i)
	var b strings.Builder
	for _, msg := range req.Messages {
		b.WriteString(msg.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

// The agent repeats a read four times, is shown Stall's section, and moves
// on: the section is absent from the model's next input.
func TestAWithdrawnStallSectionIsAbsentFromTheNextModelInput(t *testing.T) {
	read := `{"path":"go.mod"}`
	m := scripted.New(
		scripted.Call("read_file", read), scripted.Call("read_file", read),
		scripted.Call("read_file", read), scripted.Call("read_file", read),
		scripted.Call("list_dir", `{"path":"."}`),
		scripted.Reply("done"),
	)
	cfg := &lookout.Config{Observers: []observer.Spec{{Observer: stall.New(), Trigger: observer.Trigger{OnEveryCall: true}}}}
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("read_file"), echo("list_dir")}, cfg: cfg})
	o := runAgent(t, agent, session.New(nil), false)
	require.NoError(t, o.err)

	assert.Contains(t, modelInput(t, m, 4), "### Stall", "after the fourth read the model is shown the stall")
	assert.NotContains(t, modelInput(t, m, 5), "### Stall", "after the agent moved on the section is withdrawn")
}

// A stall reported at the end of one query is not shown to the model after
// the user's next message.
func TestANewUserMessageWithdrawsTheStallSection(t *testing.T) {
	read := `{"path":"go.mod"}`
	m := scripted.New(
		scripted.Repeat(4, scripted.Call("read_file", read)),
		scripted.Reply("go.mod says module x"),
		scripted.Reply("done"),
	)
	cfg := &lookout.Config{Observers: []observer.Spec{{Observer: stall.New(), Trigger: observer.Trigger{OnEveryCall: true}}}}
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("read_file")}, cfg: cfg})
	store := session.New(nil)
	require.NoError(t, runAgent(t, agent, store, false).err)
	require.Contains(t, modelInput(t, m, 4), "### Stall")

	require.NoError(t, runAgent(t, agent, store, false).err)
	assert.NotContains(t, modelInput(t, m, 5), "### Stall")
}
