package drive

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// within reports whether part's bytes lie inside whole's memory.
func within(part, whole string) bool {
	if len(part) == 0 || len(whole) == 0 {
		return false
	}
	p, w := uintptr(unsafe.Pointer(unsafe.StringData(part))), uintptr(unsafe.Pointer(unsafe.StringData(whole)))
	return p >= w && p < w+uintptr(len(whole))
}

func TestTruncateKeepsNothingOfWhatItCuts(t *testing.T) {
	long := strings.Repeat("é", 1000) // 2,000 bytes
	cut := truncate(long, 1001)
	assert.Equal(t, strings.Repeat("é", 500), cut, "cut on a rune boundary")
	assert.False(t, within(cut, long), "a cut string must not hold on to the original's memory")

	short := "fits"
	assert.True(t, within(truncate(short, 10), short), "a string that fits is returned as it is")
}

// A tool's huge output must not stay in memory through the call log, which
// keeps thousands of calls: only MaxRecordBytes of it may be kept.
func TestRecordedCallsDoNotPinLargeOutputs(t *testing.T) {
	store := session.New(nil)
	r := newTestRun(t, &lookout.Config{MaxRecordBytes: 64, ToolErrors: lookout.ToolErrorsAsMessages}, store)
	ctx := context.Background()

	args := `{"q":"` + strings.Repeat("a", 1<<16) + `"}`
	output := strings.Repeat("line of output\n", 1<<16)
	failure := errors.New(strings.Repeat("boom ", 1<<14))
	for _, callErr := range []error{nil, failure} {
		c, refusal, err := r.Admit(ctx, "search", "call", args)
		require.NoError(t, err)
		require.Empty(t, refusal)
		_, err = c.End(ctx, output, callErr)
		require.NoError(t, err)
	}

	calls := session.LogOf[observer.ToolCallRecord](store).Last(2)
	require.Len(t, calls, 2)
	for _, rec := range calls {
		assert.LessOrEqual(t, len(rec.Arguments), 64)
		assert.LessOrEqual(t, len(rec.Result), 64)
		assert.LessOrEqual(t, len(rec.ErrorMessage), 64)
		assert.False(t, within(rec.Arguments, args), "arguments")
		assert.False(t, within(rec.Result, output), "result")
	}
	assert.NotEmpty(t, calls[1].ErrorMessage)
}

// A call whose run ends first, such as a streamed result nobody reads to
// its end, is ended with the run: its tool_started has a tool_ended, and
// run_ended stays the last record even when the call ends after all.
func TestACallStillOpenWhenTheRunEndsIsEndedWithIt(t *testing.T) {
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	defer rec.Close(context.Background())
	l, err := New(&lookout.Config{Recorder: rec})
	require.NoError(t, err)
	ctx, r, err := l.Start(context.Background(), StartOptions{AgentName: "a"})
	require.NoError(t, err)

	c, refusal, err := r.Admit(ctx, "stream", "c1", "{}")
	require.NoError(t, err)
	require.Empty(t, refusal)
	c.HandOff(ctx)
	r.End(ctx, nil)
	require.NoError(t, c.EndStream(ctx, "late", nil))
	require.NoError(t, rec.Flush(ctx))

	records := sink.Records()
	var kinds []recorder.Kind
	for _, rec := range records {
		kinds = append(kinds, rec.Kind())
	}
	assert.Equal(t, []recorder.Kind{recorder.KindRunStarted, recorder.KindToolStarted, recorder.KindToolEnded, recorder.KindRunEnded}, kinds)
	ended := records[2].Payload.(*recorder.ToolEnded)
	assert.True(t, ended.IsError)
	assert.Equal(t, errAbandoned.Error(), ended.Error)
}

// A child's lease of tool calls refuses the calls over it, without
// ending the query: the refusal asks the agent to hand back.
func TestALeaseRefusesToolCallsOverItsCap(t *testing.T) {
	l, err := New(&lookout.Config{Leases: map[string]budget.Limits{"helper": {MaxToolCalls: 1}}})
	require.NoError(t, err)
	ctx, root, err := l.Start(context.Background(), StartOptions{AgentName: "lead"})
	require.NoError(t, err)
	ctx, child, err := l.Start(ctx, StartOptions{AgentName: "helper"})
	require.NoError(t, err)

	c, refusal, err := child.Admit(ctx, "search", "c1", "{}")
	require.NoError(t, err)
	require.Empty(t, refusal)
	_, err = c.End(ctx, "ok", nil)
	require.NoError(t, err)
	_, refusal, err = child.Admit(ctx, "search", "c2", "{}")
	require.NoError(t, err)
	assert.Contains(t, refusal, "lease of 1 tool calls is spent")
	_, refusal, err = root.Admit(ctx, "search", "c3", "{}")
	require.NoError(t, err)
	assert.Empty(t, refusal, "the lease is the child's alone")
	assert.Equal(t, int64(2), root.Budget().ToolCalls)

	turn, err := child.BeforeModel(ctx, nil, nil)
	require.NoError(t, err, "a spent lease is a wrap-up turn, not a stop")
	assert.True(t, turn.WrapUp)

	_, err = New(&lookout.Config{Leases: map[string]budget.Limits{"x": {MaxTokens: -1}}})
	assert.ErrorIs(t, err, lookout.ErrInvalidConfig)
}
