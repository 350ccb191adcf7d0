package lookoutreact_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/drive/drivetest"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
)

// durableRuns is how many runs each failure and mode makes.
const durableRuns = 200

// cancelKey carries, on the caller's ctx, the cancel func a tool calls to
// cancel the run from inside a tool call.
type cancelKey struct{}

// durableScenario is a run that fails: a fresh model and tools for each
// run, the outcome its run_ended must have, and a text its error holds.
type durableScenario struct {
	name    string
	model   func() *scripted.Model
	tools   []tool.BaseTool
	outcome recorder.Outcome
	errText string
	// cancels says the caller's ctx carries a cancel func under cancelKey.
	cancels bool
}

func durableScenarios() []durableScenario {
	errProvider := errors.New("provider unavailable")
	explode := fnTool{Name: "explode", Fn: func(context.Context, string) (string, error) {
		panic("the tool blew up")
	}}
	wait := fnTool{Name: "wait", Fn: func(ctx context.Context, _ string) (string, error) {
		ctx.Value(cancelKey{}).(context.CancelFunc)()
		<-ctx.Done()
		return "", ctx.Err()
	}}
	return []durableScenario{
		{
			name:    "a model error",
			model:   func() *scripted.Model { return scripted.New(scripted.Fail(errProvider)) },
			tools:   []tool.BaseTool{echo("search")},
			outcome: recorder.OutcomeError, errText: "provider unavailable",
		},
		{
			name: "a tool panic",
			model: func() *scripted.Model {
				return scripted.New(scripted.Call("explode", `{}`), scripted.Reply("never reached"))
			},
			tools:   []tool.BaseTool{explode},
			outcome: recorder.OutcomeError, errText: "the tool blew up",
		},
		{
			name: "a ctx cancelled during a tool",
			model: func() *scripted.Model {
				return scripted.New(scripted.Call("wait", `{}`), scripted.Reply("never reached"))
			},
			tools:   []tool.BaseTool{wait},
			outcome: recorder.OutcomeCancelled, errText: "context canceled",
			cancels: true,
		},
		{
			name: "a model error after tool calls",
			model: func() *scripted.Model {
				return scripted.New(scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`), scripted.Fail(errProvider))
			},
			tools:   []tool.BaseTool{echo("search")},
			outcome: recorder.OutcomeError, errText: "provider unavailable",
		},
	}
}

// TestTheRunsEndIsKeptWhenTheRecorderIsClosedRightAfter checks that a
// run's end, errors included, is queued for the recording before Generate
// returns or the stream reports its end: a caller that closes its
// Recorder straight after the run finds run_ended in the file, every
// time, for every way a react run can fail.
func TestTheRunsEndIsKeptWhenTheRecorderIsClosedRightAfter(t *testing.T) {
	for _, sc := range durableScenarios() {
		for _, mode := range []drivetest.Mode{drivetest.Generate, drivetest.Stream} {
			t.Run(sc.name+"/"+mode.String(), func(t *testing.T) {
				// Every run appends to the same file, through a sink and a
				// Recorder of its own, closed as soon as the run returns.
				path := filepath.Join(t.TempDir(), "runs.jsonl")
				for i := range durableRuns {
					runOnce(t, sc, mode, path, i)
				}

				records, tear, err := recorder.ReadFile(path)
				require.NoError(t, err)
				require.Nil(t, tear, "no torn line")
				runs := byRun(records)
				require.Len(t, runs, durableRuns)
				ended := 0
				for id, recs := range runs {
					require.Empty(t, recs[0].ParentRunID, "run %s is a root run", id)
					k := kinds(recs)
					require.Equal(t, 1, k[recorder.KindRunStarted], "run %s", id)
					last, ok := recs[len(recs)-1].Payload.(*recorder.RunEnded)
					if !assert.True(t, ok, "run %s ends with run_ended, not %s", id, recs[len(recs)-1].Kind()) {
						continue
					}
					assert.Equal(t, 1, k[recorder.KindRunEnded], "run %s", id)
					assert.Equal(t, sc.outcome, last.Outcome, "run %s", id)
					assert.Contains(t, last.Error, sc.errText, "run %s", id)
					ended++
				}
				assert.Equal(t, durableRuns, ended, "run_ended kept in %d of %d runs", ended, durableRuns)
				adaptertest.AssertDenseSeq(t, records)
			})
		}
	}
}

// runOnce makes run i of sc in mode, recorded to the file at path, and
// closes the Recorder as soon as the run has returned (for a stream,
// once it has been read to its end).
func runOnce(t *testing.T, sc durableScenario, mode drivetest.Mode, path string, i int) {
	t.Helper()
	sink, err := recorder.NewFileSink(path, nil)
	require.NoError(t, err)
	rec := recorder.New(sink, &recorder.Options{OnError: func(_ context.Context, err error) {
		t.Errorf("run %d: recorder: %v", i, err)
	}})
	l, err := lookoutreact.New(context.Background(), &lookout.Config{Recorder: rec})
	require.NoError(t, err)
	a := newAgent(t, agentSpec{model: sc.model(), tools: sc.tools, lookout: l})

	ctx := context.Background()
	if sc.cancels {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		ctx = context.WithValue(ctx, cancelKey{}, cancel)
	}
	o := a.runCtx(ctx, mode.Streaming())
	closeErr := rec.Close(context.Background())
	require.Error(t, o.err, "run %d", i)
	require.NoError(t, closeErr, "run %d", i)
}
