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

	"github.com/lookout-go/lookout/session"
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

func newTestRun(t *testing.T, cfg *Config) *Run {
	t.Helper()
	n, err := cfg.Normalized()
	require.NoError(t, err)
	r, err := NewRun(&n, session.New(nil))
	require.NoError(t, err)
	return r
}

func TestAStreamWithUsageSplitAcrossChunksIsChargedInFull(t *testing.T) {
	r := newTestRun(t, &Config{})
	c := &ChargingModel{Inner: splitUsageModel{}, Run: r}
	sr, err := c.Stream(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	require.NoError(t, err)
	for {
		if _, err := sr.Recv(); err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
	}
	b := r.Tracker.Budget()
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

func TestAModelCallCutByTheBudgetDeadlineEndsWithTheBudgetError(t *testing.T) {
	r := newTestRun(t, &Config{})
	ctx, cancel := WithDeadline(context.Background(), time.Now().Add(time.Millisecond), timeUp)
	defer cancel()
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
	r := newTestRun(t, &Config{})
	ctx, cancel := WithDeadline(context.Background(), time.Now().Add(time.Millisecond), timeUp)
	defer cancel()
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
