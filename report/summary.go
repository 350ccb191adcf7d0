package report

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// addPayload adds the model a model request or response names.
func (s modelSet) addPayload(p recorder.Payload) {
	switch p := p.(type) {
	case *recorder.ModelRequest:
		if p != nil {
			s.add(p.Model, "")
		}
	case *recorder.ModelResponse:
		if p != nil {
			s.add(p.Model, p.Provider)
		}
	}
}

// modelSet is the models a run used, each with the providers named for
// it.
type modelSet map[string]map[string]bool

func (s modelSet) add(model, provider string) {
	if model == "" {
		return
	}
	p := s[model]
	if p == nil {
		p = map[string]bool{}
		s[model] = p
	}
	if provider != "" {
		p[provider] = true
	}
}

func (s modelSet) addTo(to modelSet) {
	for m, ps := range s {
		to.add(m, "")
		for p := range ps {
			to.add(m, p)
		}
	}
}

// String lists the models in order, each with its providers: "gpt-4o
// (OpenAI), m2".
func (s modelSet) String() string {
	parts := make([]string, 0, len(s))
	for _, m := range slices.Sorted(maps.Keys(s)) {
		if len(s[m]) > 0 {
			m += " (" + joinSet(s[m]) + ")"
		}
		parts = append(parts, m)
	}
	return strings.Join(parts, ", ")
}

// summarize is the header over all runs: root outcomes, every run's own
// usage added up, and the root runs' durations.
func summarize(roots, runs []*run) summary {
	s := summary{Runs: len(runs)}
	var total recorder.RunUsage
	models := modelSet{}
	for _, r := range runs {
		u := r.usage
		total.PromptTokens += u.PromptTokens
		total.CompletionTokens += u.CompletionTokens
		total.TotalTokens += u.TotalTokens
		total.CachedTokens += u.CachedTokens
		total.CacheWriteTokens += u.CacheWriteTokens
		total.ReasoningTokens += u.ReasoningTokens
		total.CostUSD += u.CostUSD
		total.ModelCalls += u.ModelCalls
		total.ToolCalls += u.ToolCalls
		r.models.addTo(models)
	}
	s.Usage = usageOf(total)
	s.Models = models.String()
	var d time.Duration
	outcomes := map[string]int{}
	for _, r := range roots {
		d += r.last.Sub(r.first)
		outcomes[r.Outcome]++
	}
	s.Duration = duration(d)
	if len(roots) == 1 {
		s.Outcome, s.Class, s.StopReason = roots[0].Outcome, roots[0].Class, roots[0].StopReason
		return s
	}
	var parts []string
	for _, o := range slices.Sorted(maps.Keys(outcomes)) {
		parts = append(parts, strconv.Itoa(outcomes[o])+" "+o)
	}
	s.Outcome, s.Class = strings.Join(parts, ", "), "mixed"
	return s
}

func joinSet(set map[string]bool) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}
