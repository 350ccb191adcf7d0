package detectorbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// Case is one labelled run.
type Case struct {
	ID string `json:"id"`
	// Family names the agent that made the run, such as "swe-agent" or
	// "terminus-2/hermes-4-70b"; Kind the kind of task: "coding",
	// "terminal" or "tool-use".
	Family string              `json:"family"`
	Kind   string              `json:"kind"`
	Task   string              `json:"task"`
	Scope  []string            `json:"scope"`
	Labels map[string][]string `json:"labels"`
	// Why is the reader's reason for the labels.
	Why   string `json:"why"`
	Calls []Call `json:"calls"`
}

// Call is one tool call of a run.
type Call struct {
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Result string          `json:"result"`
	OK     bool            `json:"ok"`
	Error  string          `json:"error"`
	// At is seconds since the run's start.
	At float64 `json:"at"`
}

// Detectors are the label keys, in the order the table shows them, and the
// names of the observers they label.
var Detectors = []struct{ Label, Observer string }{
	{"stall", "Stall"}, {"errors", "Errors"}, {"drift", "Drift"},
}

// LabelsFile is the file in a folder of cases that holds their labels, by
// case id, when the cases do not carry them.
const LabelsFile = "labels.json"

// label is one run's entry in [LabelsFile].
type label struct {
	Stall  []string `json:"stall"`
	Errors []string `json:"errors"`
	Drift  []string `json:"drift"`
	Why    string   `json:"why"`
}

// maxText is how much of a result or error the adapters keep.
const maxText = 1024

// Load reads every .json case in dir, in name order, with the labels of
// dir's [LabelsFile] when there is one: then every case must have an entry
// there and every entry a case.
func Load(dir string) ([]Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return filepath.Base(p) == LabelsFile })
	if len(paths) == 0 {
		return nil, fmt.Errorf("detectorbench: no .json cases in %s", dir)
	}
	slices.Sort(paths)
	cases := make([]Case, 0, len(paths))
	for _, p := range paths {
		c, err := readCase(p)
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return cases, applyLabels(dir, cases)
}

// applyLabels sets the labels of cases from dir's [LabelsFile], if any.
func applyLabels(dir string, cases []Case) error {
	b, err := os.ReadFile(filepath.Join(dir, LabelsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var labels map[string]label
	if err := json.Unmarshal(b, &labels); err != nil {
		return fmt.Errorf("detectorbench: %s: %w", LabelsFile, err)
	}
	for i := range cases {
		c := &cases[i]
		l, ok := labels[c.ID]
		if !ok {
			return fmt.Errorf("detectorbench: %s has no labels for %s", LabelsFile, c.ID)
		}
		delete(labels, c.ID)
		c.Labels = map[string][]string{"stall": l.Stall, "errors": l.Errors, "drift": l.Drift}
		c.Why = l.Why
	}
	for id := range labels {
		return fmt.Errorf("detectorbench: %s labels %s, which has no case", LabelsFile, id)
	}
	return nil
}

// readCase reads the case in the file at path; a case without an id is
// named after its file.
func readCase(path string) (Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Case{}, err
	}
	var c Case
	if err := json.Unmarshal(b, &c); err != nil {
		return Case{}, fmt.Errorf("detectorbench: %s: %w", path, err)
	}
	if c.ID == "" {
		c.ID = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	return c, nil
}

// Specs returns the built-in observers as a run gets them by default, with
// the three detectors added on every call: Resources every 10 calls and
// after 3 consecutive errors, then Stall, Errors and Drift.
func Specs() []observer.Spec {
	every := observer.Trigger{OnEveryCall: true}
	return []observer.Spec{
		{Observer: resource.New(), Trigger: observer.Trigger{EveryNCalls: 10, AfterConsecutiveErrors: 3}},
		{Observer: stall.New(), Trigger: every},
		{Observer: cascade.New(), Trigger: every},
		{Observer: drift.New(), Trigger: every},
	}
}

// Replayed is what replaying one case gave.
type Replayed struct {
	// Fired holds, by observer name, the calls after which it produced an
	// assessment.
	Fired map[string][]int64
	// Cost holds how long the pipeline took after each call; CPU, the
	// CPU time its thread spent on it, where that can be read (Linux),
	// else nil.
	Cost, CPU []time.Duration
}

// Replay runs c's calls through a pipeline of specs, as the adapters
// record them, and returns the calls after which each observer produced
// an assessment, by observer name.
func Replay(c Case, specs []observer.Spec) (map[string][]int64, error) {
	r, err := replay(c, specs)
	return r.Fired, err
}

// replay runs c's calls through a new pipeline of specs and times each.
func replay(c Case, specs []observer.Spec) (Replayed, error) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store := session.New(&session.StoreOptions{Now: func() time.Time { return start }})
	session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: c.Task, Scope: c.Scope})
	p, err := observer.NewPipeline(store, specs, nil)
	if err != nil {
		return Replayed{}, err
	}
	recs := make([]observer.ToolCallRecord, len(c.Calls))
	for i, call := range c.Calls {
		if recs[i], err = record(call, start); err != nil {
			return Replayed{}, fmt.Errorf("detectorbench: %s: %w", c.ID, err)
		}
	}
	r := Replayed{Fired: map[string][]int64{}, Cost: make([]time.Duration, len(recs))}
	overhead, measured := cpuOverhead()
	if measured {
		r.CPU = make([]time.Duration, len(recs))
	}
	ctx := context.Background()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i, rec := range recs {
		c0 := threadCPU()
		t0 := time.Now()
		rec, current := p.AfterToolCall(ctx, rec)
		r.Cost[i] = time.Since(t0)
		if measured {
			r.CPU[i] = max(threadCPU()-c0-overhead, 0)
		}
		if current == nil {
			continue
		}
		for _, a := range current.Assessments {
			r.Fired[a.Observer] = append(r.Fired[a.Observer], rec.CallIndex)
		}
	}
	return r, nil
}

// cpuOverhead returns what reading the thread's CPU time twice costs,
// the least of a hundred tries, and whether the time can be read at all.
var cpuOverhead = sync.OnceValues(func() (time.Duration, bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	least := time.Duration(math.MaxInt64)
	for range 100 {
		c0 := threadCPU()
		least = min(least, threadCPU()-c0)
	}
	return least, threadCPU() > 0
})

// record builds the call's record as the adapters do: arguments as compact
// JSON, results and errors cut at 1 KiB.
func record(c Call, start time.Time) (observer.ToolCallRecord, error) {
	var args bytes.Buffer
	if len(c.Args) > 0 {
		if err := json.Compact(&args, c.Args); err != nil {
			return observer.ToolCallRecord{}, fmt.Errorf("call to %s: arguments: %w", c.Tool, err)
		}
	}
	rec := observer.ToolCallRecord{
		ToolName: c.Tool, Arguments: args.String(), Result: cut(c.Result), Success: c.OK,
		Timestamp: start.Add(time.Duration(c.At * float64(time.Second))),
	}
	if !c.OK {
		rec.ErrorMessage = cut(c.Error)
	}
	return rec, nil
}

// cut keeps at most maxText bytes of s, at a rune boundary.
func cut(s string) string {
	if len(s) <= maxText {
		return s
	}
	n := maxText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Slack is how many calls before or after a labelled range a detector may
// speak and still count as finding it.
const Slack = 1

// Score counts one detector's results. An episode is a labelled range; a
// false alarm is a run of consecutive calls after which the detector spoke
// outside every labelled range (widened by [Slack]).
type Score struct {
	// TP counts labelled episodes the detector spoke in.
	TP int
	// FP counts false alarms.
	FP int
	// FN counts labelled episodes it stayed quiet through.
	FN int
	// TN counts runs with no label for it in which it stayed quiet.
	TN int
	// Delays holds, for each episode found, how many calls after the
	// episode's first call the detector first spoke (0 when it spoke at
	// or before it).
	Delays []int
	// Calls counts the calls replayed.
	Calls int
}

func (s *Score) add(o Score) {
	s.TP, s.FP, s.FN, s.TN = s.TP+o.TP, s.FP+o.FP, s.FN+o.FN, s.TN+o.TN
	s.Delays = append(s.Delays, o.Delays...)
	s.Calls += o.Calls
}

// Precision is the share of the detector's episodes, found or false, that
// were labelled; 1 when it never spoke.
func (s Score) Precision() float64 { return ratio(s.TP, s.TP+s.FP) }

// Recall is the share of labelled episodes found; 1 when there were none.
func (s Score) Recall() float64 { return ratio(s.TP, s.TP+s.FN) }

// FalseAlarmsPer100 is false alarms per 100 calls replayed.
func (s Score) FalseAlarmsPer100() float64 {
	if s.Calls == 0 {
		return 0
	}
	return 100 * float64(s.FP) / float64(s.Calls)
}

// MedianDelay is the median of [Score.Delays], or -1 when there are none.
func (s Score) MedianDelay() float64 {
	if len(s.Delays) == 0 {
		return -1
	}
	d := slices.Sorted(slices.Values(s.Delays))
	n := len(d)
	if n%2 == 1 {
		return float64(d[n/2])
	}
	return float64(d[n/2-1]+d[n/2]) / 2
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// span is a labelled range of calls, inclusive.
type span struct{ from, to int64 }

// covers reports whether call i is within sp widened by [Slack].
func (sp span) covers(i int64) bool { return i >= sp.from-Slack && i <= sp.to+Slack }

func parseSpans(labels []string) ([]span, error) {
	out := make([]span, 0, len(labels))
	for _, l := range labels {
		a, b, found := strings.Cut(l, "-")
		if !found {
			b = a
		}
		from, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
		to, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
		if err := errors.Join(err1, err2); err != nil || from < 1 || to < from {
			return nil, fmt.Errorf("bad label range %q", l)
		}
		out = append(out, span{from, to})
	}
	return out, nil
}

// ScoreRun scores the calls after which a detector spoke against its
// labels for one run.
func ScoreRun(labels []string, fired []int64) (Score, error) {
	spans, err := parseSpans(labels)
	if err != nil {
		return Score{}, err
	}
	s := Score{FP: falseAlarms(spans, fired)}
	for _, sp := range spans {
		i := slices.IndexFunc(fired, sp.covers)
		if i < 0 {
			s.FN++
			continue
		}
		s.TP++
		s.Delays = append(s.Delays, int(max(0, fired[i]-sp.from)))
	}
	if len(spans) == 0 && len(fired) == 0 {
		s.TN++
	}
	return s, nil
}

// falseAlarms counts the runs of consecutive calls in fired that lie
// outside every span.
func falseAlarms(spans []span, fired []int64) int {
	n := 0
	prev := int64(-1)
	for _, i := range fired {
		inside := slices.ContainsFunc(spans, func(sp span) bool { return sp.covers(i) })
		if !inside && i != prev+1 {
			n++
		}
		if inside {
			prev = -1
		} else {
			prev = i
		}
	}
	return n
}

// Result is what replaying a folder found: the score of each detector, in
// the order of [Detectors], overall and by family, the cost of each call,
// and each run's false alarms and misses.
type Result struct {
	Scores []Score
	// Families lists the families of the cases in the order first seen;
	// ByFamily[f][i] is detector i's score on family f's runs.
	Families []string
	ByFamily map[string][]Score
	// Cost holds, by family, the time the pipeline took after each call:
	// the least over the replays, which a busy machine inflates least.
	// CPU holds the least CPU time its thread spent on each, where that
	// can be read.
	Cost, CPU map[string][]time.Duration
	// Notes lists, per run, what was wrong: "swe_ctf_eps: Drift spoke
	// after calls [5 6]; labels []".
	Notes []string
}

// Run replays every case once with specs and scores each detector.
func Run(cases []Case, specs func() []observer.Spec) (Result, error) {
	return RunN(cases, specs, 1)
}

// RunN replays every case replays times, each time with a new pipeline of
// specs(), scores each detector on the first and keeps each call's least
// cost.
func RunN(cases []Case, specs func() []observer.Spec, replays int) (Result, error) {
	r := Result{Scores: make([]Score, len(Detectors)), ByFamily: map[string][]Score{},
		Cost: map[string][]time.Duration{}, CPU: map[string][]time.Duration{}}
	for _, c := range cases {
		var first Replayed
		for n := range max(replays, 1) {
			got, err := replay(c, specs())
			if err != nil {
				return Result{}, err
			}
			if n == 0 {
				first = got
				continue
			}
			for i, d := range got.Cost {
				first.Cost[i] = min(first.Cost[i], d)
			}
			for i, d := range got.CPU {
				first.CPU[i] = min(first.CPU[i], d)
			}
		}
		if err := r.scoreCase(c, first); err != nil {
			return Result{}, err
		}
	}
	return r, nil
}

// scoreCase adds to r each detector's score on case c, and notes its false
// alarms and misses.
func (r *Result) scoreCase(c Case, got Replayed) error {
	fam := c.Family
	if _, ok := r.ByFamily[fam]; !ok {
		r.Families = append(r.Families, fam)
		r.ByFamily[fam] = make([]Score, len(Detectors))
	}
	r.Cost[fam] = append(r.Cost[fam], got.Cost...)
	r.CPU[fam] = append(r.CPU[fam], got.CPU...)
	for i, d := range Detectors {
		s, err := ScoreRun(c.Labels[d.Label], got.Fired[d.Observer])
		if err != nil {
			return fmt.Errorf("detectorbench: %s: %s: %w", c.ID, d.Label, err)
		}
		s.Calls = len(c.Calls)
		r.Scores[i].add(s)
		r.ByFamily[fam][i].add(s)
		if s.FP > 0 || s.FN > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %s spoke after calls %v; labels %v", c.ID, d.Observer, got.Fired[d.Observer], c.Labels[d.Label]))
		}
	}
	return nil
}

// Print writes r as a table, then its notes.
func (r Result) Print(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %4s %4s %4s %4s\n", "detector", "TP", "FP", "FN", "TN")
	for i, d := range Detectors {
		s := r.Scores[i]
		fmt.Fprintf(&b, "%-9s %4d %4d %4d %4d\n", d.Observer, s.TP, s.FP, s.FN, s.TN)
	}
	for _, n := range r.Notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PrintTable writes, per detector, a Markdown table of its scores by
// family and overall, then the cost per call by family, then the notes.
func (r Result) PrintTable(w io.Writer) error {
	var b strings.Builder
	for i, d := range Detectors {
		fmt.Fprintf(&b, "%s\n\n", d.Observer)
		b.WriteString("| family | calls | episodes | found | false alarms | precision | recall | median delay | false alarms / 100 calls |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, f := range r.Families {
			writeRow(&b, f, r.ByFamily[f][i])
		}
		writeRow(&b, "all", r.Scores[i])
		b.WriteByte('\n')
	}
	b.WriteString("Cost per call, all observers together (least of the replays): time, and CPU time\n\n")
	b.WriteString("| family | calls | median | 99th percentile | most | CPU median | CPU most |\n|---|---:|---:|---:|---:|---:|---:|\n")
	var all, allCPU []time.Duration
	for _, f := range r.Families {
		writeCost(&b, f, r.Cost[f], r.CPU[f])
		all, allCPU = append(all, r.Cost[f]...), append(allCPU, r.CPU[f]...)
	}
	writeCost(&b, "all", all, allCPU)
	b.WriteByte('\n')
	for _, n := range r.Notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeRow(b *strings.Builder, name string, s Score) {
	delay := "–"
	if d := s.MedianDelay(); d >= 0 {
		delay = strconv.FormatFloat(d, 'f', -1, 64)
	}
	fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %.2f | %.2f | %s | %.2f |\n",
		name, s.Calls, s.TP+s.FN, s.TP, s.FP, s.Precision(), s.Recall(), delay, s.FalseAlarmsPer100())
}

// writeCost writes a row of the cost table: the quantiles of cost and of
// cpu, or dashes for CPU times not measured.
func writeCost(b *strings.Builder, name string, cost, cpu []time.Duration) {
	if len(cost) == 0 {
		return
	}
	d := slices.Sorted(slices.Values(cost))
	cpuMedian, cpuMost := "–", "–"
	if len(cpu) > 0 {
		c := slices.Sorted(slices.Values(cpu))
		cpuMedian, cpuMost = micro(Quantile(c, 0.5)), micro(c[len(c)-1])
	}
	fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s |\n", name, len(d), micro(Quantile(d, 0.5)), micro(Quantile(d, 0.99)), micro(d[len(d)-1]), cpuMedian, cpuMost)
}

// Quantile returns the q-quantile of sorted, by the nearest rank.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func micro(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 1, 64) + " µs"
}
