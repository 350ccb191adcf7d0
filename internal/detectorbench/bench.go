package detectorbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	// Cost holds how long the pipeline took after each call.
	Cost []time.Duration
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
	ctx := context.Background()
	for i, rec := range recs {
		t0 := time.Now()
		rec, current := p.AfterToolCall(ctx, rec)
		r.Cost[i] = time.Since(t0)
		if current == nil {
			continue
		}
		for _, a := range current.Assessments {
			r.Fired[a.Observer] = append(r.Fired[a.Observer], rec.CallIndex)
		}
	}
	return r, nil
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
