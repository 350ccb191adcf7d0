package abharness

import (
	"context"
	"fmt"
	"io"
	"slices"
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

// MaxToolCalls is every scenario's tool-call budget.
const MaxToolCalls = 24

// Call is a tool call an agent makes, and what the tool answers.
type Call struct {
	Tool, Args, Result string
	// Err, when not empty, makes the call fail with this message.
	Err string
}

// Scenario is a task, the calls an agent makes while it does not heed the
// observers (Script, call i of the run), and those it makes once it does
// (Fix, after which it answers).
type Scenario struct {
	Name   string
	Task   observer.Task
	Script func(i int) Call
	Fix    []Call
}

// Scenarios are the scenarios the harness runs, one for each observer's
// pattern.
func Scenarios() []Scenario {
	return []Scenario{
		{
			Name: "stall: the same read again and again",
			Task: observer.Task{Prompt: "Find the module name in go.mod."},
			Script: func(int) Call {
				return Call{Tool: "read_file", Args: `{"path":"go.mod"}`, Result: "module example.com/app"}
			},
			Fix: []Call{{Tool: "read_file", Args: `{"path":"go.sum"}`, Result: "example.com/dep v1.0.0"}},
		},
		{
			Name: "errors: retrying a write that cannot succeed",
			Task: observer.Task{Prompt: "Write the port to the config in /etc/app.conf."},
			Script: func(int) Call {
				return Call{Tool: "write_file", Args: `{"path":"/etc/app.conf","content":"port: 8080"}`, Err: "open /etc/app.conf: permission denied"}
			},
			Fix: []Call{{Tool: "write_file", Args: `{"path":"/etc/app.conf.d/port.conf","content":"port: 8080"}`, Result: "written"}},
		},
		{
			Name: "drift: wandering off to the marketing site",
			Task: observer.Task{Prompt: "Fix the rounding in the billing service.", Scope: []string{"services/billing"}},
			Script: func(i int) Call {
				if i < 2 {
					return Call{Tool: "read_file", Args: fmt.Sprintf(`{"path":"services/billing/round%d.go"}`, i), Result: "package billing"}
				}
				return Call{Tool: "read_file", Args: fmt.Sprintf(`{"path":"web/marketing/page%d.tsx"}`, i), Result: "export default Page"}
			},
			Fix: []Call{
				{Tool: "read_file", Args: `{"path":"services/billing/invoice.go"}`, Result: "package billing"},
				{Tool: "edit_file", Args: `{"path":"services/billing/round0.go","old":"Round(","new":"RoundHalfEven("}`, Result: "edited"},
			},
		},
		{
			Name: "stall: alternating between two reads",
			Task: observer.Task{Prompt: "Compare the two config files."},
			Script: func(i int) Call {
				return Call{Tool: "read_file", Args: fmt.Sprintf(`{"path":"config/%c.yaml"}`, 'a'+i%2), Result: "port: 8080"}
			},
			Fix: []Call{{Tool: "diff_files", Args: `{"a":"config/a.yaml","b":"config/b.yaml"}`, Result: "no differences"}},
		},
		{
			Name: "errors: rerunning a failing test without a change",
			Task: observer.Task{Prompt: "Make TestRound pass."},
			Script: func(i int) Call {
				return Call{Tool: "run_tests", Args: `{"package":"./billing"}`, Err: fmt.Sprintf("--- FAIL: TestRound (0.0%ds): got 2.4%d, want 2.50", i%10, i%10)}
			},
			Fix: []Call{
				{Tool: "edit_file", Args: `{"path":"billing/round.go","old":"Round(","new":"RoundHalfEven("}`, Result: "edited"},
				{Tool: "run_tests", Args: `{"package":"./billing"}`, Result: "ok"},
			},
		},
		{
			Name: "drift: leaving the scope the prompt names",
			Task: observer.Task{Prompt: "Fix the rounding bug in services/billing/invoice.go."},
			Script: func(i int) Call {
				// The run's first calls join the scope the prompt
				// names: the agent leaves after them.
				if i < drift.DefaultInitialCalls {
					return Call{Tool: "read_file", Args: fmt.Sprintf(`{"path":"services/billing/invoice%d.go"}`, i), Result: "package billing"}
				}
				return Call{Tool: "read_file", Args: fmt.Sprintf(`{"path":"docs/blog/post%d.md"}`, i), Result: "# Post"}
			},
			Fix: []Call{{Tool: "read_file", Args: `{"path":"services/billing/invoice_test.go"}`, Result: "package billing"}},
		},
		{
			Name: "resources: working on as the tool calls run out",
			Task: observer.Task{Prompt: "Audit the services for unused code."},
			Script: func(i int) Call {
				return Call{Tool: "read_file", Args: fmt.Sprintf(`{"path":"services/svc%d/main.go"}`, i), Result: "package main"}
			},
		},
	}
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

// Agent decides the next step from the block injected before it, "" when
// none is.
type Agent interface {
	// Next returns the call to make at step i, or answer true to finish.
	Next(block string, i int) (c Call, answer bool)
}

// Oblivious ignores its input: it follows its scenario's script until the
// budget stops it.
type Oblivious struct{ S Scenario }

// Next returns the script's call i.
func (o *Oblivious) Next(_ string, i int) (Call, bool) { return o.S.Script(i), false }

// Attentive acts on the block: shown a Stall, Errors or Drift section it
// makes its scenario's fix and answers; shown the Resource observer at
// caution or warning, it answers at once.
type Attentive struct {
	S     Scenario
	fixed int // calls of the fix made; -1 before it is told
}

// NewAttentive returns an attentive agent for s.
func NewAttentive(s Scenario) *Attentive { return &Attentive{S: s, fixed: -1} }

// Next acts on block, or follows the script.
func (a *Attentive) Next(block string, i int) (Call, bool) {
	if containsAny(block, answerOn) {
		return Call{}, true
	}
	if a.fixed < 0 && containsAny(block, fixOn) {
		a.fixed = 0
	}
	if a.fixed < 0 {
		return a.S.Script(i), false
	}
	if a.fixed >= len(a.S.Fix) {
		return Call{}, true
	}
	a.fixed++
	return a.S.Fix[a.fixed-1], false
}

// answerOn are the block sections on which an attentive agent answers at
// once, and fixOn those on which it makes its fix.
var (
	answerOn = []string{"### Resources [caution]", "### Resources [warning]"}
	fixOn    = []string{"### Stall", "### Errors", "### Drift"}
)

// containsAny reports whether s contains any of subs.
func containsAny(s string, subs []string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}

// Outcome is what one run came to.
type Outcome struct {
	// Calls counts the tool calls made.
	Calls int
	// Errors counts those that failed.
	Errors int
	// BudgetStop is set when the tool-call budget ended the run.
	BudgetStop bool
	// WrappedUp is set when the agent finished with an answer.
	WrappedUp bool
	// Efficacy holds, per observer, the assessments shown and what the
	// agent did.
	Efficacy map[string]observer.EfficacyCounts
}

// Run runs agent on s, with the block injected before each step when
// inject is set.
func Run(s Scenario, agent Agent, inject bool) (Outcome, error) {
	ctx := context.Background()
	start := time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)
	now := start
	store := session.New(&session.StoreOptions{Now: func() time.Time { return now }})
	session.ValueOf[observer.Task](store).Seed(s.Task)
	spent := session.ValueOf[budget.Budget](store)
	b := budget.New(budget.Limits{MaxToolCalls: MaxToolCalls}, start)
	spent.Seed(b)
	p, err := observer.NewPipeline(store, Specs(), &observer.PipelineOptions{Now: func() time.Time { return now }})
	if err != nil {
		return Outcome{}, err
	}
	var o Outcome
	for i := 0; ; i++ {
		c, answer := agent.Next(injected(ctx, p, inject), i)
		if answer {
			p.ModelResponded(ctx, 0)
			o.WrappedUp = true
			break
		}
		p.ModelResponded(ctx, 1)
		if o.Calls >= MaxToolCalls {
			o.BudgetStop = true
			break
		}
		now = now.Add(time.Second)
		o.Calls++
		b.ToolCalls++
		spent.Seed(b)
		if c.Err != "" {
			o.Errors++
		}
		p.AfterToolCall(ctx, c.record(now))
	}
	o.Efficacy = p.Efficacy().ByObserver
	return o, nil
}

// injected is the block p injects before a step when inject is set, and
// "" otherwise.
func injected(ctx context.Context, p *observer.Pipeline, inject bool) string {
	if !inject {
		return ""
	}
	return p.Inject(ctx, 0)
}

// record is the record of c made at now.
func (c Call) record(now time.Time) observer.ToolCallRecord {
	return observer.ToolCallRecord{ToolName: c.Tool, Arguments: c.Args, Result: c.Result, Success: c.Err == "", ErrorMessage: c.Err, Timestamp: now}
}

// Row is one scenario run by one agent, with and without injection.
type Row struct {
	Scenario, Agent string
	With, Without   Outcome
}

// Rate is how many judged assessments of one observer an agent followed.
type Rate struct {
	Followed, Judged int64
}

// Percent returns the followed share in percent, or 0 with none judged.
func (r Rate) Percent() float64 {
	if r.Judged == 0 {
		return 0
	}
	return 100 * float64(r.Followed) / float64(r.Judged)
}

// Result is what the harness measured.
type Result struct {
	Rows []Row
	// Rates holds per agent ("oblivious", "attentive"), per observer, the
	// followed share of the judged assessments, with injection.
	Rates map[string]map[string]Rate
}

// Observers are the built-in observers' names, in the order the tables
// show them.
var Observers = []string{"Stall", "Errors", "Drift", "Resources"}

// Measure runs every scenario with both agents, with and without
// injection.
func Measure() (Result, error) {
	r := Result{Rates: map[string]map[string]Rate{"oblivious": {}, "attentive": {}}}
	for _, s := range Scenarios() {
		for _, name := range []string{"oblivious", "attentive"} {
			row, err := runBoth(s, name)
			if err != nil {
				return Result{}, err
			}
			r.Rows = append(r.Rows, row)
			addRates(r.Rates[name], row.With.Efficacy)
		}
	}
	return r, nil
}

// newAgent returns a new agent of the kind name, "oblivious" or
// "attentive", for s.
func newAgent(name string, s Scenario) Agent {
	if name == "oblivious" {
		return &Oblivious{S: s}
	}
	return NewAttentive(s)
}

// runBoth runs a new agent of the kind name on s with injection, and
// another without.
func runBoth(s Scenario, name string) (Row, error) {
	with, err := Run(s, newAgent(name, s), true)
	if err != nil {
		return Row{}, err
	}
	without, err := Run(s, newAgent(name, s), false)
	if err != nil {
		return Row{}, err
	}
	return Row{Scenario: s.Name, Agent: name, With: with, Without: without}, nil
}

// addRates adds the assessments followed and judged in efficacy to the
// rates of each observer.
func addRates(rates map[string]Rate, efficacy map[string]observer.EfficacyCounts) {
	for obs, c := range efficacy {
		rate := rates[obs]
		rate.Followed += c.Followed()
		rate.Judged += c.Followed() + c.CarriedOn
		rates[obs] = rate
	}
}

// Print writes the outcome and efficacy tables in markdown.
func (r Result) Print(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| scenario | agent | calls (with / without) | failed calls | budget stop | wrapped up |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %s | %s | %d / %d | %d / %d | %s / %s | %s / %s |\n", row.Scenario, row.Agent,
			row.With.Calls, row.Without.Calls, row.With.Errors, row.Without.Errors,
			yes(row.With.BudgetStop), yes(row.Without.BudgetStop), yes(row.With.WrappedUp), yes(row.Without.WrappedUp))
	}
	b.WriteString("\n| observer | oblivious followed | attentive followed |\n|---|---|---|\n")
	for _, obs := range Observers {
		o, a := r.Rates["oblivious"][obs], r.Rates["attentive"][obs]
		fmt.Fprintf(&b, "| %s | %d of %d (%.0f%%) | %d of %d (%.0f%%) |\n", obs, o.Followed, o.Judged, o.Percent(), a.Followed, a.Judged, a.Percent())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func yes(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
