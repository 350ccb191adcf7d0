package abharness

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// MaxToolCalls is every run's tool-call budget.
const MaxToolCalls = 24

// Call is a tool call, and what the tool answered.
type Call struct {
	Tool, Args, Result string
	// Err, when not empty, is the error the call failed with.
	Err string
	// Solved is set on the call that solved the scenario.
	Solved bool
}

// Condition is what the agent is shown before each turn.
type Condition string

// The conditions: no block; the block the observers wrote; and a placebo,
// the same block with the variant's key replaced by another variant's,
// plausible and wrong.
const (
	None    Condition = "none"
	Block   Condition = "block"
	Placebo Condition = "placebo"
)

// Agent decides the next call from the block put before its turn ("" when
// there is none) and its last call with the tool's answer (nil at the
// start); answer true ends the run.
type Agent interface {
	Next(ctx context.Context, block string, last *Call) (c Call, answer bool, err error)
}

// Specs returns the built-in observers, each run on every call.
func Specs() []observer.Spec {
	every := observer.Trigger{OnEveryCall: true}
	return []observer.Spec{
		{Observer: resource.New(), Trigger: every},
		{Observer: stall.New(), Trigger: every},
		{Observer: cascade.New(), Trigger: every},
		{Observer: drift.New(), Trigger: every},
	}
}

// Outcome is what one run came to.
type Outcome struct {
	// Calls counts the tool calls made.
	Calls int
	// First is the number of calls made when the scenario's observer
	// first spoke of the pattern; 0 when it never did.
	First int
	// SolvedAt is the number of calls made when the fix was made; 0 when
	// it never was.
	SolvedAt int
}

// Wasted is the number of calls made after the observer first spoke and
// before the fix (or the end of the run). ok is false when the observer
// never spoke.
func (o Outcome) Wasted() (n int, ok bool) {
	if o.First == 0 {
		return 0, false
	}
	end := o.Calls
	if o.SolvedAt > 0 {
		end = o.SolvedAt - 1
	}
	return max(end-o.First, 0), true
}

// Run runs agent on variant v of s under cond, with the observers on
// every call and a budget of MaxToolCalls tool calls. Under Placebo, the
// block shown has v's key replaced by decoy's.
func Run(ctx context.Context, s Scenario, v Variant, agent Agent, cond Condition, decoy string) (Outcome, error) {
	start := time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)
	now := start
	store := session.New(&session.StoreOptions{Now: func() time.Time { return now }})
	session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: s.Prompt, Scope: v.Scope})
	spent := session.ValueOf[budget.Budget](store)
	b := budget.New(budget.Limits{MaxToolCalls: MaxToolCalls}, start)
	spent.Seed(b)
	p, err := observer.NewPipeline(store, Specs(), &observer.PipelineOptions{Now: func() time.Time { return now }})
	if err != nil {
		return Outcome{}, err
	}
	var o Outcome
	var last *Call
	for {
		block := observer.BuildContext(store, 0)
		if o.First == 0 && section(block, s.Observer) != "" {
			o.First = o.Calls
		}
		c, answer, err := agent.Next(ctx, shown(ctx, p, cond, block, v.Key, decoy), last)
		if err != nil {
			return o, err
		}
		if answer || o.Calls >= MaxToolCalls {
			break
		}
		now = now.Add(time.Second)
		o.Calls++
		b.ToolCalls++
		spent.Seed(b)
		if fixes(v.Fix, c) {
			c.Result, c.Err, c.Solved = s.FixResult, "", true
			if o.SolvedAt == 0 {
				o.SolvedAt = o.Calls
			}
		} else {
			c.Result, c.Err = s.Answer(v, c)
		}
		p.AfterToolCall(ctx, observer.ToolCallRecord{ToolName: c.Tool, Arguments: c.Args, Result: c.Result, Success: c.Err == "", ErrorMessage: c.Err, Timestamp: now})
		last = &c
	}
	return o, nil
}

// shown is the block the agent is shown under cond.
func shown(ctx context.Context, p *observer.Pipeline, cond Condition, block, key, decoy string) string {
	switch cond {
	case Block:
		return p.Inject(ctx, 0)
	case Placebo:
		return strings.ReplaceAll(p.Inject(ctx, 0), key, decoy)
	}
	return ""
}

// section returns the section of block under the heading "### name",
// up to the next section; "" when there is none.
func section(block, name string) string {
	i := strings.Index(block, "### "+name+" ")
	if i < 0 {
		return ""
	}
	rest := block[i+4:]
	if j := strings.Index(rest, "\n### "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// Scripted agents stand in for a model offline. Each is stuck in its
// variant (it makes the scenario's Stuck calls) until it acts on its kind
// of cue, and answers once a call of its solves the scenario:
//
//   - "parsing" reads the observer's section and makes the fix of the
//     variant whose key the section names;
//   - "headings" sees only that the section is there, and makes the fix of
//     a variant it has not tried, at random;
//   - "random" makes a random variant's fix with probability 0.3 at each
//     step, whatever it is shown;
//   - "oblivious" never reads the block: it is the agent that never sees
//     one, however it is injected.
var Agents = []string{"parsing", "headings", "random", "oblivious"}

type scripted struct {
	kind  string
	s     Scenario
	v     Variant // the variant the agent is stuck in, which it does not know
	rng   *rand.Rand
	tried []bool
	step  int
}

// NewScripted returns a scripted agent of the given kind (one of Agents),
// stuck in variant v of s, drawing its random choices from seed.
func NewScripted(kind string, s Scenario, v Variant, seed uint64) Agent {
	return &scripted{kind: kind, s: s, v: v, rng: rand.New(rand.NewPCG(seed, 7)), tried: make([]bool, len(s.Variants))}
}

func (a *scripted) Next(_ context.Context, block string, last *Call) (Call, bool, error) {
	if last != nil && last.Solved {
		return Call{}, true, nil
	}
	a.step++
	sec := section(block, a.s.Observer)
	switch {
	case a.kind == "parsing" && sec != "":
		for _, v := range a.s.Variants {
			if strings.Contains(sec, v.Key) {
				return v.Fix, false, nil
			}
		}
	case a.kind == "headings" && sec != "":
		if k := a.untried(); k >= 0 {
			return a.s.Variants[k].Fix, false, nil
		}
	case a.kind == "random":
		if a.rng.Float64() < 0.3 {
			return a.s.Variants[a.rng.IntN(len(a.s.Variants))].Fix, false, nil
		}
	}
	return a.s.Stuck(a.v, a.step), false, nil
}

// untried picks a variant not tried yet at random and marks it; -1 when
// all have been.
func (a *scripted) untried() int {
	var left []int
	for k, t := range a.tried {
		if !t {
			left = append(left, k)
		}
	}
	if len(left) == 0 {
		return -1
	}
	k := left[a.rng.IntN(len(left))]
	a.tried[k] = true
	return k
}

// Cell is one observer, agent and condition: per seed, the calls wasted
// under the condition and under None by the same agent, on the same
// variant.
type Cell struct {
	Observer, Agent string
	Condition       Condition
	Shown, None     []int
	// Silent counts the seeds on which the observer never spoke in
	// either run, which are left out.
	Silent int
}

// Effect is the share of wasted calls the condition saved against None:
// 1 - shown/none, over all seeds; 0 when none were wasted.
func (c Cell) Effect() float64 { return effect(c.Shown, c.None, nil) }

// Interval returns the 95% bootstrap interval of Effect, resampling the
// seeds 2,000 times from a fixed seed.
func (c Cell) Interval() (lo, hi float64) {
	if len(c.Shown) == 0 {
		return 0, 0
	}
	rng := rand.New(rand.NewPCG(1, 2))
	idx := make([]int, len(c.Shown))
	effects := make([]float64, 2000)
	for r := range effects {
		for i := range idx {
			idx[i] = rng.IntN(len(c.Shown))
		}
		effects[r] = effect(c.Shown, c.None, idx)
	}
	sort.Float64s(effects)
	return effects[len(effects)*25/1000], effects[len(effects)*975/1000-1]
}

// effect is 1 - sum(shown)/sum(none) over the seeds idx, or all when idx
// is nil.
func effect(shown, none []int, idx []int) float64 {
	var s, n int
	for i := range shown {
		j := i
		if idx != nil {
			j = idx[i]
		}
		s, n = s+shown[j], n+none[j]
	}
	if n == 0 {
		return 0
	}
	return 1 - float64(s)/float64(n)
}

// Result is the cells measured, in the order observer, agent, condition.
type Result struct{ Cells []Cell }

// Cell returns the cell of observer, agent and condition.
func (r Result) Cell(obs, agent string, cond Condition) (Cell, bool) {
	i := slices.IndexFunc(r.Cells, func(c Cell) bool { return c.Observer == obs && c.Agent == agent && c.Condition == cond })
	if i < 0 {
		return Cell{}, false
	}
	return r.Cells[i], true
}

// ScriptedAgents returns the makers of the scripted agents, by name.
func ScriptedAgents() map[string]NewAgent {
	agents := map[string]NewAgent{}
	for _, kind := range Agents {
		agents[kind] = func(s Scenario, v Variant, seed uint64) Agent { return NewScripted(kind, s, v, seed) }
	}
	return agents
}

// NewAgent makes the agent one run uses: for scenario s, stuck in
// variant v, on the given seed.
type NewAgent func(s Scenario, v Variant, seed uint64) Agent

// Measure runs each scenario on seeds variants (seed i runs variant i
// modulo their number, the placebo naming the next variant's key) with
// each agent, under None and the given conditions, and returns the cells.
func Measure(ctx context.Context, scenarios []Scenario, seeds int, agents map[string]NewAgent, conds ...Condition) (Result, error) {
	names := make([]string, 0, len(agents))
	for name := range agents {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return slices.Index(Agents, a) - slices.Index(Agents, b) })
	var r Result
	for _, s := range scenarios {
		for _, name := range names {
			cells, err := measure(ctx, s, name, agents[name], seeds, conds)
			if err != nil {
				return Result{}, fmt.Errorf("%s, %s: %w", s.Name, name, err)
			}
			r.Cells = append(r.Cells, cells...)
		}
	}
	return r, nil
}

// measure runs one scenario with one agent on every seed.
func measure(ctx context.Context, s Scenario, name string, newAgent NewAgent, seeds int, conds []Condition) ([]Cell, error) {
	cells := make([]Cell, len(conds))
	for i, cond := range conds {
		cells[i] = Cell{Observer: s.Observer, Agent: name, Condition: cond}
	}
	for seed := range seeds {
		v := s.Variants[seed%len(s.Variants)]
		decoy := s.Variants[(seed+1)%len(s.Variants)].Key
		base, err := Run(ctx, s, v, newAgent(s, v, uint64(seed)), None, "")
		if err != nil {
			return nil, err
		}
		none, baseSpoke := base.Wasted()
		for i, cond := range conds {
			o, err := Run(ctx, s, v, newAgent(s, v, uint64(seed)), cond, decoy)
			if err != nil {
				return nil, err
			}
			w, spoke := o.Wasted()
			if !spoke || !baseSpoke {
				cells[i].Silent++
				continue
			}
			cells[i].Shown = append(cells[i].Shown, w)
			cells[i].None = append(cells[i].None, none)
		}
	}
	return cells, nil
}

// Print writes the cells as a markdown table.
func (r Result) Print(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| observer | agent | condition | wasted calls (shown / none) | effect | 95% interval | seeds |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, c := range r.Cells {
		lo, hi := c.Interval()
		fmt.Fprintf(&b, "| %s | %s | %s | %d / %d | %+.0f%% | %+.0f%% to %+.0f%% | %d", c.Observer, c.Agent, c.Condition,
			sum(c.Shown), sum(c.None), 100*c.Effect(), 100*lo, 100*hi, len(c.Shown))
		if c.Silent > 0 {
			fmt.Fprintf(&b, " (%d silent)", c.Silent)
		}
		b.WriteString(" |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
