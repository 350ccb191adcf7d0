package drive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/recorder"
)

// A secret in the arguments of a call Stall quotes in its assessment is
// redacted in the recorded block, as it is in the tool call's records.
func TestASecretStallQuotesIsRedactedInTheRecordedAssessment(t *testing.T) {
	const secret = "sk-abcdefghijklmnop0123456789"
	l, sink, rec := recordedLookout(t, lookout.Config{
		Observers: []observer.Spec{{Observer: stall.New(), Trigger: observer.Trigger{OnEveryCall: true}}},
	})
	ctx := context.Background()
	_, r, err := l.Start(ctx, StartOptions{AgentName: "a"})
	require.NoError(t, err)
	args := `{"key":"` + secret + `"}`
	for range 4 {
		c, refusal, err := r.Admit(ctx, "fetch", "", args)
		require.NoError(t, err)
		require.Empty(t, refusal)
		_, err = c.End(ctx, "same", nil)
		require.NoError(t, err)
	}
	r.End(ctx, nil)
	require.NoError(t, rec.Flush(ctx))
	var blocks int
	for _, x := range sink.Records() {
		a, ok := x.Payload.(*recorder.AssessmentRecord)
		if !ok {
			continue
		}
		blocks++
		assert.NotContains(t, a.Markdown, secret[3:])
		assert.Contains(t, a.Markdown, recorder.Redacted)
	}
	assert.NotZero(t, blocks, "Stall spoke")
}
