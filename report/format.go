package report

import (
	"strconv"
	"strings"
	"time"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
)

func usageOf(u recorder.RunUsage) usage {
	return usage{
		Tokens:     observer.FormatCount(u.TotalTokens),
		Prompt:     observer.FormatCount(u.PromptTokens),
		Completion: observer.FormatCount(u.CompletionTokens),
		Cached:     countOrEmpty(u.CachedTokens),
		CacheWrite: countOrEmpty(u.CacheWriteTokens),
		Reasoning:  countOrEmpty(u.ReasoningTokens),
		Cost:       cost(u.CostUSD),
		ModelCalls: u.ModelCalls,
		ToolCalls:  u.ToolCalls,
	}
}

// countOrEmpty formats n, or returns "" for none.
func countOrEmpty(n int64) string {
	if n <= 0 {
		return ""
	}
	return observer.FormatCount(n)
}

// cost formats a cost in US dollars: cents above a dollar, four decimals
// below, and "" for none.
func cost(usd float64) string {
	switch {
	case !(usd > 0): // zero, negative or NaN: nothing recorded
		return ""
	case usd < 0.0001:
		return "< $0.0001"
	case usd < 1:
		return "$" + strconv.FormatFloat(usd, 'f', 4, 64)
	}
	return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
}

// limits describes a run's limits, or "none".
func limits(l recorder.RunLimits) string {
	parts := timeLimit(l)
	for _, n := range []struct {
		v    int64
		name string
	}{{l.MaxTokens, "tokens"}, {l.MaxModelCalls, "model calls"}, {l.MaxToolCalls, "tool calls"}} {
		if n.v > 0 {
			parts = append(parts, observer.FormatCount(n.v)+" "+n.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// timeLimit describes a run's timeout, or else its deadline, as the first
// of its limits' parts.
func timeLimit(l recorder.RunLimits) []string {
	if l.Timeout > 0 {
		return []string{duration(l.Timeout) + " timeout"}
	}
	if !l.Deadline.IsZero() {
		return []string{"deadline " + l.Deadline.UTC().Format(time.RFC3339)}
	}
	return nil
}

// duration rounds d to what a reader compares: microseconds under a
// millisecond, tenths of a millisecond under a second, milliseconds above.
func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		d = d.Round(time.Microsecond)
	case d < time.Second:
		d = d.Round(100 * time.Microsecond)
	default:
		d = d.Round(time.Millisecond)
	}
	return d.String()
}
