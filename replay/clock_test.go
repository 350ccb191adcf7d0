package replay_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/replay"
)

// stepClock moves on by step at every reading.
type stepClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

var t0 = time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)

// slowRun runs an agent whose every call takes minutes by now, under a
// 30-minute limit, until the deadline stops it.
func slowRun(t *testing.T, chat model.ToolCallingChatModel, search tool.BaseTool, rec *recorder.Recorder, now func() time.Time) outcome {
	t.Helper()
	ctx := context.Background()
	cfg := config(rec, now)
	cfg.Limits = budget.Limits{Timeout: 30 * time.Minute}
	mw, err := lookoutadk.New(ctx, cfg)
	require.NoError(t, err)
	w := &world{mw: mw, model: every(chat), tools: unwrapped}
	agent := w.agent(t, "searcher", instruction, search)
	return drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}).Query(ctx, "search everything"))
}

// The cassette's clock gives the run the recorded times: a run the
// deadline stopped stops at the same call when replayed, in a moment.
func TestTheClockGivesTheRecordedTimes(t *testing.T) {
	clock := &stepClock{now: t0, step: time.Minute}
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{Clock: clock.Now})
	m := scripted.New(scripted.Forever(scripted.Call("search", `{"q":"more"}`).WithUsage(10, 1)))
	want := slowRun(t, m, echo("search"), rec, clock.Now)
	require.NoError(t, rec.Close(context.Background()))
	require.ErrorIs(t, want.err, budget.ErrExceeded, "the recorded run ran out of time")
	records := sink.Records()

	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)
	started := records[0].Payload.(*recorder.RunStarted)
	assert.Equal(t, started.Limits.Deadline.Add(-30*time.Minute), c.Now(), "the clock starts when the budget did")
	got := slowRun(t, c.Model(), c.Tool(must("search", t)), nil, c.Now)
	require.NoError(t, c.Err())
	require.ErrorIs(t, got.err, budget.ErrExceeded)
	assert.Equal(t, want.err.Error(), got.err.Error())
	assert.Equal(t, len(want.tools), len(got.tools))
	assert.Zero(t, c.Remaining())
	assert.True(t, c.Now().After(t0.Add(30*time.Minute)), "the clock reached the recorded end: %v", c.Now())

	t.Run("which real time does not", func(t *testing.T) {
		c, err := replay.FromRecords(records, nil)
		require.NoError(t, err)
		got := slowRun(t, c.Model(), c.Tool(must("search", t)), nil, time.Now)
		d := divergence(t, got.err)
		// The recorded run's deadline refused the third reply's call;
		// with real time the call goes ahead, and that is where the run
		// leaves the recording.
		assert.Contains(t, d.Reason, `tool call search({"q":"more"}) is not in the recording`)
	})
}
