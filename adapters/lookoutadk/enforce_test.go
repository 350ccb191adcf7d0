package lookoutadk_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// With RefuseAfter set, the fourth identical read is refused with a tool
// message; the model repeats it anyway, and gets a wrap-up turn without
// tools.
func TestStallRefusesTheNextRepeatAndThenWrapsUp(t *testing.T) {
	var ran atomic.Int64
	read := adaptertest.Tool{Name: "read_file", Fn: func(context.Context, string) (string, error) {
		ran.Add(1)
		return "module x", nil
	}}
	m := scripted.New(
		scripted.Repeat(5, scripted.Call("read_file", `{"path":"go.mod"}`)),
		scripted.Reply("go.mod declares module x"),
	)
	cfg := &lookout.Config{Observers: []observer.Spec{{
		Observer: &stall.Detector{RefuseAfter: 3}, Trigger: observer.Trigger{OnEveryCall: true},
	}}}
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{read}, cfg: cfg})
	o := runAgent(t, agent, session.New(nil), false)
	require.NoError(t, o.err)

	assert.Equal(t, int64(3), ran.Load(), "the repeats after the third did not run")
	assert.Contains(t, modelInput(t, m, 4), "Tool call refused: `read_file` was called 3 times in a row",
		"the model reads the refusal as the call's result")
	assert.NotContains(t, modelInput(t, m, 4), "## Stuck in a loop", "one refusal is no wrap-up yet")
	last, ok := m.Request(5)
	require.True(t, ok)
	assert.Contains(t, modelInput(t, m, 5), "## Stuck in a loop", "the model repeated a refused call")
	require.NotNil(t, last.ToolChoice)
	assert.Equal(t, schema.ToolChoiceForbidden, *last.ToolChoice, "the wrap-up turn withholds the tools")
	require.NotEmpty(t, o.messages)
	assert.Equal(t, "go.mod declares module x", o.messages[len(o.messages)-1].Content)
}

// Without RefuseAfter, Stall only advises.
func TestStallRefusesNothingByDefault(t *testing.T) {
	var ran atomic.Int64
	read := adaptertest.Tool{Name: "read_file", Fn: func(context.Context, string) (string, error) {
		ran.Add(1)
		return "module x", nil
	}}
	m := scripted.New(scripted.Repeat(5, scripted.Call("read_file", `{"path":"go.mod"}`)), scripted.Reply("done"))
	cfg := &lookout.Config{Observers: []observer.Spec{{Observer: stall.New(), Trigger: observer.Trigger{OnEveryCall: true}}}}
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{read}, cfg: cfg})
	require.NoError(t, runAgent(t, agent, session.New(nil), false).err)
	assert.Equal(t, int64(5), ran.Load())
}
