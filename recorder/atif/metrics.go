package atif

import "github.com/lookout-go/lookout/recorder"

func metrics(u recorder.TokenUsage) *Metrics {
	prompt, completion := int(u.PromptTokens), int(u.CompletionTokens)
	m := &Metrics{PromptTokens: &prompt, CompletionTokens: &completion}
	if u.CachedTokens > 0 {
		cached := int(u.CachedTokens)
		m.CachedTokens = &cached
	}
	if u.ReasoningTokens > 0 {
		m.Extra = map[string]any{"reasoning_tokens": u.ReasoningTokens}
	}
	return m
}

// totals are a trajectory's final metrics: total_steps counts its own
// steps, and the token totals add up its steps' metrics and the final
// metrics of the subagents it delegated to (delegated), which count their
// own subagents in turn, as Harbor's trajectories do.
func totals(steps []Step, delegated []*FinalMetrics) *FinalMetrics {
	n := len(steps)
	fm := &FinalMetrics{TotalSteps: &n}
	var sum tokenSum
	for _, s := range steps {
		sum.addStep(s.Metrics)
	}
	for _, sub := range delegated {
		sum.addSubagent(sub)
	}
	sum.setTotals(fm)
	return fm
}

// setTotals sets on fm the totals that t knows.
func (t *tokenSum) setTotals(fm *FinalMetrics) {
	if t.known {
		fm.TotalPromptTokens, fm.TotalCompletionTokens = &t.prompt, &t.completion
	}
	if t.cachedKnown {
		fm.TotalCachedTokens = &t.cached
	}
	if t.costKnown {
		fm.TotalCostUSD = &t.cost
	}
	if t.reasoning > 0 {
		fm.Extra = map[string]any{"total_reasoning_tokens": t.reasoning}
	}
}

// tokenSum adds up token counts. It remembers whether any prompt or
// completion count, and any cached count, was known at all: a total of
// nothing known is left out, not written as 0.
type tokenSum struct {
	prompt, completion, cached    int
	known, cachedKnown, costKnown bool
	cost                          float64
	reasoning                     int64
}

// addStep adds the metrics of a step, if it has any.
func (t *tokenSum) addStep(m *Metrics) {
	if m == nil {
		return
	}
	t.known = true
	t.prompt += deref(m.PromptTokens)
	t.completion += deref(m.CompletionTokens)
	t.addCached(m.CachedTokens)
	t.addCost(m.CostUSD)
	if n, ok := m.Extra["reasoning_tokens"].(int64); ok {
		t.reasoning += n
	}
}

// addSubagent adds the final metrics of a subagent, if it has any.
func (t *tokenSum) addSubagent(sub *FinalMetrics) {
	if sub == nil {
		return
	}
	if sub.TotalPromptTokens != nil || sub.TotalCompletionTokens != nil {
		t.known = true
		t.prompt += deref(sub.TotalPromptTokens)
		t.completion += deref(sub.TotalCompletionTokens)
	}
	t.addCached(sub.TotalCachedTokens)
	t.addCost(sub.TotalCostUSD)
	if n, ok := sub.Extra["total_reasoning_tokens"].(int64); ok {
		t.reasoning += n
	}
}

// addCached adds a cached token count, when it is known.
func (t *tokenSum) addCached(n *int) {
	if n != nil {
		t.cachedKnown = true
		t.cached += *n
	}
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
