package engine

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"unsafe"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
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
	cut := Truncate(long, 1001)
	assert.Equal(t, strings.Repeat("é", 500), cut, "cut on a rune boundary")
	assert.False(t, within(cut, long), "a cut string must not hold on to the original's memory")

	short := "fits"
	assert.True(t, within(Truncate(short, 10), short), "a string that fits is returned as it is")
}

// A tool's huge output must not stay in memory through the call log, which
// keeps thousands of calls: only MaxRecordBytes of it may be kept.
func TestRecordedCallsDoNotPinLargeOutputs(t *testing.T) {
	cfg, err := (&Config{MaxRecordBytes: 64}).Normalized()
	require.NoError(t, err)
	store := session.New(nil)
	r, err := NewRun(&cfg, store)
	require.NoError(t, err)
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

// A stream that fails and is then read to its end ends its call once, as
// the failure.
func TestAStreamThatFailsIsRecordedOnce(t *testing.T) {
	cfg, err := (&Config{}).Normalized()
	require.NoError(t, err)
	store := session.New(nil)
	r, err := NewRun(&cfg, store)
	require.NoError(t, err)
	ctx := context.Background()

	c, refusal, err := r.Admit(ctx, "fetch", "c1", "{}")
	require.NoError(t, err)
	require.Empty(t, refusal)
	sr, sw := schema.Pipe[string](3)
	sw.Send("half", nil)
	sw.Send("", errors.New("connection reset"))
	sw.Close()
	out := PassStream(c, sr, func(s string) string { return s }, func(result string, err error) error {
		_, err = c.Record(ctx, result, err)
		return err
	})
	var errs int
	for {
		_, err := out.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			errs++
		}
	}
	assert.Equal(t, 1, errs)

	calls := session.LogOf[observer.ToolCallRecord](store)
	require.Equal(t, int64(1), calls.Total(), "recorded once")
	rec := calls.Last(1)[0]
	assert.False(t, rec.Success)
	assert.Equal(t, "half", rec.Result)
}
