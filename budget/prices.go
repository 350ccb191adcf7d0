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

// DefaultPrices returns a new table of the list prices of common models,
// as their providers published them in October 2025, for text under 200,000
// prompt tokens: OpenAI, Anthropic, Google Gemini, DeepSeek and Alibaba's
// Qwen (international). Prices change, and a provider's tiers, batch and
// regional prices are not in it: check the ones you use, and give your
// own table where they differ. lookout.Config.Prices defaults to it.
func DefaultPrices() Prices {
	p := make(Prices, len(defaultPrices))
	for _, e := range defaultPrices {
		p[e.model] = e.price
	}
	return p
}

// defaultPrices is the table DefaultPrices returns, in dollars per
// million tokens: input, cached input, output.
var defaultPrices = []struct {
	model string
	price Price
}{
	{"gpt-5", Price{1.25, 0.125, 10}},
	{"gpt-5-mini", Price{0.25, 0.025, 2}},
	{"gpt-5-nano", Price{0.05, 0.005, 0.40}},
	{"gpt-4.1", Price{2, 0.50, 8}},
	{"gpt-4.1-mini", Price{0.40, 0.10, 1.60}},
	{"gpt-4.1-nano", Price{0.10, 0.025, 0.40}},
	{"gpt-4o", Price{2.50, 1.25, 10}},
	{"gpt-4o-mini", Price{0.15, 0.075, 0.60}},
	{"o1", Price{15, 7.50, 60}},
	{"o3", Price{2, 0.50, 8}},
	{"o3-mini", Price{1.10, 0.55, 4.40}},
	{"o4-mini", Price{1.10, 0.275, 4.40}},
	{"claude-opus-4", Price{15, 1.50, 75}},
	{"claude-sonnet-4", Price{3, 0.30, 15}},
	{"claude-3-7-sonnet", Price{3, 0.30, 15}},
	{"claude-3-5-haiku", Price{0.80, 0.08, 4}},
	{"gemini-2.5-pro", Price{1.25, 0.125, 10}},
	{"gemini-2.5-flash", Price{0.30, 0.03, 2.50}},
	{"gemini-2.5-flash-lite", Price{0.10, 0.01, 0.40}},
	{"gemini-2.0-flash", Price{0.10, 0.025, 0.40}},
	{"deepseek-chat", Price{0.28, 0.028, 0.42}},
	{"deepseek-reasoner", Price{0.28, 0.028, 0.42}},
	{"qwen-max", Price{1.60, 1.60, 6.40}},
	{"qwen-plus", Price{0.40, 0.40, 1.20}},
	{"qwen-turbo", Price{0.05, 0.05, 0.20}},
}
