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

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/replay"
)

// memStore is an in-memory adk CheckPointStore.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *memStore) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[id] = append([]byte(nil), b...)
	return nil
}

// approval interrupts the run the first time it is called and approves
// on the resume.
func approval() fnTool {
	return fnTool{name: "approve", fn: func(ctx context.Context, _ string) (string, error) {
		if interrupted, _, _ := tool.GetInterruptState[any](ctx); !interrupted {
			return "", tool.Interrupt(ctx, "needs a human")
		}
		return "approved", nil
	}}
}

// interrupted runs a query that an approval interrupts, then resumes it,
// and returns the final answer.
func interrupted(t *testing.T, chat model.ToolCallingChatModel, tools func([]tool.BaseTool) []tool.BaseTool, rec *recorder.Recorder, now func() time.Time) outcome {
	t.Helper()
	w := newWorld(t, rec, now, every(chat), tools)
	return queryAndResume(t, w, w.agent(t, "deployer", instruction, echo("prep"), approval()), "deploy billing")
}

// A run interrupted and resumed replays across the interrupt: the
// resumed run goes on with the recorded run's calls.
func TestAnInterruptedAndResumedRunReplays(t *testing.T) {
	m := scripted.New(
		scripted.Call("prep", `{"step":1}`).WithUsage(100, 10),
		scripted.Call("approve", `{"change":"deploy"}`).WithUsage(200, 20),
		scripted.Reply("deployed").WithUsage(300, 30),
	)
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	want := interrupted(t, m, unwrapped, rec, nil)
	require.NoError(t, want.err)
	require.NoError(t, rec.Close(context.Background()))
	require.Equal(t, "deployed", want.final)

	c, err := replay.FromRecords(sink.Records(), nil)
	require.NoError(t, err)
	// The approval runs live: its interrupt is the tool's own doing.
	got := interrupted(t, c.Model(), func(ts []tool.BaseTool) []tool.BaseTool {
		out, err := c.Tools(context.Background(), []tool.BaseTool{must("prep", t), ts[1]}, "approve")
		require.NoError(t, err)
		return out
	}, nil, c.Now)
	require.NoError(t, got.err)
	require.NoError(t, c.Err())
	assert.Equal(t, "deployed", got.final)
	assert.Zero(t, c.Remaining())
}

// nestedInterrupt runs a lead whose sub-agent, used as a tool, is
// interrupted by an approval, then resumes it.
func nestedInterrupt(t *testing.T, models func(string) model.ToolCallingChatModel, wrap func([]tool.BaseTool) []tool.BaseTool, rec *recorder.Recorder, now func() time.Time) outcome {
	t.Helper()
	w := newWorld(t, rec, now, models, wrap)
	child := w.agent(t, "deployer", "You deploy.", approval())
	return queryAndResume(t, w, w.agent(t, "lead", "You lead.", adk.NewAgentTool(context.Background(), child)), "deploy it")
}

// A sub-agent interrupted inside its parent's tool call replays across
// the resume: the resumed parent and sub-agent go on with their recorded
// runs.
func TestAnInterruptedSubAgentReplays(t *testing.T) {
	models := map[string]model.ToolCallingChatModel{
		"lead": scripted.New(
			scripted.Calls(scripted.ToolCall{ID: "call_deploy", Name: "deployer", Arguments: `{"request":"deploy"}`}),
			scripted.Reply("all done"),
		),
		"deployer": scripted.New(scripted.Call("approve", `{}`), scripted.Reply("deployed")),
	}
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	want := nestedInterrupt(t, func(name string) model.ToolCallingChatModel { return models[name] }, unwrapped, rec, nil)
	require.NoError(t, want.err)
	require.NoError(t, rec.Close(context.Background()))
	require.Equal(t, "all done", want.final)

	c, err := replay.FromRecords(sink.Records(), nil)
	require.NoError(t, err)
	got := nestedInterrupt(t, every(c.Model()), func(ts []tool.BaseTool) []tool.BaseTool {
		out, err := c.Tools(context.Background(), ts, "approve", "deployer")
		require.NoError(t, err)
		return out
	}, nil, c.Now)
	require.NoError(t, got.err)
	require.NoError(t, c.Err())
	assert.Equal(t, "all done", got.final)
	assert.Zero(t, c.Remaining())
}
