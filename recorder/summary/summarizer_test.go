package summary_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

// fakeModel answers each Generate call with reply and records the input,
// unless forget is set.
type fakeModel struct {
	mu     sync.Mutex
	calls  int
	inputs [][]*schema.Message
	opts   []*model.Options
	reply  func(call int, in []*schema.Message) (*schema.Message, error)
	forget bool
}

func (m *fakeModel) Generate(_ context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	call := m.calls
	m.calls++
	if !m.forget {
		m.inputs = append(m.inputs, in)
		m.opts = append(m.opts, model.GetCommonOptions(nil, opts...))
	}
	m.mu.Unlock()
	return m.reply(call, in)
}

func (m *fakeModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *fakeModel) request(i int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inputs[i][len(m.inputs[i])-1].Content
}

func answering(text string) *fakeModel {
	return &fakeModel{reply: func(int, []*schema.Message) (*schema.Message, error) {
		return schema.AssistantMessage(text, nil), nil
	}}
}

const goodAnswer = `{"summary":"Listed the files.","tools_rationale":"ls shows files.","key_findings":["two files"],"confidence":"high"}`

// twoPrompts is a run with two user prompts and a child run with one.
func twoPrompts() *tape {
	return newTape().
		start("r1", "", "planner").
		user("r1", "list the files").
		reply("r1", "", 10, 2, "c1", "ls").
		toolStart("r1", "c1", "ls").
		toolEnd("r1", "c1", "ls", "a\nb").
		reply("r1", "There are two files.", 12, 4).
		start("r2", "r1", "helper").
		user("r2", "help").
		reply("r2", "helped", 1, 1).
		user("r1", "delete them").
		reply("r1", "", 5, 1, "c2", "rm").
		toolStart("r1", "c2", "rm").
		toolFail("r1", "c2", "rm", "permission denied").
		reply("r1", "I could not.", 5, 1).
		end("r1", recorder.OutcomeCompleted, "")
}

func fixedClock() time.Time { return time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC) }

func TestSummarizeTiesEachSummaryToItsUserMessage(t *testing.T) {
	m := answering(goodAnswer)
	s, err := summary.New(&summary.Config{Model: m, Clock: fixedClock, Concurrency: 1})
	require.NoError(t, err)

	prompts, err := s.Summarize(context.Background(), twoPrompts().records)
	require.NoError(t, err)

	require.Len(t, prompts, 3)
	got := make([]string, len(prompts))
	for i, p := range prompts {
		got[i] = p.RunID + "#" + itoa(p.Seq) + " " + p.Query
	}
	assert.Equal(t, []string{"r1#1 list the files", "r1#6 delete them", "r2#1 help"}, got)
	p := prompts[0]
	assert.Equal(t, "Listed the files.", p.Summary)
	assert.Equal(t, "ls shows files.", p.Rationale)
	assert.Equal(t, []string{"two files"}, p.Findings)
	assert.Equal(t, summary.High, p.Confidence)
	assert.Equal(t, fixedClock(), p.SummarizedAt)
	assert.Empty(t, p.Error)
	assert.Equal(t, "There are two files.", p.Response)
	assert.Equal(t, []string{"ls"}, p.Tools)
	assert.Equal(t, 2, p.ModelCalls)
	assert.Equal(t, 1, prompts[1].ToolErrors)

	req := m.request(0)
	assert.Contains(t, req, "list the files")
	assert.Contains(t, req, "There are two files.")
	assert.Contains(t, req, "model calls ls with {}")
	assert.Contains(t, req, "tool ls returned: a b")
	assert.NotContains(t, req, "delete them", "a prompt's request holds only its own records")
	assert.Contains(t, m.request(1), "tool rm failed: permission denied")
}

func TestSummarizePassesOptionsToTheModel(t *testing.T) {
	m := answering(goodAnswer)
	s, err := summary.New(&summary.Config{Model: m, Options: []model.Option{model.WithTemperature(0)}})
	require.NoError(t, err)
	_, err = s.Summarize(context.Background(), newTape().user("r", "q").records)
	require.NoError(t, err)
	require.NotNil(t, m.opts[0].Temperature)
	assert.Zero(t, *m.opts[0].Temperature)
}

func TestSummarizeBoundsTheRequest(t *testing.T) {
	huge := strings.Repeat("x", 100_000)
	tp := newTape().user("r", "read it")
	for i := range 200 {
		id := "c" + itoa(uint64(i))
		tp.reply("r", "", 1, 1, id, "cat").toolStart("r", id, "cat").toolEnd("r", id, "cat", huge)
	}
	m := answering(goodAnswer)
	s, err := summary.New(&summary.Config{Model: m, MaxFieldBytes: 100, MaxRequestBytes: 8 << 10})
	require.NoError(t, err)
	_, err = s.Summarize(context.Background(), tp.records)
	require.NoError(t, err)

	req := m.request(0)
	assert.LessOrEqual(t, len(req), 8<<10)
	assert.Contains(t, req, "entries left out")
	assert.Contains(t, req, "[1] model calls cat", "the start is kept")
	assert.Contains(t, req, "["+itoa(uint64(len(tp.records)-1))+"] tool cat returned", "the end is kept")
	assert.NotContains(t, req, strings.Repeat("x", 101), "each field is cut")
}

func TestSummarizeReportsFailuresPerPrompt(t *testing.T) {
	boom := errors.New("rate limited")
	cases := []struct {
		name  string
		reply func(call int, in []*schema.Message) (*schema.Message, error)
		want  error
	}{
		{"a failing model", func(int, []*schema.Message) (*schema.Message, error) { return nil, boom }, summary.ErrModel},
		{"a panicking model", func(int, []*schema.Message) (*schema.Message, error) { panic("oops") }, summary.ErrModel},
		{"a model that returns nothing", func(int, []*schema.Message) (*schema.Message, error) { return nil, nil }, summary.ErrModel},
		{"a garbled answer", func(int, []*schema.Message) (*schema.Message, error) {
			return schema.AssistantMessage("I'd rather not {", nil), nil
		}, summary.ErrResponse},
	}
	for _, tc := range cases {
		t.Run(tc.name+" fails only the prompt it answers", func(t *testing.T) {
			m := &fakeModel{reply: func(call int, in []*schema.Message) (*schema.Message, error) {
				if call == 1 {
					return tc.reply(call, in)
				}
				return schema.AssistantMessage(goodAnswer, nil), nil
			}}
			s, err := summary.New(&summary.Config{Model: m, MaxAttempts: 1, Concurrency: 1})
			require.NoError(t, err)

			prompts, err := s.Summarize(context.Background(), twoPrompts().records)

			require.ErrorIs(t, err, tc.want)
			var pe *summary.PromptError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "r1", pe.RunID)
			assert.Equal(t, uint64(6), pe.Seq)
			require.Len(t, prompts, 3)
			assert.NotEmpty(t, prompts[1].Error)
			assert.Empty(t, prompts[1].Summary)
			assert.Equal(t, 1, prompts[1].ToolCalls, "counted fields survive the failure")
			assert.Equal(t, "Listed the files.", prompts[0].Summary)
			assert.Equal(t, "Listed the files.", prompts[2].Summary)
		})
	}
}

func TestSummarizeStopsAskingOnceTheContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := &fakeModel{reply: func(int, []*schema.Message) (*schema.Message, error) {
		cancel()
		return schema.AssistantMessage(goodAnswer, nil), nil
	}}
	s, err := summary.New(&summary.Config{Model: m, Concurrency: 1})
	require.NoError(t, err)

	prompts, err := s.Summarize(ctx, twoPrompts().records)

	assert.ErrorIs(t, err, context.Canceled)
	assert.Len(t, m.inputs, 1)
	assert.Equal(t, "Listed the files.", prompts[0].Summary)
	assert.Equal(t, context.Canceled.Error(), prompts[1].Error)
	assert.Equal(t, context.Canceled.Error(), prompts[2].Error)
}

func TestSummarizerNeedsAModel(t *testing.T) {
	_, err := summary.New(nil)
	assert.ErrorIs(t, err, summary.ErrNoModel)
	_, err = summary.New(&summary.Config{})
	assert.ErrorIs(t, err, summary.ErrNoModel)

	var zero summary.Summarizer
	prompts, err := zero.Summarize(context.Background(), twoPrompts().records)
	assert.ErrorIs(t, err, summary.ErrNoModel)
	require.Len(t, prompts, 3)
	assert.Equal(t, "list the files", prompts[0].Query)
}

func TestSummarizeWithoutUserMessagesAsksNothing(t *testing.T) {
	m := answering(goodAnswer)
	s, err := summary.New(&summary.Config{Model: m})
	require.NoError(t, err)
	prompts, err := s.Summarize(context.Background(), newTape().start("r", "", "a").reply("r", "hi", 1, 1).records)
	require.NoError(t, err)
	assert.Empty(t, prompts)
	assert.Empty(t, m.inputs)
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func TestSummarizeReadsAnAnswerGivenInOutputParts(t *testing.T) {
	m := &fakeModel{reply: func(int, []*schema.Message) (*schema.Message, error) {
		return &schema.Message{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{
			{Type: schema.ChatMessagePartTypeText, Text: goodAnswer},
		}}, nil
	}}
	s, err := summary.New(&summary.Config{Model: m})
	require.NoError(t, err)

	tp := newTape().user("r", "describe the chart")
	tp.add("r", &recorder.ModelResponse{Message: &schema.Message{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "It rises."},
	}}})
	prompts, err := s.Summarize(context.Background(), tp.records)

	require.NoError(t, err)
	assert.Equal(t, "Listed the files.", prompts[0].Summary)
	assert.Contains(t, m.request(0), "[1] model says: It rises.")
}

func TestSummarizeKeepsTheRequestUnderItsBoundWithLongFields(t *testing.T) {
	huge := strings.Repeat("y", 100_000)
	tp := newTape().user("r", huge)
	for i := range 50 {
		id := "c" + itoa(uint64(i))
		tp.reply("r", "", 1, 1, id, "cat").toolStart("r", id, "cat").toolEnd("r", id, "cat", huge)
	}
	tp.reply("r", huge, 1, 1)
	for _, limit := range []int{256, 1 << 10, 4 << 10} {
		m := answering(goodAnswer)
		s, err := summary.New(&summary.Config{Model: m, MaxFieldBytes: 8 << 10, MaxRequestBytes: limit})
		require.NoError(t, err)
		_, err = s.Summarize(context.Background(), tp.records)
		require.NoError(t, err)

		req := m.request(0)
		assert.LessOrEqual(t, len(req), limit)
		assert.Contains(t, req, "User request:\nyyy")
		assert.Contains(t, req, "Final answer:\nyyy")
		assert.Contains(t, req, "entries left out")
	}
}

func TestSummarizeAndSplitSkipRecordsWithoutAPayload(t *testing.T) {
	m := answering(goodAnswer)
	s, err := summary.New(&summary.Config{Model: m})
	require.NoError(t, err)
	var prompts summary.Prompts
	require.NotPanics(t, func() { prompts, err = s.Summarize(context.Background(), nilPayloads()) })
	require.NoError(t, err)
	require.Len(t, prompts, 1)
	assert.Equal(t, "Listed the files.", prompts[0].Summary)
}

// appendingModel adds an option of its own to the ones it is given, as
// model wrappers do, and answers goodAnswer.
type appendingModel struct{}

func (appendingModel) Generate(_ context.Context, _ []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	opts = append(opts, model.WithMaxTokens(100))
	if *model.GetCommonOptions(nil, opts...).MaxTokens != 100 {
		return nil, errors.New("own option lost")
	}
	return schema.AssistantMessage(goodAnswer, nil), nil
}

func (m appendingModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func TestSummarizerIsSafeForConcurrentUseWithAModelThatAppendsOptions(t *testing.T) {
	// Eleven options are cloned into a slice with room for a twelfth.
	opts := make([]model.Option, 11)
	for i := range opts {
		opts[i] = model.WithTemperature(float32(i))
	}
	s, err := summary.New(&summary.Config{Model: appendingModel{}, Options: opts})
	require.NoError(t, err)

	records := twoPrompts().records
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Summarize(context.Background(), records)
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
}
