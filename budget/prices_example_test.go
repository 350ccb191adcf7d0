package budget_test

import (
	"fmt"

	"github.com/lookout-go/lookout/budget"
)

// Cached prompt tokens are priced as cached input and reasoning tokens as
// output; a dated model name is priced by its family's entry.
func ExamplePrices_Cost() {
	prices := budget.Prices{"gpt-4o-mini": {InputPerMTok: 0.15, CachedInputPerMTok: 0.075, OutputPerMTok: 0.60}}
	cost, ok := prices.Cost("gpt-4o-mini-2024-07-18", budget.Usage{
		PromptTokens: 10_000, CachedTokens: 4_000, CompletionTokens: 1_000, ReasoningTokens: 200,
	})
	fmt.Printf("$%.6f %v\n", cost, ok)
	// Output: $0.001800 true
}
