package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/simulate"
)

var batchCmd = &command{
	name:    "batch",
	args:    "DIR...",
	summary: "report on a simulation batch: completion, stop reasons, pass^k, tokens, cost",
	details: `Batch reads the output folders of a simulation batch (one, or one per shard)
and reports on its finished runs: the completion and pass rates, the
stop-reason distribution, pass^k over the repetitions of each scenario
(runs that failed on the infrastructure side are left out of it), the pass
rate of each goal and judged criterion, turns, tokens and cost per
conversation with the user's, the ranker's, the judge's and the agent's
models apart, and failures by side. Runs still unfinished are counted.

Cost needs prices: --price MODEL=INPUT,OUTPUT gives a model's price per
million prompt and completion tokens, by the name the batch's ModelNames
gave it; repeat it for each model.`,
	examples: `  # the verdict on a batch
  lookout batch out/

  # with prices, as JSON
  lookout batch --json --price gpt-4o-mini=0.15,0.6 --price gpt-4o=2.5,10 out/

  # the shards of a Kubernetes Indexed Job
  lookout batch shards/*/`,
	minArgs: 1,
	maxArgs: -1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) int {
		asJSON := fs.Bool("json", false, "print the report as one JSON object")
		prices := priceFlag{}
		fs.Var(prices, "price", "MODEL=INPUT,OUTPUT: a model's price per million prompt and completion tokens (repeatable)")
		return func(_ context.Context, e *env, dirs []string) int {
			return batchReport(e, dirs, budget.Prices(prices), *asJSON)
		}
	},
}

// priceFlag collects --price MODEL=INPUT,OUTPUT values.
type priceFlag budget.Prices

func (p priceFlag) String() string { return "" }

func (p priceFlag) Set(v string) error {
	name, in, out, ok := splitPrice(v)
	if !ok {
		return fmt.Errorf("want MODEL=INPUT,OUTPUT, got %q", v)
	}
	price, ok := parsePrice(in, out)
	if !ok {
		return fmt.Errorf("prices must be non-negative numbers, got %q", v)
	}
	p[name] = price
	return nil
}

// splitPrice splits MODEL=INPUT,OUTPUT into its parts, reporting false
// when v has not that shape or names no model.
func splitPrice(v string) (name, in, out string, ok bool) {
	name, pair, ok1 := strings.Cut(v, "=")
	in, out, ok2 := strings.Cut(pair, ",")
	return name, in, out, ok1 && ok2 && name != ""
}

// parsePrice parses the prices per million prompt and completion tokens,
// reporting false unless both are non-negative numbers.
func parsePrice(in, out string) (budget.Price, bool) {
	fin, err1 := strconv.ParseFloat(in, 64)
	fout, err2 := strconv.ParseFloat(out, 64)
	if err1 != nil || err2 != nil || fin < 0 || fout < 0 {
		return budget.Price{}, false
	}
	return budget.Price{InputPerMTok: fin, OutputPerMTok: fout}, true
}

func batchReport(e *env, dirs []string, prices budget.Prices, asJSON bool) int {
	s, err := simulate.ReadBatch(dirs, prices, func(done, total int) { e.progress.step("reading runs", done, total) })
	e.progress.clear()
	if err != nil {
		return e.fail("%v", err)
	}
	if asJSON {
		err = writeJSON(e.stdout, s)
	} else {
		err = writeBatchText(e.stdout, s)
	}
	if err != nil {
		return e.fail("%v", err)
	}
	return exitOK
}

// writeBatchText prints the report for people.
func writeBatchText(w io.Writer, s *simulate.BatchSummary) error {
	p := &printer{w: w}
	p.f("Runs: %d finished, %d unfinished\n", s.Runs, s.Unfinished)
	p.f("Completed: %d (%.1f%%)   Passed: %d (%.1f%%)\n", s.Completed, 100*s.CompletionRate, s.Passed, 100*s.PassRate)
	p.f("\nStop reasons:\n")
	for _, k := range sortedKeys(s.StopReasons) {
		p.f("  %-18s %d\n", k, s.StopReasons[k])
	}
	printPassK(p, s)
	printRates(p, "Goals", s.Goals)
	printRates(p, "Criteria", s.Criteria)
	printPerConversation(p, s.PerConversation)
	printFailures(p, s)
	return p.err
}

// printPassK prints pass^k for each k up to the repetitions, if any.
func printPassK(p *printer, s *simulate.BatchSummary) {
	if len(s.PassK) == 0 {
		return
	}
	p.f("\npass^k over %d repetitions:\n", s.Repetitions)
	for k, v := range s.PassK {
		p.f("  pass^%-3d %.3f\n", k+1, v)
	}
}

// printPerConversation prints the mean turns and cost of a conversation
// and each role's share of them.
func printPerConversation(p *printer, pc simulate.Averages) {
	p.f("\nPer conversation: %.1f turns, cost %.4f\n", pc.Turns, pc.Cost)
	for _, role := range sortedKeys(pc.ByRole) {
		u := pc.ByRole[role]
		model := u.Model
		if model == "" {
			model = "-"
		}
		p.f("  %-7s %-20s %6.1f calls %6.1f attempts %9.1f prompt %9.1f completion tokens  cost %.4f\n",
			role, model, u.Calls, u.Attempts, u.PromptTokens, u.CompletionTokens, u.Cost)
	}
}

// printFailures prints the failures by side and the runs played partly
// without a ranker.
func printFailures(p *printer, s *simulate.BatchSummary) {
	p.f("\nFailures by side:")
	if len(s.FailuresBySide) == 0 {
		p.f(" none")
	}
	p.f("\n")
	for _, k := range sortedKeys(s.FailuresBySide) {
		p.f("  %-15s %d\n", k, s.FailuresBySide[k])
	}
	if s.DegradedRuns > 0 {
		p.f("Runs played partly without a ranker: %d\n", s.DegradedRuns)
	}
}

func printRates(p *printer, title string, rates []simulate.Rate) {
	if len(rates) == 0 {
		return
	}
	p.f("\n%s:\n", title)
	for _, r := range rates {
		p.f("  %-40s %d/%d (%.1f%%)\n", r.Name, r.Met, r.Runs, 100*r.Rate)
	}
}

// printer writes formatted text and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
