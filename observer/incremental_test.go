package observer_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// recorder is an Incremental observer that records what its state is
// handed.
type recorder struct{ catchUp int }

func (r recorder) Name() string { return "recorder" }
func (r recorder) ShouldRun(context.Context, *observer.Context) bool {
	return false
}
func (r recorder) Observe(context.Context, *observer.Context) (observer.Assessment, error) {
	return observer.Assessment{}, nil
}
func (r recorder) NewCallState() observer.CallState { return &seen{catchUp: r.catchUp} }

type seen struct {
	catchUp int
	calls   []int64
	resets  int
}

func (s *seen) CatchUp() int            { return s.catchUp }
func (s *seen) Reset(*observer.Context) { s.resets++; s.calls = nil }
func (s *seen) Add(_ *observer.Context, r *observer.ToolCallRecord) {
	s.calls = append(s.calls, r.CallIndex)
}

func TestAnIncrementalStateSeesEveryCallOnceUnderASparseTrigger(t *testing.T) {
	var states []*seen
	o := &capturing{recorder: recorder{catchUp: 100}, states: &states}
	store := session.New(nil)
	p, err := observer.NewPipeline(store, []observer.Spec{{Observer: o, Trigger: observer.Trigger{EveryNCalls: 3}}}, nil)
	require.NoError(t, err)
	for range 7 {
		p.AfterToolCall(context.Background(), readFile("a.go", "x"))
	}
	// The observer never runs, so its trigger fires after every call from
	// the third on; the state is made once, and handed each call once.
	require.Len(t, states, 5)
	for _, st := range states {
		assert.Same(t, states[0], st)
	}
	assert.Equal(t, []int64{1, 2, 3, 4, 5, 6, 7}, states[0].calls)
	assert.Zero(t, states[0].resets)
}

func TestAnIncrementalStateIsResetWhenItMissedMoreThanItCatchesUp(t *testing.T) {
	var states []*seen
	o := &capturing{recorder: recorder{catchUp: 2}, states: &states}
	p, err := observer.NewPipeline(session.New(nil), []observer.Spec{{Observer: o, Trigger: observer.Trigger{EveryNCalls: 5}}}, nil)
	require.NoError(t, err)
	for range 5 {
		p.AfterToolCall(context.Background(), readFile("a.go", "x"))
	}
	require.Len(t, states, 1)
	assert.Equal(t, []int64{4, 5}, states[0].calls)
	assert.Equal(t, 1, states[0].resets)
}

// capturing is a recorder that keeps its state each time it is asked to
// run.
type capturing struct {
	recorder
	states *[]*seen
}

func (c *capturing) ShouldRun(_ context.Context, oc *observer.Context) bool {
	st, _ := oc.CallState().(*seen)
	*c.states = append(*c.states, st)
	return false
}
