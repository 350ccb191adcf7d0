package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/budget"
)

// splitUsageModel streams a reply whose usage is split across chunks, as
// some providers send it: the prompt tokens in the first chunk, the
// completion tokens in the last.
type splitUsageModel struct{}

func (splitUsageModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return nil, errors.New("not used")
}

func (splitUsageModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	usage := func(p, c int) *schema.ResponseMeta {
		return &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}}
	}
	return schema.StreamReaderFromArray([]*schema.Message{
		{Role: schema.Assistant, Content: "Hello", ResponseMeta: usage(1000, 1)},
		{Role: schema.Assistant, Content: " there"},
		{Role: schema.Assistant, ResponseMeta: &schema.ResponseMeta{Usage: &schema.TokenUsage{CompletionTokens: 50}}},
	}), nil
}

// newTestRun starts a root run of cfg, and returns it with its ctx.
func newTestRun(t *testing.T, cfg *lookout.Config) (context.Context, *drive.Run) {
	t.Helper()
	l, err := drive.New(cfg)
	require.NoError(t, err)
	ctx, r, err := l.Start(context.Background(), drive.StartOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { r.End(ctx, nil) })
	return ctx, r
}

// checkBudgetDeadline checks that err is the time budget's error, which
// is also a deadline.
func checkBudgetDeadline(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, budget.ErrExceeded)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var ex *budget.ExceededError
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, budget.Time, ex.Resource)
}

func TestAStreamWithUsageSplitAcrossChunksIsChargedInFull(t *testing.T) {
	ctx, r := newTestRun(t, &lookout.Config{})
	c := &ChargingModel{Inner: splitUsageModel{}, Run: r}
	sr, err := c.Stream(ctx, []*schema.Message{schema.UserMessage("hi")})
	require.NoError(t, err)
	for {
		if _, err := sr.Recv(); err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
	}
	b := r.Budget()
	assert.Equal(t, int64(1000), b.PromptTokens)
	assert.Equal(t, int64(50), b.CompletionTokens)
	assert.Equal(t, int64(1050), b.TokensUsed)
}

// ctxErrModel waits on a ctx of its own, derived from the call's, and
// returns that ctx's error, as a provider client may.
type ctxErrModel struct{ splitUsageModel }

func (ctxErrModel) Generate(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	own, cancel := context.WithCancel(ctx)
	defer cancel()
	<-own.Done()
	return nil, fmt.Errorf("provider: %w", own.Err())
}

// cutByDeadline is a config whose run's ctx ends a millisecond after its
// start, in the middle of its first call: its budget's clock stands
// still, so that the gate before the call, however late it comes on a
// busy machine, never finds the time spent.
func cutByDeadline() *lookout.Config {
	start := time.Now()
	return &lookout.Config{Limits: budget.Limits{Timeout: time.Millisecond}, Now: func() time.Time { return start }}
}

func TestAModelCallCutByTheBudgetDeadlineEndsWithTheBudgetError(t *testing.T) {
	ctx, r := newTestRun(t, cutByDeadline())
	c := &ChargingModel{Inner: ctxErrModel{}, Run: r}
	_, err := c.Generate(ctx, []*schema.Message{schema.UserMessage("hi")})
	checkBudgetDeadline(t, err)
}

// midStreamModel streams a chunk, then fails with the ctx error of a ctx
// of its own once that ctx is done, as an HTTP client does.
type midStreamModel struct{ splitUsageModel }

func (midStreamModel) Stream(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	own, cancel := context.WithCancel(ctx)
	sr, sw := schema.Pipe[*schema.Message](1)
	go func() {
		defer cancel()
		defer sw.Close()
		sw.Send(&schema.Message{Role: schema.Assistant, Content: "thinking"}, nil)
		<-own.Done()
		sw.Send(nil, own.Err())
	}()
	return sr, nil
}

func TestAStreamCutByTheBudgetDeadlineEndsWithTheBudgetError(t *testing.T) {
	ctx, r := newTestRun(t, cutByDeadline())
	c := &ChargingModel{Inner: midStreamModel{}, Run: r}
	sr, err := c.Stream(ctx, []*schema.Message{schema.UserMessage("hi")})
	require.NoError(t, err)
	for {
		_, err = sr.Recv()
		if err != nil {
			break
		}
	}
	checkBudgetDeadline(t, err)
}

func TestToolCallCountMatchesConcatenation(t *testing.T) {
	idx := func(i int) *int { return &i }
	tests := map[string][]*schema.Message{
		"indexed chunks": {
			{ToolCalls: []schema.ToolCall{{Index: idx(0), ID: "a", Function: schema.FunctionCall{Name: "x"}}}},
			{ToolCalls: []schema.ToolCall{{Index: idx(0), Function: schema.FunctionCall{Arguments: "{}"}}}},
			{ToolCalls: []schema.ToolCall{{Index: idx(1), ID: "b", Function: schema.FunctionCall{Name: "y"}}}},
		},
		"whole calls without an index": {
			{ToolCalls: []schema.ToolCall{{ID: "a", Function: schema.FunctionCall{Name: "x"}}, {ID: "b", Function: schema.FunctionCall{Name: "y"}}}},
		},
		"text only": {{Content: "hello"}, nil, {Content: " world"}},
	}
	for name, chunks := range tests {
		var c toolCallCount
		var nonNil []*schema.Message
		for _, ch := range chunks {
			c.add(ch)
			if ch != nil {
				nonNil = append(nonNil, ch)
			}
		}
		msg, err := schema.ConcatMessages(nonNil)
		require.NoError(t, err, name)
		assert.Equal(t, len(msg.ToolCalls), c.n(), name)
	}
}
