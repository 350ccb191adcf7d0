package abharness_test

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/internal/abharness"
)

// TestTheEffectCanFail checks that the measure tells apart what reads the
// block from what does not: on every observer, the agent that parses the
// section wastes at least 30% fewer calls than with no block; shown a
// placebo, it saves none (within 5%); an agent that never reads the block,
// and one that changes course at random, save none either; one that
// reacts to the heading only lies between the placebo and the parsing
// agent. The table it measures is the one docs/observers.md shows.
func TestTheEffectCanFail(t *testing.T) {
	r, err := abharness.Measure(context.Background(), abharness.Scenarios(), 40, abharness.ScriptedAgents(), abharness.Block, abharness.Placebo)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, r.Print(&b))
	t.Log("\n" + b.String())
	doc, err := os.ReadFile("../../docs/observers.md")
	require.NoError(t, err)
	assert.Contains(t, string(doc), b.String(), "docs/observers.md shows the table go run ./cmd/abharness prints")
	for _, obs := range []string{"Stall", "Errors", "Drift"} {
		effect := func(agent string, cond abharness.Condition) float64 {
			c, ok := r.Cell(obs, agent, cond)
			require.True(t, ok, "%s %s %s", obs, agent, cond)
			// The random agent sometimes solves the scenario before the
			// observer speaks; every other agent is stuck until it does.
			require.GreaterOrEqual(t, len(c.Shown)+map[bool]int{true: 20}[agent == "random"], 40, "%s %s %s: seeds the observer spoke on", obs, agent, cond)
			return c.Effect()
		}
		parsing, placebo := effect("parsing", abharness.Block), effect("parsing", abharness.Placebo)
		assert.GreaterOrEqual(t, parsing, 0.30, obs)
		assert.InDelta(t, 0, placebo, 0.05, "%s: placebo", obs)
		assert.InDelta(t, 0, effect("oblivious", abharness.Block), 0.05, "%s: never sees the block", obs)
		assert.InDelta(t, 0, effect("random", abharness.Block), 0.05, "%s: random", obs)
		headings := effect("headings", abharness.Block)
		assert.Greater(t, headings, placebo, obs)
		assert.Less(t, headings, parsing, obs)
	}
}

func TestWastedCountsTheCallsAfterTheObserverSpokeUntilTheFix(t *testing.T) {
	for _, c := range []struct {
		o     abharness.Outcome
		n     int
		spoke bool
	}{
		{abharness.Outcome{Calls: 24, First: 4}, 20, true},
		{abharness.Outcome{Calls: 6, First: 4, SolvedAt: 5}, 0, true},
		{abharness.Outcome{Calls: 9, First: 4, SolvedAt: 8}, 3, true},
		{abharness.Outcome{Calls: 24}, 0, false},
		{abharness.Outcome{Calls: 3, First: 4, SolvedAt: 2}, 0, true},
	} {
		n, spoke := c.o.Wasted()
		assert.Equal(t, c.n, n, "%+v", c.o)
		assert.Equal(t, c.spoke, spoke, "%+v", c.o)
	}
}

func TestEffectAndItsInterval(t *testing.T) {
	c := abharness.Cell{Shown: []int{0, 10, 5, 5}, None: []int{10, 10, 10, 10}}
	assert.InDelta(t, 0.5, c.Effect(), 1e-9)
	lo, hi := c.Interval()
	assert.LessOrEqual(t, lo, 0.5)
	assert.GreaterOrEqual(t, hi, 0.5)
	assert.True(t, lo >= 0 && hi <= 1, "%v %v", lo, hi)
	assert.Zero(t, abharness.Cell{Shown: []int{0}, None: []int{0}}.Effect(), "nothing wasted, nothing saved")
	assert.False(t, math.IsNaN(abharness.Cell{}.Effect()))
}
