package simulate

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/lookout-go/lookout/budget"
)

// BatchSummary is the verdict on a batch, read from its folders by
// ReadBatch.
//
// Runs counts the finished runs (with DoneFile or FailedFile), Unfinished
// the folders without a marker. CompletionRate is the share of finished
// runs that completed (see End.Completed), PassRate the share that passed
// (End.Passed). StopReasons and FailuresBySide count runs. PassK[k-1] is
// pass^k: over the scenarios, the mean chance that k runs drawn from a
// scenario's runs all pass; runs that failed on the infrastructure side
// are left out of it, as they say nothing about the agent (a tool's
// failure, SideTool, is the agent's business and counts). As in
// tau2-bench, k goes up to Repetitions, the fewest runs any scenario
// counts, so that pass^k never rises with k. Goals and Criteria give each goal's and judged criterion's pass
// rate. PerConversation averages turns, tokens and cost over the finished
// runs, by role.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type BatchSummary struct {
	Runs            int                `json:"runs"`
	Unfinished      int                `json:"unfinished"`
	Completed       int                `json:"completed"`
	Passed          int                `json:"passed"`
	CompletionRate  float64            `json:"completionRate"`
	PassRate        float64            `json:"passRate"`
	StopReasons     map[StopReason]int `json:"stopReasons"`
	FailuresBySide  map[Side]int       `json:"failuresBySide"`
	DegradedRuns    int                `json:"degradedRuns"`
	Repetitions     int                `json:"repetitions"`
	PassK           []float64          `json:"passK"`
	Goals           []Rate             `json:"goals,omitempty"`
	Criteria        []Rate             `json:"criteria,omitempty"`
	PerConversation Averages           `json:"perConversation"`
}

// Rate is how often a named goal or criterion was met, over the runs that
// had it.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type Rate struct {
	Name string  `json:"name"`
	Met  int     `json:"met"`
	Runs int     `json:"runs"`
	Rate float64 `json:"rate"`
}

// Averages are per-conversation means. Cost is the sum over roles; it is
// zero unless prices were given for the models.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type Averages struct {
	Turns  float64              `json:"turns"`
	Cost   float64              `json:"cost"`
	ByRole map[string]RoleUsage `json:"byRole"`
}

// RoleUsage is one role's mean use of its model per conversation: its
// calls, the attempts they took (retries included), the calls that failed
// after every attempt, its tokens and their cost.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type RoleUsage struct {
	Model            string  `json:"model,omitempty"`
	Calls            float64 `json:"calls"`
	Attempts         float64 `json:"attempts"`
	Failures         float64 `json:"failures"`
	PromptTokens     float64 `json:"promptTokens"`
	CompletionTokens float64 `json:"completionTokens"`
	Cost             float64 `json:"cost"`
}

// ReadBatch reads the batch output folders dirs (one per shard, or one)
// and sums them up. prices maps model names (ModelNames) to their prices;
// progress, when not nil, is called after each run folder read, with the
// count read and the total.
func ReadBatch(dirs []string, prices budget.Prices, progress func(done, total int)) (*BatchSummary, error) {
	if len(dirs) == 0 {
		return nil, errNoDirs
	}
	runs, rep, err := finishedRuns(dirs, MergeOptions{})
	if err != nil {
		return nil, err
	}
	s := &BatchSummary{Unfinished: len(rep.Unfinished), StopReasons: map[StopReason]int{}, FailuresBySide: map[Side]int{},
		PerConversation: Averages{ByRole: map[string]RoleUsage{}}}
	t := tally{s: s, prices: prices, byScenario: map[int][]bool{}, goals: map[string]*Rate{}, criteria: map[string]*Rate{}}
	for i, r := range runs {
		meta, err := readMeta(r.dir)
		if err != nil {
			return nil, fmt.Errorf("simulate: reading %s: %w", r.dir, err)
		}
		t.add(r.marker, meta)
		if progress != nil {
			progress(i+1, len(runs))
		}
	}
	t.finish()
	return s, nil
}

// readMeta reads and decodes the MetaFile of the run folder dir.
func readMeta(dir string) (Meta, error) {
	var meta Meta
	raw, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err == nil {
		err = json.Unmarshal(raw, &meta)
	}
	return meta, err
}

type tally struct {
	s             *BatchSummary
	prices        budget.Prices
	byScenario    map[int][]bool // passes, by scenario index
	goals         map[string]*Rate
	goalOrder     []string
	criteria      map[string]*Rate
	criteriaOrder []string
	turns, cost   float64
	roles         map[string]*RoleUsage
}

// add counts one finished run: its end, its goals and criteria, and its
// models' usage.
func (t *tally) add(m Marker, meta Meta) {
	t.countEnd(m, meta.End)
	for _, g := range meta.End.Goals {
		t.goalOrder = count1(t.goals, t.goalOrder, g.Name, g.Met)
	}
	for _, c := range meta.End.Criteria {
		t.criteriaOrder = count1(t.criteria, t.criteriaOrder, c.Criterion, c.Passed)
	}
	t.turns += float64(meta.End.Turns)
	for role, u := range meta.Usage {
		t.addUsage(role, u)
	}
}

// countEnd counts how a run of scenario m ended: its stop reason, whether
// it completed, passed or was degraded, and the side of its error.
func (t *tally) countEnd(m Marker, e End) {
	s := t.s
	s.Runs++
	s.StopReasons[e.Reason]++
	if e.Completed {
		s.Completed++
	}
	if e.Passed {
		s.Passed++
	}
	if e.ErrorSide != "" {
		s.FailuresBySide[e.ErrorSide]++
	}
	if e.DegradedTurns > 0 {
		s.DegradedRuns++
	}
	if e.ErrorSide != SideInfrastructure {
		t.byScenario[m.ScenarioIndex] = append(t.byScenario[m.ScenarioIndex], e.Passed)
	}
}

// addUsage adds one run's usage by the model in role to the role's totals
// and to the cost, priced by t.prices.
func (t *tally) addUsage(role string, u *ModelUsage) {
	if t.roles == nil {
		t.roles = map[string]*RoleUsage{}
	}
	ru := t.roles[role]
	if ru == nil {
		ru = &RoleUsage{}
		t.roles[role] = ru
	}
	if ru.Model == "" {
		ru.Model = u.Model
	}
	ru.Calls += float64(u.Calls)
	ru.Attempts += float64(u.Attempts)
	ru.Failures += float64(u.Failures)
	ru.PromptTokens += float64(u.PromptTokens)
	ru.CompletionTokens += float64(u.CompletionTokens)
	c, _ := t.prices.Cost(u.Model, budget.Usage{PromptTokens: int64(u.PromptTokens), CompletionTokens: int64(u.CompletionTokens)})
	ru.Cost += c
	t.cost += c
}

// count1 counts one run of the named rate, met or not, keeping the names
// in the order first seen.
func count1(rates map[string]*Rate, order []string, name string, met bool) []string {
	r := rates[name]
	if r == nil {
		r = &Rate{Name: name}
		rates[name] = r
		order = append(order, name)
	}
	r.Runs++
	if met {
		r.Met++
	}
	return order
}

func (t *tally) finish() {
	s := t.s
	if s.Runs > 0 {
		n := float64(s.Runs)
		s.CompletionRate = float64(s.Completed) / n
		s.PassRate = float64(s.Passed) / n
		s.PerConversation.Turns = t.turns / n
		s.PerConversation.Cost = t.cost / n
		for role, u := range t.roles {
			s.PerConversation.ByRole[role] = RoleUsage{Model: u.Model, Calls: u.Calls / n, Attempts: u.Attempts / n, Failures: u.Failures / n,
				PromptTokens: u.PromptTokens / n, CompletionTokens: u.CompletionTokens / n, Cost: u.Cost / n}
		}
	}
	s.Goals = rates(t.goals, t.goalOrder)
	s.Criteria = rates(t.criteria, t.criteriaOrder)
	s.Repetitions, s.PassK = passK(t.byScenario)
}

func rates(m map[string]*Rate, order []string) []Rate {
	var out []Rate
	for _, name := range order {
		r := *m[name]
		r.Rate = float64(r.Met) / float64(r.Runs)
		out = append(out, r)
	}
	return out
}

// passK returns the fewest runs any scenario counts and pass^k for k from
// 1 to it: the mean, over the scenarios, of C(c, k)/C(n, k) for a scenario
// with c passes in n runs. k stops at the fewest runs, as tau2-bench's
// does, so that every k averages the same scenarios and pass^k never rises
// with k.
func passK(byScenario map[int][]bool) (int, []float64) {
	keys := make([]int, 0, len(byScenario))
	for k := range byScenario {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	reps := 0
	for i, sc := range keys {
		if n := len(byScenario[sc]); i == 0 || n < reps {
			reps = n
		}
	}
	out := make([]float64, 0, reps)
	for k := 1; k <= reps; k++ {
		sum := 0.0
		for _, sc := range keys {
			runs := byScenario[sc]
			c := len(runs) - len(slices.DeleteFunc(slices.Clone(runs), func(p bool) bool { return p }))
			sum += choose(c, k) / choose(len(runs), k)
		}
		out = append(out, sum/float64(len(keys)))
	}
	return reps, out
}

// choose is the binomial coefficient C(n, k), as a float.
func choose(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r*1e9) / 1e9
}
