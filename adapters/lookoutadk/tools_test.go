package lookoutadk_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

func everyKindOfTool() []tool.BaseTool {
	return []tool.BaseTool{
		echo("plain"),
		adaptertest.StreamTool{Name: "streamed", Chunks: []string{"part one, ", "part two"}},
		adaptertest.StreamTool{Name: "broken_stream", Chunks: []string{"half"}, Err: errors.New("connection reset")},
		adaptertest.RichTool{Name: "rich", Text: "a picture of a cat"},
		adaptertest.RichTool{Name: "rich_failing", Err: errors.New("no camera")},
		adaptertest.RichStreamTool{Name: "rich_streamed", Chunks: []string{"frame 1 ", "frame 2"}},
	}
}

func TestEveryKindOfToolIsRecorded(t *testing.T) {
	wants := map[string]observer.ToolCallRecord{
		"plain":         {Result: "plain ok {}", Success: true},
		"streamed":      {Result: "part one, part two", Success: true},
		"rich":          {Result: "a picture of a cat", Success: true},
		"rich_failing":  {Success: false, ErrorMessage: "no camera"},
		"rich_streamed": {Result: "frame 1 frame 2", Success: true},
	}
	for name, want := range wants {
		for _, streaming := range []bool{false, true} {
			m := scripted.New(scripted.Call(name, `{}`), scripted.Reply("done"))
			store := session.New(nil)
			o := runAgent(t, newAgent(t, agentSpec{model: m, tools: everyKindOfTool()}), store, streaming)
			require.NoError(t, o.err, "%s, streaming=%v", name, streaming)
			calls := session.LogOf[observer.ToolCallRecord](store)
			rec, ok := calls.Latest()
			require.True(t, ok, "%s was recorded", name)
			assert.Equal(t, int64(1), calls.Total(), "%s recorded once", name)
			assert.Equal(t, name, rec.ToolName)
			assert.Equal(t, want.Success, rec.Success, name)
			assert.Equal(t, want.Result, rec.Result, name)
			assert.Equal(t, want.ErrorMessage, rec.ErrorMessage, name)
		}
	}

	// An error in mid-stream cannot become a message: part of the output
	// reached the model already. It is recorded and ends the run.
	m := scripted.New(scripted.Call("broken_stream", `{}`), scripted.Reply("never reached"))
	store := session.New(nil)
	o := runAgent(t, newAgent(t, agentSpec{model: m, tools: everyKindOfTool()}), store, false)
	require.Error(t, o.err)
	assert.Contains(t, o.err.Error(), "connection reset")
	rec, ok := session.LogOf[observer.ToolCallRecord](store).Latest()
	require.True(t, ok)
	assert.False(t, rec.Success)
	assert.Equal(t, "half", rec.Result)
}

func TestEveryKindOfToolIsRefusedOverTheLimit(t *testing.T) {
	for _, name := range []string{"plain", "streamed", "rich", "rich_streamed"} {
		// Two parallel calls under a limit of one: one runs, one is refused.
		m := scripted.New(scripted.Call(name, `{"n":1}`).Call(name, `{"n":2}`), scripted.Reply("done"))
		store := session.New(nil)
		o := runAgent(t, newAgent(t, agentSpec{model: m, tools: everyKindOfTool(), cfg: &lookoutadk.Config{
			Limits: budget.Limits{MaxToolCalls: 1},
		}}), store, false)
		require.NoError(t, o.err, name)
		assert.Equal(t, int64(1), session.LogOf[observer.ToolCallRecord](store).Total(), "%s: the refused call did not run", name)
		refused := 0
		for _, msg := range m.Requests()[1].Messages {
			text := msg.Content
			for _, part := range msg.UserInputMultiContent {
				text += part.Text
			}
			if len(msg.ToolCallID) > 0 && strings.Contains(text, "Tool call refused: the tool-call budget is spent") {
				refused++
			}
		}
		assert.Equal(t, 1, refused, "%s: one refusal reached the model", name)
	}
}
