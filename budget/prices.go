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
// entry or by the entry of the model it is a dated snapshot or alias of;
// see Lookup. A nil Prices prices nothing. It is read-only once in use,
// and then safe for concurrent use.
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
//
// A model is priced by its own entry or, failing that, by the entry of
// the model it is a dated snapshot or alias of: the entry whose name,
// followed by exactly one of these suffixes, is the model's name:
//
//   - a date: "-2025-08-07" (OpenAI), "-20251101" (Anthropic) or
//     "@20250514" (Vertex AI);
//   - "-latest";
//   - "-preview-MM-DD", as "-preview-05-20" (Gemini).
//
// So "claude-opus-4-5" prices "claude-opus-4-5-20251101" and
// "claude-opus-4-5@20251101". Nothing else falls through to a shorter
// entry: a name that goes on in any other way ("-mini", "-pro", "-5",
// ".1", or a date after another word) is another model, and without an
// entry of its own it has no price, so that "claude-opus-4" does not price
// "claude-opus-4-5" nor "o1" price "o1-pro". A model without a price costs
// nothing against a cost limit, and the limit says so (ErrUnpriced):
// better than a wrong price.
func (p Prices) Lookup(model string) (Price, bool) {
	if price, ok := p[model]; ok {
		return price, true
	}
	if base, ok := snapshotOf(model); ok {
		if price, ok := p[base]; ok {
			return price, true
		}
	}
	return Price{}, false
}

// snapshotOf returns the name of the model that model is a dated snapshot
// or alias of, and false when model ends in no suffix Lookup knows.
func snapshotOf(model string) (string, bool) {
	for _, layout := range snapshotLayouts {
		n := len(model) - len(layout)
		if n > 0 && isDate(model[n:], layout) {
			return model[:n], true
		}
	}
	return "", false
}

// snapshotLayouts are the suffixes snapshotOf knows, in isDate's layouts.
var snapshotLayouts = []string{"-latest", "-dddd-mm-xx", "-ddddmmxx", "@ddddmmxx", "-preview-mm-xx"}

// isDate reports whether s has the layout's form, where d is any digit, mm
// a month 01 to 12 and xx a day 01 to 31, and every other byte stands for
// itself.
func isDate(s, layout string) bool {
	if len(s) != len(layout) {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch layout[i] {
		case 'd', 'm', 'x':
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		default:
			if s[i] != layout[i] {
				return false
			}
		}
	}
	if m := strings.IndexByte(layout, 'm'); m >= 0 {
		if month := atoi2(s[m:]); month < 1 || month > 12 {
			return false
		}
	}
	if x := strings.IndexByte(layout, 'x'); x >= 0 {
		if day := atoi2(s[x:]); day < 1 || day > 31 {
			return false
		}
	}
	return true
}

// atoi2 returns the number the two digits s starts with make.
func atoi2(s string) int { return int(s[0]-'0')*10 + int(s[1]-'0') }

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

// DefaultPrices returns a new table of the list prices of models that
// OpenAI, Anthropic and DeepSeek offer, as their providers' own pages gave
// them when checked on 2026-12-07 (the pages are cited in the source), for
// standard use, not batch, priority or regional. OpenAI's are its base
// tier, for prompts of up to 272K tokens; DeepSeek's are its peak-hour
// rates, twice its off-peak ones, so that a call is never charged less
// than it costs. Models whose prices could not be checked on their
// provider's own page are left out, Gemini and Qwen models among them:
// they have no price (see Lookup), and a cost limit says so
// (ErrUnpriced). Prices change: check the ones you use, and give your own
// table where they differ. lookout.Config.Prices defaults to it.
func DefaultPrices() Prices {
	p := make(Prices, len(defaultPrices))
	for _, e := range defaultPrices {
		p[e.model] = e.price
	}
	return p
}

// defaultPrices is the table DefaultPrices returns, in dollars per
// million tokens: input, cached input (cache read), output. Cache writes
// are priced as input, as Price says.
//
// Checked on 2026-12-07 against the providers' own pages:
//
//   - Anthropic: https://platform.claude.com/docs/en/about-claude/pricing
//     (Fable 5.1, Fable 5, Opus 5, Opus 4.8 to 4.5),
//     https://platform.claude.com/docs/zh-CN/models/opus-5-5/overview,
//     https://platform.claude.com/docs/en/models/opus-5/overview and
//     https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview. The
//     cached input is the price of cache hits.
//   - OpenAI: https://developers.openai.com/api/docs/models/gpt-6.2-sol,
//     https://developers.openai.com/zh-Hans/api/docs/models/gpt-6-sol,
//     https://developers.openai.com/ja-JP/api/docs/models/gpt-6-luna and
//     https://developers.openai.com/api/docs/models/gpt-5.6-luna: prompts of
//     up to 272K input tokens (longer ones cost twice the input and 1.5
//     times the output rates).
//   - DeepSeek: https://api-docs.deepseek.com/quick_start/pricing: peak
//     hours (off-peak is half). deepseek-v4-flash is a legacy name that is
//     served and billed as deepseek-flash.
var defaultPrices = []struct {
	model string
	price Price
}{
	{"claude-fable-5-1", Price{10, 0.25, 50}},
	{"claude-fable-5", Price{10, 1, 50}},
	{"claude-opus-5-5", Price{4, 0.20, 20}},
	{"claude-opus-5", Price{5, 0.50, 25}},
	{"claude-opus-4-8", Price{5, 0.50, 25}},
	{"claude-opus-4-7", Price{5, 0.50, 25}},
	{"claude-opus-4-6", Price{5, 0.50, 25}},
	{"claude-opus-4-5", Price{5, 0.50, 25}},
	{"claude-sonnet-5", Price{2, 0.20, 10}},
	{"gpt-6.2-sol", Price{2, 0.10, 10}},
	{"gpt-6-sol", Price{2, 0.20, 10}},
	{"gpt-6-luna", Price{0.10, 0.01, 0.50}},
	{"gpt-5.6-luna", Price{0.20, 0.02, 1.20}},
	{"deepseek-flash", Price{0.30, 0.006, 1.20}},
	{"deepseek-v4-flash", Price{0.30, 0.006, 1.20}},
	{"deepseek-v4-pro", Price{1.32, 0.044, 3.96}},
}
