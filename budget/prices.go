package budget

import (
	"fmt"
	"math"
	"strings"
)

// Price is what a model charges, in US dollars per million tokens.
// CachedInputPerMTok prices the prompt tokens read from the provider's
// cache; the other prompt tokens, cache writes included, are priced at
// InputPerMTok. Reasoning tokens count inside the completion tokens and
// are priced at OutputPerMTok. The zero Price is free.
type Price struct {
	InputPerMTok       float64 `json:"input_per_mtok"`
	CachedInputPerMTok float64 `json:"cached_input_per_mtok"`
	OutputPerMTok      float64 `json:"output_per_mtok"`
}

// Prices maps model names to their prices. A model is priced by its own
// entry or, failing that, by the longest entry its name starts with, so
// that "gpt-4o-mini" prices "gpt-4o-mini-2024-07-18". A nil Prices prices
// nothing. It is read-only once in use, and then safe for concurrent use.
type Prices map[string]Price

// Validate reports prices that are negative or not numbers.
func (p Prices) Validate() error {
	for name, price := range p {
		for _, v := range []float64{price.InputPerMTok, price.CachedInputPerMTok, price.OutputPerMTok} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: price of %q: %v is not a non-negative number", ErrInvalidLimits, name, v)
			}
		}
	}
	return nil
}

// Lookup returns the price of model, and false when it has none.
func (p Prices) Lookup(model string) (Price, bool) {
	if price, ok := p[model]; ok {
		return price, true
	}
	best, found := "", false
	for name := range p {
		if name != "" && strings.HasPrefix(model, name) && len(name) > len(best) {
			best, found = name, true
		}
	}
	return p[best], found
}

// Cost returns what u costs on model, in US dollars, and false when the
// model has no price. The cached tokens are priced as cached input, the
// rest of the prompt as input, and the completion, reasoning included, as
// output; counts below zero count as zero, and cached tokens as no more
// than the prompt.
func (p Prices) Cost(model string, u Usage) (float64, bool) {
	price, ok := p.Lookup(model)
	if !ok {
		return 0, false
	}
	prompt, completion := max(u.PromptTokens, 0), max(u.CompletionTokens, 0)
	cached := min(max(u.CachedTokens, 0), prompt)
	return (float64(prompt-cached)*price.InputPerMTok +
		float64(cached)*price.CachedInputPerMTok +
		float64(completion)*price.OutputPerMTok) / 1e6, true
}
