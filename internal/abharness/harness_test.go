package abharness_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/internal/abharness"
)

// TestAB runs the A/B scenarios; with -v it logs the tables that
// docs/observers.md shows. Efficacy must tell the agents apart: the
// oblivious agent follows at most 5% of every observer's assessments, the
// attentive one at least 95%.
func TestAB(t *testing.T) {
	r, err := abharness.Measure()
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, r.Print(&b))
	t.Log("\n" + b.String())
	for _, obs := range abharness.Observers {
		o, a := r.Rates["oblivious"][obs], r.Rates["attentive"][obs]
		assert.Positive(t, o.Judged, "%s: the oblivious agent was judged", obs)
		assert.Positive(t, a.Judged, "%s: the attentive agent was judged", obs)
		assert.LessOrEqual(t, o.Percent(), 5.0, "%s: the oblivious agent", obs)
		assert.GreaterOrEqual(t, a.Percent(), 95.0, "%s: the attentive agent", obs)
	}
}

// Without injection the attentive agent has nothing to act on, and does
// what the oblivious one does; with it, it finishes every scenario before
// the budget stops it.
func TestInjectionIsWhatChangesTheAttentiveAgent(t *testing.T) {
	r, err := abharness.Measure()
	require.NoError(t, err)
	byScenario := map[string]map[string]abharness.Row{}
	for _, row := range r.Rows {
		if byScenario[row.Scenario] == nil {
			byScenario[row.Scenario] = map[string]abharness.Row{}
		}
		byScenario[row.Scenario][row.Agent] = row
	}
	for name, rows := range byScenario {
		oblivious, attentive := rows["oblivious"], rows["attentive"]
		assert.Equal(t, oblivious.Without.Calls, attentive.Without.Calls, name)
		assert.True(t, attentive.Without.BudgetStop, name)
		assert.True(t, attentive.With.WrappedUp, name)
		assert.False(t, attentive.With.BudgetStop, name)
		assert.Less(t, attentive.With.Calls, oblivious.With.Calls, name)
		assert.True(t, oblivious.With.BudgetStop, name)
	}
}

func TestRateOfNothingJudgedIsZero(t *testing.T) {
	assert.Zero(t, abharness.Rate{}.Percent())
	assert.Equal(t, 50.0, abharness.Rate{Followed: 1, Judged: 2}.Percent())
}

func ExampleRate_Percent() {
	fmt.Printf("%.0f%%\n", abharness.Rate{Followed: 19, Judged: 20}.Percent())
	// Output: 95%
}
