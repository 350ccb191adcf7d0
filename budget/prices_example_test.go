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

// The default table prices the common models by their families' entries.
func ExampleDefaultPrices() {
	prices := budget.DefaultPrices()
	for _, model := range []string{"gpt-4o-mini-2024-07-18", "claude-sonnet-4-5-20250929", "gemini-2.5-flash-lite", "llama3.1"} {
		p, ok := prices.Lookup(model)
		fmt.Printf("%s: %v $%.2f/$%.2f\n", model, ok, p.InputPerMTok, p.OutputPerMTok)
	}
	// Output:
	// gpt-4o-mini-2024-07-18: true $0.15/$0.60
	// claude-sonnet-4-5-20250929: true $3.00/$15.00
	// gemini-2.5-flash-lite: true $0.10/$0.40
	// llama3.1: false $0.00/$0.00
}
