package drive

import (
	"context"
	"errors"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

// TestStartModelUnrecordedAsGuarded checks StartModel's path for a run
// neither recorded nor priced, which skips the guard, against the
// guarded one: the same call, counted in flight the same way, and req
// never called.
func TestStartModelUnrecordedAsGuarded(t *testing.T) {
	r := newTestRun(t, &lookout.Config{}, session.New(nil))
	ctx := context.Background()
	req := func() ModelOptions {
		t.Fatal("req called for a run neither recorded nor priced")
		return ModelOptions{}
	}
	fast, err := r.StartModel(ctx, nil, req)
	require.NoError(t, err)
	require.EqualValues(t, 1, r.family.attempts.n.Load())
	guarded, err := r.startModel(ctx, nil, req)
	require.NoError(t, err)
	require.EqualValues(t, 2, r.family.attempts.n.Load())
	require.Equal(t, guarded, fast)
	require.NoError(t, fast.End(ctx, schema.AssistantMessage("ok", nil), nil))
	require.NoError(t, guarded.End(ctx, schema.AssistantMessage("ok", nil), nil))
	require.EqualValues(t, 0, r.family.attempts.n.Load())
	require.EqualValues(t, 2, r.Budget().ModelCalls)
}

// TestModelCallEndsOnEveryPath checks that an attempt leaves the
// attempts in flight and the open streams however it ends: failed,
// answered, or with a panic in its charge, which goes to OnError.
func TestModelCallEndsOnEveryPath(t *testing.T) {
	var faults []error
	cfg := &lookout.Config{OnError: func(_ context.Context, err error) { faults = append(faults, err) }}
	r := newTestRun(t, cfg, session.New(nil))
	ctx := context.Background()
	start := func() ModelCall {
		c, err := r.StartModel(ctx, nil, nil)
		require.NoError(t, err)
		return c.Streamed()
	}
	idle := func() {
		t.Helper()
		require.EqualValues(t, 0, r.family.attempts.n.Load())
		require.EqualValues(t, 0, r.streams.n.Load())
	}

	failed := errors.New("model down")
	require.Same(t, failed, start().EndStream(ctx, nil, nil, -1, failed))
	idle()
	require.NoError(t, start().EndStream(ctx, nil, &budget.Usage{PromptTokens: 3}, 0, nil))
	idle()
	require.EqualValues(t, 3, r.Budget().TokensUsed)

	pipeline := r.pipeline
	r.pipeline = nil // the pipeline's own work panics
	require.NoError(t, start().EndStream(ctx, nil, nil, 0, nil))
	r.pipeline = pipeline
	idle()
	require.Len(t, faults, 1)
	require.ErrorContains(t, faults[0], "charging a model call panicked")
}
