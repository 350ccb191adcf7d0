package budget_test

import (
	"fmt"

	"github.com/lookout-go/lookout/budget"
)

// Cached prompt tokens are priced as cached input and reasoning tokens as
// output; a dated snapshot is priced by its model's entry.
func ExamplePrices_Cost() {
	prices := budget.Prices{"gpt-4o-mini": {InputPerMTok: 0.15, CachedInputPerMTok: 0.075, OutputPerMTok: 0.60}}
	cost, ok := prices.Cost("gpt-4o-mini-2024-07-18", budget.Usage{
		PromptTokens: 10_000, CachedTokens: 4_000, CompletionTokens: 1_000, ReasoningTokens: 200,
	})
	fmt.Printf("$%.6f %v\n", cost, ok)
	// Output: $0.001800 true
}

// The default table prices a model and its dated snapshots by the model's
// own entry; another model that only shares a prefix with an entry, and a
// model not in the table, have no price.
func ExampleDefaultPrices() {
	prices := budget.DefaultPrices()
	for _, model := range []string{"claude-opus-4-5-20251101", "gpt-6.2-sol", "deepseek-flash", "claude-opus-4", "o1-pro", "llama3.1"} {
		p, ok := prices.Lookup(model)
		fmt.Printf("%s: %v $%.2f/$%.2f\n", model, ok, p.InputPerMTok, p.OutputPerMTok)
	}
	// Output:
	// claude-opus-4-5-20251101: true $5.00/$25.00
	// gpt-6.2-sol: true $2.00/$10.00
	// deepseek-flash: true $0.30/$1.20
	// claude-opus-4: false $0.00/$0.00
	// o1-pro: false $0.00/$0.00
	// llama3.1: false $0.00/$0.00
}

// Lookup prices dated snapshots and aliases by their model's entry, and no
// other model whose name starts with an entry's.
func ExamplePrices_Lookup() {
	prices := budget.Prices{
		"gpt-6-sol":       {InputPerMTok: 2, CachedInputPerMTok: 0.20, OutputPerMTok: 10},
		"claude-opus-4-5": {InputPerMTok: 5, CachedInputPerMTok: 0.50, OutputPerMTok: 25},
	}
	for _, model := range []string{"gpt-6-sol-2026-09-22", "claude-opus-4-5-20251101", "claude-opus-4-5@20251101", "claude-opus-4-5-latest", "gpt-6-sol-mini", "claude-opus-4-5-1"} {
		_, ok := prices.Lookup(model)
		fmt.Println(model, ok)
	}
	// Output:
	// gpt-6-sol-2026-09-22 true
	// claude-opus-4-5-20251101 true
	// claude-opus-4-5@20251101 true
	// claude-opus-4-5-latest true
	// gpt-6-sol-mini false
	// claude-opus-4-5-1 false
}
