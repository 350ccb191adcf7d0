package report

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
)

// Kinds of problem, as the page's filters name them.
const (
	problemTool    = "tool-error"  // a tool call that failed
	problemRefused = "refused"     // a tool call the budget, a lease or an observer refused
	problemModel   = "model-error" // a model call attempt that failed
	problemBudget  = "budget"      // a limit exceeded
	problemRun     = "run"         // a run that did not complete
)

// maxProblems bounds the problems the page lists; the rest are counted.
const maxProblems = 1000

// problemTextBytes bounds the text shown with a problem.
const problemTextBytes = 160

// problem is one thing that went wrong in a run, with a link to it.
type problem struct {
	Kind  string // one of the problem kinds
	Label string // what the page calls it: "tool error", "refused", ...
	Tool  string // the tool's name, for a tool call
	Text  string // the error, cut short
	Link  string // the anchor of the entry that shows it
}

// problem notes what went wrong at the entry with anchor link, listing it
// while the page's list has room.
func (b *builder) problem(r *run, p problem) {
	r.issues++
	if b.problems >= maxProblems {
		return
	}
	b.problems++
	p.Text = short(p.Text)
	r.Problems = append(r.Problems, p)
}

// toolProblem notes a failed or refused tool call.
func (b *builder) toolProblem(r *run, c *toolCall, p *recorder.ToolEnded) {
	r.Failed++
	kind, label, text := problemTool, "tool error", p.Error
	if strings.HasPrefix(p.Result, "Tool call refused") {
		kind, label, text = problemRefused, "refused", p.Result
	}
	if text == "" {
		text = p.Result
	}
	b.problem(r, problem{Kind: kind, Label: label, Tool: p.Name, Text: text, Link: c.ID})
}

// runProblem notes a run that did not complete: it ended with another
// outcome, or its end was never recorded.
func (b *builder) runProblem(r *run, end string) {
	if r.Outcome == string(recorder.OutcomeCompleted) {
		return
	}
	text := r.StopReason
	if r.ended != nil && r.ended.Error != "" {
		text = r.ended.Error
	}
	link := end
	if link == "" {
		link = r.Anchor
	}
	b.problem(r, problem{Kind: problemRun, Label: "run " + r.Outcome, Text: text, Link: link})
}

// short cuts s to problemTextBytes, on a rune boundary, marking the cut.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= problemTextBytes {
		return s
	}
	cut := problemTextBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// listProblems fills the view's list of runs with problems, the header's
// counts and the filters' values.
func listProblems(v *view, runs []*run) {
	agents, tools, outcomes := map[string]bool{}, map[string]bool{}, map[string]bool{}
	listed := 0
	for _, r := range runs {
		agents[r.Agent], outcomes[r.Outcome] = true, true
		for name := range r.tools {
			tools[name] = true
		}
		r.Tools = strings.Join(slices.Sorted(maps.Keys(r.tools)), " ")
		v.Summary.Failed += r.Failed
		v.Summary.Problems += r.issues
		if r.issues > 0 {
			v.Problems = append(v.Problems, r)
			listed += len(r.Problems)
		}
	}
	v.ProblemsLeft = v.Summary.Problems - listed
	v.Filters = filters{
		Agents:   slices.Sorted(maps.Keys(agents)),
		Tools:    slices.Sorted(maps.Keys(tools)),
		Outcomes: slices.Sorted(maps.Keys(outcomes)),
	}
}

// Within is the root run of the query r is part of, when r is not it.
func (r *run) Within() *run {
	if r.Query == r {
		return nil
	}
	return r.Query
}

// Spent says what the query r is the root of used, for a root run that
// started others, whose own usage leaves out its children's: "3,080
// tokens, 8 model and 3 tool calls (and 3 control calls)".
func (r *run) Spent() string {
	s := r.spent
	if s == nil {
		return ""
	}
	out := observer.FormatCount(s.tokens) + " tokens, " + strconv.FormatInt(s.modelCalls, 10) + " model and " +
		strconv.FormatInt(s.toolCalls, 10) + " tool calls"
	if s.controlCalls > 0 {
		out += " (and " + strconv.FormatInt(s.controlCalls, 10) + " control calls, not charged)"
	}
	return out
}
