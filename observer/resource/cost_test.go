package resource_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/session"
)

func TestResourceTellsTheCostSpent(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := resource.New()
	b := budget.Budget{StartedAt: start, MaxCostUSD: 2, CostUSD: 1.5}
	a := r.Assess(b, start)
	assert.Equal(t, "You have spent $1.50 of $2.00 (75% of budget).", a.Summary)
	assert.Equal(t, observer.Caution, a.Severity)

	b.CostUSD = 2.1
	a = r.Assess(b, start)
	assert.Equal(t, "You have exhausted your cost budget.", a.Summary)
	assert.Equal(t, observer.Warning, a.Severity)
}

func TestResourceRunsOnACostLimitAlone(t *testing.T) {
	store := session.New(nil)
	session.ValueOf[budget.Budget](store).Seed(budget.Budget{MaxCostUSD: 0.0001, CostUSD: 0.000044})
	oc := &observer.Context{Store: store}
	r := resource.New()
	assert.True(t, r.ShouldRun(context.Background(), oc), "a cost limit is a limit to report")
	a, err := r.Observe(context.Background(), oc)
	assert.NoError(t, err)
	assert.Contains(t, a.Summary, "44% of budget")
}
