package atif

import (
	"cmp"
	"runtime/debug"
	"sync"

	"github.com/lookout-go/lookout/recorder"
)

// agent is the agent of run r's trajectory: the options first, then what
// the run recorded, then the defaults (see Options.AgentName).
func (x *exporter) agent(r *run, rt *runTrace) Agent {
	var version, model string
	if r.info != nil {
		version, model = r.info.AgentVersion, r.info.AgentModel
	}
	return Agent{
		Name:            cmp.Or(x.opts.AgentName, r.agentName, "agent"),
		Version:         cmp.Or(x.opts.AgentVersion, version, mainVersion()),
		ModelName:       cmp.Or(x.opts.ModelName, model, rt.answered, rt.first),
		ToolDefinitions: x.toolDefinitions(rt.tools.defs),
	}
}

// responseMetrics are the metrics of a model response's step: its
// prompt, completion and cached tokens and its cost, with the cache
// writes and reasoning tokens, which ATIF has no field for, in extra.
func responseMetrics(p *recorder.ModelResponse) *Metrics {
	m := metrics(p.Usage)
	if p.CostUSD > 0 {
		cost := p.CostUSD
		m.CostUSD = &cost
	}
	if p.Usage.CacheWriteTokens > 0 {
		if m.Extra == nil {
			m.Extra = map[string]any{}
		}
		m.Extra["cache_write_tokens"] = p.Usage.CacheWriteTokens
	}
	return m
}

// addCost adds a cost in dollars, when it is known.
func (t *tokenSum) addCost(usd *float64) {
	if usd != nil {
		t.costKnown = true
		t.cost += *usd
	}
}

// mainVersion is the version of the program's main module in its build
// info, or "devel" when it has none.
var mainVersion = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return "devel"
	}
	return info.Main.Version
})
