package observer_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/stall"
)

// noteAt speaks after one call only, and is no Withdrawer: its section
// stays until it is replaced or goes stale.
type noteAt int64

func (n noteAt) Name() string { return "Note" }
func (n noteAt) ShouldRun(_ context.Context, oc *observer.Context) bool {
	return oc.CallIndex == int64(n)
}
func (n noteAt) Observe(context.Context, *observer.Context) (observer.Assessment, error) {
	return observer.Assessment{Summary: "A note.", Severity: observer.Info, Suggestions: []string{"Read it."}}, nil
}

func TestTheDetectorsAreWithdrawers(t *testing.T) {
	for _, o := range []observer.Observer{stall.New(), cascade.New(), drift.New()} {
		_, ok := o.(observer.Withdrawer)
		assert.True(t, ok, o.Name())
	}
}

func TestASectionLeavesTheBlockWhenTheAgentBreaksThePattern(t *testing.T) {
	h := newHarness(t, stall.New(), noteAt(4))
	h.run(times(4, readFile("go.mod", "module x"))...)
	block := observer.BuildContext(h.store, 0)
	require.Contains(t, block, "### Stall")
	require.Contains(t, block, "### Note")

	h.run(readFile("go.sum", "x"))
	block = observer.BuildContext(h.store, 0)
	assert.NotContains(t, block, "### Stall", "the agent moved on: Stall's section is withdrawn")
	assert.Contains(t, block, "### Note", "a section that is no Withdrawer's stays")
	assert.Contains(t, block, "_Generated after tool call #4_")
}

func TestASectionStaysWhileThePatternGoesOn(t *testing.T) {
	// Stall runs every fourth call: between runs, the repeats go on and
	// its section stays.
	h := newHarness(t)
	p, err := observer.NewPipeline(h.store, []observer.Spec{{Observer: stall.New(), Trigger: observer.Trigger{EveryNCalls: 4}}}, nil)
	require.NoError(t, err)
	for range 5 {
		p.AfterToolCall(context.Background(), readFile("go.mod", "module x"))
	}
	assert.Contains(t, observer.BuildContext(h.store, 0), "### Stall")
}

func TestAUserMessageWithdrawsTheDetectorsSections(t *testing.T) {
	h := newHarness(t, stall.New(), noteAt(4))
	h.run(times(4, readFile("go.mod", "module x"))...)
	h.p.UserMessage(context.Background())
	block := observer.BuildContext(h.store, 0)
	assert.NotContains(t, block, "### Stall")
	assert.Contains(t, block, "### Note")
}
