package observer_test

import (
	"time"

	"github.com/lookout-go/lookout/budget"
)

func budgetAt(timeout time.Duration, maxTokens, maxCalls int64) budget.Budget {
	return budget.New(budget.Limits{Timeout: timeout, MaxTokens: maxTokens, MaxToolCalls: maxCalls}, start)
}
