package lookout

import (
	"context"
	"errors"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
)

func TestNormalizedRejectsConfigsThatCannotWork(t *testing.T) {
	for _, c := range []struct {
		name  string
		cfg   Config
		field string // the field the error names
		also  error  // a second error the error wraps, if any
	}{
		{"negative limit", Config{Limits: budget.Limits{MaxTokens: -1}}, "Limits", budget.ErrInvalidLimits},
		{"unknown role", Config{InjectAs: schema.Assistant}, "InjectAs", nil},
		{"negative staleness", Config{MaxAgeCalls: -1}, "MaxAgeCalls", nil},
		{"unknown advisory resource", Config{Advisory: []budget.Resource{"money"}}, "Advisory", nil},
		{"wrap-up at the limit", Config{WrapUpAt: 1}, "WrapUpAt", nil},
		{"unknown tool-error mode", Config{ToolErrors: ToolErrors(7)}, "ToolErrors", nil},
		{"cost limit with no prices", Config{Limits: budget.Limits{MaxCostUSD: 1}, Prices: budget.Prices{}}, "Prices", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.cfg.normalized()
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), c.field)
			if c.also != nil {
				assert.ErrorIs(t, err, c.also)
			}
		})
	}
}

func TestNormalizedFillsDefaults(t *testing.T) {
	n, err := (*Config)(nil).normalized()
	require.NoError(t, err)
	assert.Equal(t, schema.User, n.InjectAs)
	assert.Equal(t, DefaultWrapUpAt, n.WrapUpAt)
	assert.Equal(t, DefaultRetention, n.Retention)
	assert.Equal(t, DefaultMaxRecordBytes, n.MaxRecordBytes)
	require.Len(t, n.Observers, 1)
	assert.Equal(t, observer.Trigger{EveryNCalls: 10, AfterConsecutiveErrors: 3}, n.Observers[0].Trigger)
	assert.NotNil(t, n.Now)
	assert.NotNil(t, n.OnError)
	assert.False(t, errors.Is(err, ErrInvalidConfig))
}

func TestNormalizedPricesWithTheDefaultsWhereTheyAreUsed(t *testing.T) {
	n, err := (&Config{Limits: budget.Limits{MaxCostUSD: 1}}).normalized()
	require.NoError(t, err)
	_, ok := n.Prices.Lookup("gpt-6-luna")
	assert.True(t, ok, "a cost limit is priced with the default table")
	n, err = (&Config{}).normalized()
	require.NoError(t, err)
	assert.Nil(t, n.Prices, "an unrecorded run without a cost limit prices nothing")
	own := budget.Prices{"mine": {InputPerMTok: 1}}
	n, err = (&Config{Limits: budget.Limits{MaxCostUSD: 1}, Prices: own}).normalized()
	require.NoError(t, err)
	assert.Equal(t, own, n.Prices, "a table of the program's own replaces the default")
}

func TestAPanickingOnErrorGoesNoFurther(t *testing.T) {
	n, err := (&Config{OnError: func(context.Context, error) { panic("handler bug") }}).normalized()
	require.NoError(t, err)
	assert.NotPanics(t, func() { n.OnError(context.Background(), errors.New("observer failed")) })
}
