package drivetest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/recorder"
)

// refusalScenarios are Stall's RefuseAfter enforced to the end, against
// models that do not obey: one that repeats its call forever, whatever
// the refusals and the withheld tools, and one whose loops are unrelated.
func refusalScenarios() []scenario {
	refuseAfter3 := func(rec *recorder.Recorder) *lookout.Config {
		return &lookout.Config{Recorder: rec, Observers: []observer.Spec{{
			Observer: &stall.Detector{RefuseAfter: 3}, Trigger: observer.Trigger{OnEveryCall: true},
		}}}
	}
	counted := func(name string, ran *atomic.Int64) tool.BaseTool {
		return adaptertest.Tool{Name: name, Fn: func(context.Context, string) (string, error) {
			ran.Add(1)
			return "same", nil
		}}
	}
	return []scenario{
		{Name: "a model that repeats a refused call and ignores the withheld tools runs no tool on its wrap-up turn and ends with ErrRepeatRefused", Modes: both, Build: func(t *testing.T, a Adapter) spec {
			m := scripted.New(scripted.Forever(scripted.Call("read_file", `{"path":"go.mod"}`)))
			var ran atomic.Int64
			sink := recorder.NewMemorySink()
			return spec{
				Model: m, Tools: []tool.BaseTool{counted("read_file", &ran)}, Config: refuseAfter3(adaptertest.NewRecorder(t, sink, nil)),
				Check: func(t *testing.T, r result) {
					require.Error(t, r.Err)
					assert.True(t, errors.Is(r.Err, lookout.ErrRepeatRefused), "the caller gets the refusal: %v", r.Err)
					assert.Equal(t, int64(3), ran.Load(), "no call after the third ran, the wrap-up turn's included")
					assert.Equal(t, 6, m.Calls(), "three calls, two refusals, the wrap-up turn; then the run ends")
					reqs := m.Requests()
					require.Len(t, reqs, 6)
					assertToolsWithheld(t, a, reqs[5], "read_file")
					assert.Equal(t, 1, reqs[5].CountContaining("## Stuck in a loop"))
					end := adaptertest.Ended(t, sink)
					last := end[len(end)-1].Payload.(*recorder.RunEnded)
					assert.Equal(t, recorder.OutcomeError, last.Outcome)
					assert.Contains(t, last.Error, lookout.ErrRepeatRefused.Error())
				},
			}
		}},
		{Name: "two unrelated loops each get their own refusals", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
			m := scripted.New(
				scripted.Repeat(4, scripted.Call("read_file", `{"path":"a"}`)),
				scripted.Call("write_file", `{"path":"b"}`),
				scripted.Repeat(4, scripted.Call("read_file", `{"path":"c"}`)),
				scripted.Reply("done"),
			)
			var reads, writes atomic.Int64
			return spec{
				Model: m, Tools: []tool.BaseTool{counted("read_file", &reads), counted("write_file", &writes)}, Config: refuseAfter3(nil),
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					assert.Equal(t, "done", r.Final.Content)
					assert.Equal(t, int64(6), reads.Load(), "each loop's fourth read was refused")
					assert.Equal(t, int64(1), writes.Load())
					for i, req := range m.Requests() {
						assert.Zero(t, req.CountContaining("## Stuck in a loop"), "request %d: one refusal per loop is no wrap-up", i)
						assert.False(t, req.ToolsWithheld(), "request %d", i)
					}
				},
			}
		}},
	}
}
