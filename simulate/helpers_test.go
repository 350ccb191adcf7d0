package simulate

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeModel is a chat model driven by a function; it records every input.
type fakeModel struct {
	mu    sync.Mutex
	fn    func(n int, in []*schema.Message) (*schema.Message, error)
	calls [][]*schema.Message
}

func (f *fakeModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, in)
	f.mu.Unlock()
	return f.fn(n, in)
}

func (f *fakeModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := f.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{m}), nil
}

func (f *fakeModel) inputs() [][]*schema.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]*schema.Message(nil), f.calls...)
}

// stepUser answers with the instruction it was given, or "just chatting".
func stepUser() *fakeModel {
	return &fakeModel{fn: func(_ int, in []*schema.Message) (*schema.Message, error) {
		p := in[len(in)-1].Content
		const marker = "What to do in this message: "
		if i := strings.Index(p, marker); i >= 0 {
			line := p[i+len(marker):]
			line, _, _ = strings.Cut(line, "\n")
			return schema.AssistantMessage("I want to "+line, nil), nil
		}
		return schema.AssistantMessage("just chatting", nil), nil
	}}
}

// echoTarget answers every user message with "ok: <message>".
func echoTarget() TargetFunc {
	return func(_ context.Context, h []*schema.Message) ([]*schema.Message, error) {
		return []*schema.Message{schema.AssistantMessage("ok: "+h[len(h)-1].Content, nil)}, nil
	}
}

// toolTarget makes one tool call per turn, answers it, then replies.
func toolTarget(tool func(turn int) string) TargetFunc {
	turn := 0
	return func(_ context.Context, h []*schema.Message) ([]*schema.Message, error) {
		name := tool(turn)
		turn++
		if name == "" {
			return []*schema.Message{schema.AssistantMessage("sure", nil)}, nil
		}
		id := "call-" + name
		return []*schema.Message{
			schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: name, Arguments: `{"city":"Lisbon"}`}}}),
			schema.ToolMessage(name+" done", id, schema.WithToolName(name)),
			schema.AssistantMessage("done with "+name, nil),
		}, nil
	}
}

// testClock advances by step on every reading.
type testClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func newClock(step time.Duration) *testClock {
	return &testClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), step: step}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}

func noRanking(t *testing.T) Ranker {
	return RankerFunc(func(context.Context, RankInput) ([]Candidate, error) {
		t.Error("ranker called")
		return nil, errors.New("unexpected")
	})
}

func fixedRanking(cs ...Candidate) Ranker {
	return RankerFunc(func(context.Context, RankInput) ([]Candidate, error) { return cs, nil })
}

func never(context.Context, Progress) (bool, error) { return false, nil }

func methods(r *Result) []Method {
	var out []Method
	for _, t := range r.Traces {
		out = append(out, t.Selection.Method)
	}
	return out
}

func stepIDs(r *Result) []string {
	var out []string
	for _, t := range r.Traces {
		out = append(out, t.StepID)
	}
	return out
}

func stepState(r *Result, id string) StepState {
	for _, s := range r.Steps {
		if s.StepID == id {
			return s
		}
	}
	return StepState{}
}
