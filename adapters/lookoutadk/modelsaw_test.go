package lookoutadk_test

import (
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/messages"
	"github.com/lookout-go/lookout/session"
)

// A run with assessments, a failing tool and a wrap-up turn: the messages
// export of its last model call is, message for message and role for
// role, the input the model received, and the ATIF export shows what
// Lookout injected where the model saw it.
func TestTheExportsShowWhatTheModelSaw(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "Generate", true: "Stream"}[streaming], func(t *testing.T) {
			backend := scripted.New(
				scripted.Call("search", `{"q":"a"}`).Call("broken", `{}`),
				scripted.Call("search", `{"q":"b"}`),
				scripted.Reply("done"),
			)
			sink := recorder.NewMemorySink()
			rec := adaptertest.NewRecorder(t, sink, nil)
			agent := newAgent(t, agentSpec{
				model: backend,
				tools: []tool.BaseTool{echo("search"), adaptertest.Failing("broken", "disk on fire")},
				cfg: &lookout.Config{
					Observers: everyCall(), Limits: budget.Limits{MaxToolCalls: 3}, Recorder: rec,
					ToolErrors: lookout.ToolErrorsAsMessages,
				},
			})
			o := runAgent(t, agent, session.New(nil), streaming)
			require.NoError(t, o.err)
			require.Equal(t, 3, backend.Calls())
			records := flushedRecords(t, sink)

			for call := range 3 {
				want, ok := backend.Request(call)
				require.True(t, ok)
				got, err := messages.ModelInput(records, nil, call)
				require.NoError(t, err)
				require.Len(t, got, len(want.Messages), "call %d", call)
				for i, m := range want.Messages {
					assert.Equal(t, string(m.Role), string(got[i].Role), "call %d message %d", call, i)
					assert.Equal(t, m.Content, got[i].Content.Text, "call %d message %d", call, i)
				}
			}
			last, _ := backend.Request(2)
			require.GreaterOrEqual(t, len(last.Messages), 2)
			kind, _ := lookout.Injected(last.Messages[len(last.Messages)-1])
			require.Equal(t, lookout.TagWrapUp, kind, "the last call is a wrap-up turn")

			tr, err := atif.FromRecords(records, nil)
			require.NoError(t, err)
			data, err := atif.Encode(tr)
			require.NoError(t, err)
			assert.Empty(t, atif.Validate(data))
			var injected []string
			var unshown, errorResults int
			for _, s := range tr.Steps {
				info, _ := s.Extra[atif.ExtraKey].(map[string]any)
				if kind, ok := info["injected"].(string); ok {
					assert.Equal(t, atif.SourceUser, s.Source, "injected as the model received it")
					injected = append(injected, kind)
				}
				if a, ok := info["assessment"].(map[string]any); ok && a["shown"] == false {
					unshown++
				}
				if s.Observation != nil {
					for _, r := range s.Observation.Results {
						if r.Content != nil && r.Content.PlainText() == "Error: disk on fire" {
							errorResults++
						}
					}
				}
			}
			assert.Equal(t, []string{"assessment", "assessment", "wrap_up"}, injected)
			assert.Equal(t, 1, unshown, "the first parallel call's assessment was superseded before the model saw it")
			assert.Equal(t, 1, errorResults, "the tool error as the model read it")
		})
	}
}
