package summary_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

// manyPrompts is n runs of one prompt each.
func manyPrompts(n int) []recorder.Record {
	tp := newTape()
	for i := range n {
		run := fmt.Sprintf("run-%03d", i)
		tp.start(run, "", "agent").user(run, "question "+run).reply(run, "answer", 1, 1).end(run, recorder.OutcomeCompleted, "")
	}
	return tp.records
}

// gatedModel answers goodAnswer once released, counting calls in flight.
type gatedModel struct {
	started  chan struct{}
	gate     chan struct{}
	inflight atomic.Int32
	most     atomic.Int32
}

func (g *gatedModel) Generate(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	n := g.inflight.Add(1)
	defer g.inflight.Add(-1)
	for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
	}
	g.started <- struct{}{}
	<-g.gate
	return schema.AssistantMessage(goodAnswer, nil), nil
}

func (g *gatedModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("not streamed")
}

func TestSummarizeRunsConcurrentlyWithinTheLimit(t *testing.T) {
	g := &gatedModel{started: make(chan struct{}, 100), gate: make(chan struct{})}
	s, err := summary.New(&summary.Config{Model: g, Concurrency: 4})
	require.NoError(t, err)
	done := make(chan summary.Prompts)
	go func() {
		ps, _ := s.Summarize(context.Background(), manyPrompts(12))
		done <- ps
	}()
	for range 4 {
		<-g.started
	}
	assert.Equal(t, int32(4), g.inflight.Load(), "four calls at once")
	close(g.gate)
	ps := <-done
	require.Len(t, ps, 12)
	assert.Equal(t, int32(4), g.most.Load(), "never more than four")
	for i, p := range ps {
		assert.Equal(t, fmt.Sprintf("run-%03d", i), p.RunID, "in order")
		assert.Equal(t, "Listed the files.", p.Summary)
	}
}

func TestSummarizeRetriesWithBackoff(t *testing.T) {
	var calls atomic.Int32
	m := &fakeModel{reply: func(call int, _ []*schema.Message) (*schema.Message, error) {
		calls.Add(1)
		if call < 2 {
			return nil, errors.New("429 too many requests")
		}
		return schema.AssistantMessage(goodAnswer, nil), nil
	}}
	var waits []time.Duration
	var mu sync.Mutex
	s, err := summary.New(&summary.Config{Model: m, Concurrency: 1, RetryDelay: time.Second, Sleep: func(_ context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return nil
	}})
	require.NoError(t, err)
	ps, err := s.Summarize(context.Background(), manyPrompts(1))
	require.NoError(t, err)
	assert.Equal(t, 3, ps[0].Attempts)
	assert.Equal(t, "Listed the files.", ps[0].Summary)
	require.Len(t, waits, 2)
	assert.GreaterOrEqual(t, waits[0], 500*time.Millisecond)
	assert.LessOrEqual(t, waits[0], time.Second)
	assert.GreaterOrEqual(t, waits[1], time.Second, "the wait doubles")
	assert.LessOrEqual(t, waits[1], 2*time.Second)

	t.Run("gives up after MaxAttempts", func(t *testing.T) {
		m := &fakeModel{reply: func(int, []*schema.Message) (*schema.Message, error) { return nil, errors.New("down") }}
		s, err := summary.New(&summary.Config{Model: m, MaxAttempts: 2, Sleep: func(context.Context, time.Duration) error { return nil }})
		require.NoError(t, err)
		ps, err := s.Summarize(context.Background(), manyPrompts(3))
		assert.ErrorIs(t, err, summary.ErrModel)
		for _, p := range ps {
			assert.Equal(t, 2, p.Attempts)
			assert.NotEmpty(t, p.Error)
		}
		assert.Equal(t, 6, m.calls)
	})
}

func TestSummarizeResumesFromPreviousPrompts(t *testing.T) {
	records := manyPrompts(5)
	failing := &fakeModel{reply: func(call int, _ []*schema.Message) (*schema.Message, error) {
		if call%2 == 1 {
			return nil, errors.New("down")
		}
		return schema.AssistantMessage(goodAnswer, nil), nil
	}}
	var saved summary.Prompts
	s, err := summary.New(&summary.Config{Model: failing, Concurrency: 1, MaxAttempts: 1, OnPrompt: func(p summary.Prompt) { saved = append(saved, p) }})
	require.NoError(t, err)
	_, err = s.Summarize(context.Background(), records)
	require.Error(t, err)
	require.Len(t, saved, 5, "OnPrompt saw every prompt")

	again := answering(goodAnswer)
	s, err = summary.New(&summary.Config{Model: again, Previous: saved})
	require.NoError(t, err)
	ps, err := s.Summarize(context.Background(), records)
	require.NoError(t, err)
	assert.Equal(t, 2, again.calls, "only the prompts that failed are sent again")
	for _, p := range ps {
		assert.Equal(t, "Listed the files.", p.Summary)
	}
}

func TestOnlineSummarizesEachPromptWhenItsRunEnds(t *testing.T) {
	ctx := context.Background()
	s, err := summary.New(&summary.Config{Model: answering(goodAnswer)})
	require.NoError(t, err)
	next := recorder.NewMemorySink()
	var seen []string
	o, err := summary.NewOnline(summary.OnlineConfig{Summarizer: s, Next: next, OnSummary: func(p summary.Prompt) { seen = append(seen, p.Query) }})
	require.NoError(t, err)

	tp := newTape()
	tp.add("t0", &recorder.RunStarted{Metadata: map[string]string{summary.MetaConversation: "conv-1", summary.MetaTurn: "0"}})
	tp.user("t0", "find flights").reply("t0", "TP123", 1, 1)
	for i := range tp.records {
		require.NoError(t, o.Write(ctx, &tp.records[i]))
	}
	require.NoError(t, o.Flush(ctx))
	_, ok := o.Lookup("conv-1", 0)
	assert.False(t, ok, "no summary before the run ends")

	tp.end("t0", recorder.OutcomeCompleted, "")
	tp.add("t1", &recorder.RunStarted{Metadata: map[string]string{summary.MetaConversation: "conv-1", summary.MetaTurn: "1"}})
	tp.user("t1", "book it").reply("t1", "booked", 1, 1).end("t1", recorder.OutcomeCompleted, "")
	for i := 3; i < len(tp.records); i++ {
		require.NoError(t, o.Write(ctx, &tp.records[i]))
	}
	require.NoError(t, o.Close(ctx))
	p, ok := o.Lookup("conv-1", 1)
	require.True(t, ok)
	assert.Equal(t, "book it", p.Query)
	assert.Equal(t, "Listed the files.", p.Summary)
	p, ok = o.Lookup("conv-1", 0)
	require.True(t, ok)
	assert.Equal(t, "find flights", p.Query)
	assert.Len(t, o.Prompts(), 2)
	assert.ElementsMatch(t, []string{"find flights", "book it"}, seen)
	assert.Len(t, next.Records(), len(tp.records), "every record reached the next sink")
	assert.Zero(t, o.Failed())

	_, err = summary.NewOnline(summary.OnlineConfig{})
	assert.ErrorIs(t, err, summary.ErrNoModel)
}
