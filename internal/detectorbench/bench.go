package detectorbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// Case is one labelled run.
type Case struct {
	ID     string              `json:"id"`
	Task   string              `json:"task"`
	Scope  []string            `json:"scope"`
	Labels map[string][]string `json:"labels"`
	Calls  []Call              `json:"calls"`
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

// Slack is how many calls before or after a labelled range a detector may
// speak and still count as finding it.
const Slack = 1

// maxText is how much of a result or error the adapters keep.
const maxText = 1024

// Load reads every .json case in dir, in name order.
func Load(dir string) ([]Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
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
	return cases, nil
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

// Specs returns the detectors with their defaults, run on every call.
func Specs() []observer.Spec {
	every := observer.Trigger{OnEveryCall: true}
	return []observer.Spec{
		{Observer: stall.New(), Trigger: every},
		{Observer: cascade.New(), Trigger: every},
		{Observer: drift.New(), Trigger: every},
	}
}

// Replay runs c's calls through a pipeline of specs, as the adapters
// record them, and returns the calls after which each observer produced
// an assessment, by observer name.
func Replay(c Case, specs []observer.Spec) (map[string][]int64, error) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store := session.New(&session.StoreOptions{Now: func() time.Time { return start }})
	session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: c.Task, Scope: c.Scope})
	p, err := observer.NewPipeline(store, specs, nil)
	if err != nil {
		return nil, err
	}
	fired := map[string][]int64{}
	for _, call := range c.Calls {
		rec, err := record(call, start)
		if err != nil {
			return nil, fmt.Errorf("detectorbench: %s: %w", c.ID, err)
		}
		rec, current := p.AfterToolCall(context.Background(), rec)
		if current == nil {
			continue
		}
		for _, a := range current.Assessments {
			fired[a.Observer] = append(fired[a.Observer], rec.CallIndex)
		}
	}
	return fired, nil
}

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
}

func (s *Score) add(o Score) { s.TP, s.FP, s.FN, s.TN = s.TP+o.TP, s.FP+o.FP, s.FN+o.FN, s.TN+o.TN }

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
		if slices.ContainsFunc(fired, sp.covers) {
			s.TP++
		} else {
			s.FN++
		}
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
// the order of [Detectors], and each run's false alarms and misses.
type Result struct {
	Scores []Score
	// Notes lists, per run, what was wrong: "swe_ctf_eps: Drift false
	// alarm at calls 5-9".
	Notes []string
}

// Run replays every case with specs and scores each detector.
func Run(cases []Case, specs []observer.Spec) (Result, error) {
	r := Result{Scores: make([]Score, len(Detectors))}
	for _, c := range cases {
		fired, err := Replay(c, specs)
		if err != nil {
			return Result{}, err
		}
		if err := scoreCase(&r, c, fired); err != nil {
			return Result{}, err
		}
	}
	return r, nil
}

// scoreCase adds to r each detector's score on case c, given the calls
// after which each observer spoke, and notes its false alarms and misses.
func scoreCase(r *Result, c Case, fired map[string][]int64) error {
	for i, d := range Detectors {
		s, err := ScoreRun(c.Labels[d.Label], fired[d.Observer])
		if err != nil {
			return fmt.Errorf("detectorbench: %s: %s: %w", c.ID, d.Label, err)
		}
		r.Scores[i].add(s)
		if s.FP > 0 || s.FN > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %s spoke after calls %v; labels %v", c.ID, d.Observer, fired[d.Observer], c.Labels[d.Label]))
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
