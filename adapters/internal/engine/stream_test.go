package engine

import (
	"errors"
	"io"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/lookout-go/lookout"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stream that fails and is then read to its end ends its call once, as
// the failure.
func TestAStreamThatFailsIsRecordedOnce(t *testing.T) {
	ctx, r := newTestRun(t, &lookout.Config{})

	c, refusal, err := r.Admit(ctx, "fetch", "c1", "{}")
	require.NoError(t, err)
	require.Empty(t, refusal)
	sr, sw := schema.Pipe[string](3)
	sw.Send("half", nil)
	sw.Send("", errors.New("connection reset"))
	sw.Close()
	out := PassStream(&c, sr, func(s string) string { return s }, func(result string, err error) error {
		return EndStream(ctx, &c, result, err)
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

	require.Equal(t, int64(1), r.Budget().ToolCalls)
	calls := r.ToolCalls(0)
	require.Len(t, calls, 1, "recorded once")
	rec := calls[0]
	assert.False(t, rec.Success)
	assert.Equal(t, "half", rec.Result)
}
