package summary

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// WriteText writes the report for people to read: the totals, then each
// run in order of appearance. Names are sorted, so the same report always
// reads the same. It returns the first error from w.
func (r Report) WriteText(w io.Writer) error {
	p := &printer{w: w}
	t := &r.Total
	p.line("", "runs: %d (%s, %s)", t.Runs, plural(t.RootRuns, "root", "roots"), plural(t.ChildRuns, "child", "children"))
	if len(t.Outcomes) > 0 {
		p.line("", "outcomes: %s", counts(t.Outcomes))
	}
	if len(t.StopReasons) > 0 {
		p.line("", "stop reasons: %s", counts(t.StopReasons))
	}
	p.stats("", &t.Stats, true)
	for _, c := range r.Conversations {
		p.line("", "conversation %s: %s", c.ID, plural(len(c.Turns), "turn", "turns"))
		for i, id := range c.Turns {
			p.line("  ", "turn %d: run %s", i+1, id)
		}
	}
	for i := range r.Runs {
		p.run(&r.Runs[i])
	}
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(indent, format string, args ...any) {
	if p.err != nil {
		return
	}
	_, p.err = fmt.Fprintf(p.w, indent+format+"\n", args...)
}

func (p *printer) run(r *Run) {
	p.line("", "")
	p.line("", "%s", oneLine(runHeading(r)))
	const in = "  "
	p.line(in, "outcome: %s", oneLine(runOutcome(r)))
	if r.Error != "" {
		// Joined and wrapped errors span lines; they must stay in the run.
		p.line(in, "error: %s", oneLine(r.Error))
	}
	if !r.Started.IsZero() {
		p.line(in, "time: %s to %s", r.Started.UTC().Format(time.RFC3339Nano), r.Ended.UTC().Format(time.RFC3339Nano))
	}
	if l := limits(r); l != "" {
		p.line(in, "limits: %s", l)
	}
	p.stats(in, &r.Stats, false)
	for _, e := range r.Exceeded {
		p.line(in, "budget exceeded: %s, used %d of %d (seq %d)", e.Resource, e.Used, e.Limit, e.Seq)
	}
	p.failures(in, r.Failures)
	if len(r.Children) > 0 {
		p.line(in, "children: %s", strings.Join(r.Children, ", "))
	}
}

// runOutcome is how a run ended, with its stop reason when there is one.
func runOutcome(r *Run) string {
	if r.StopReason == "" {
		return r.Outcome
	}
	return r.Outcome + " (stop reason: " + r.StopReason + ")"
}

// runHeading names a run, with its agent and its parent when known.
func runHeading(r *Run) string {
	var about []string
	if r.AgentName != "" {
		about = append(about, "agent "+r.AgentName)
	}
	if r.ParentRunID != "" {
		about = append(about, "child of "+r.ParentRunID)
	}
	head := "run " + r.RunID
	if r.RunID == "" {
		head = "run (no id)"
	}
	if len(about) > 0 {
		head += " (" + strings.Join(about, ", ") + ")"
	}
	return head
}

func (p *printer) failures(in string, failures []Failure) {
	if len(failures) == 0 {
		return
	}
	p.line(in, "failures:")
	for _, f := range failures {
		call := f.Tool
		if f.CallID != "" {
			call += " (" + f.CallID + ")"
		}
		p.line(in+"  ", "seq %d %s: %s", f.Seq, call, oneLine(f.Error))
	}
}

// stats writes the counters; exceeded says whether to count budget
// limits exceeded (a run lists them itself).
func (p *printer) stats(in string, s *Stats, exceeded bool) {
	p.line(in, "duration: %s", duration(s.Duration))
	p.line(in, "records: %d", s.Records)
	turns := plural(s.ModelCalls, "model call", "model calls")
	if s.ModelCallsWithoutUsage > 0 {
		turns += fmt.Sprintf(" (%d without usage)", s.ModelCallsWithoutUsage)
	}
	p.line(in, "turns: %s, %s", turns, plural(s.UserMessages, "user message", "user messages"))
	p.line(in, "tokens: %s", tokenLine(s.Tokens))
	p.tools(in, s)
	p.assessments(in, s.Assessments)
	if exceeded && len(s.BudgetExceeded) > 0 {
		p.line(in, "budget exceeded: %s", counts(s.BudgetExceeded))
	}
	p.efficacy(in, s)
	if len(s.Extensions) > 0 {
		p.line(in, "extensions: %s", counts(s.Extensions))
	}
	if len(s.UnknownKinds) > 0 {
		p.line(in, "unknown kinds: %s", counts(s.UnknownKinds))
	}
}

// tokenLine renders token counts, with cached and reasoning tokens only
// when there are some.
func tokenLine(t Tokens) string {
	tok := fmt.Sprintf("%d prompt, %d completion, %d total", t.Prompt, t.Completion, t.Total)
	if t.Cached > 0 {
		tok += fmt.Sprintf(", %d cached", t.Cached)
	}
	if t.Reasoning > 0 {
		tok += fmt.Sprintf(", %d reasoning", t.Reasoning)
	}
	return tok
}

// tools writes the tool counters and a line for each tool.
func (p *printer) tools(in string, s *Stats) {
	control := ""
	if s.ControlCalls > 0 {
		control = fmt.Sprintf("; %s, not charged", plural(s.ControlCalls, "control call", "control calls"))
	}
	p.line(in, "tools: %s, %s (%s)%s", plural(s.ToolCalls, "call", "calls"), plural(s.ToolErrors, "error", "errors"), percent(s.ErrorRate), control)
	for _, t := range s.Tools {
		line := fmt.Sprintf("%s: %s, %s, %s", t.Name, plural(t.Calls, "call", "calls"), plural(t.Errors, "error", "errors"), duration(t.Duration))
		if t.Control {
			line += ", control tool"
		}
		if t.Unfinished > 0 {
			line += fmt.Sprintf(", %d unfinished", t.Unfinished)
		}
		p.line(in+"  ", "%s", line)
	}
	for _, m := range s.MCPServers {
		p.line(in+"  ", "MCP server %s (%s): %s, %s, %s", m.Name, strings.Join(m.Tools, ", "),
			plural(m.Calls, "call", "calls"), plural(m.Errors, "error", "errors"), duration(m.Duration))
	}
}

func (p *printer) assessments(in string, a Assessments) {
	switch {
	case a.Count == 0:
		p.line(in, "assessments: none")
	case len(a.BySeverity) == 0: // assessments without observer notes
		p.line(in, "assessments: %d", a.Count)
	default:
		p.line(in, "assessments: %d (%s)", a.Count, counts(a.BySeverity))
		for _, o := range a.Observers {
			p.line(in+"  ", "%s: %s", o.Observer, counts(o.BySeverity))
		}
	}
}

// efficacy writes how the model took each observer's notes, when any were
// measured or any measure was malformed.
func (p *printer) efficacy(in string, s *Stats) {
	if len(s.Efficacy) == 0 && s.MalformedEfficacy == 0 {
		return
	}
	head := "efficacy:"
	if s.MalformedEfficacy > 0 {
		head += fmt.Sprintf(" (%d malformed)", s.MalformedEfficacy)
	}
	p.line(in, "%s", head)
	for _, e := range s.Efficacy {
		p.line(in+"  ", "%s: %d shown, %s, %d followed (%s): changed course %d, wrapped up %d, carried on %d",
			e.Observer, e.Shown, plural(e.Reactions, "reaction", "reactions"), e.Followed(), percent(e.FollowRate()),
			e.ChangedCourse, e.WrappedUp, e.CarriedOn)
	}
}

func limits(r *Run) string {
	var parts []string
	l := r.Limits
	if l.Timeout > 0 {
		parts = append(parts, "timeout "+duration(l.Timeout))
	}
	if !l.Deadline.IsZero() {
		parts = append(parts, "deadline "+l.Deadline.UTC().Format(time.RFC3339))
	}
	if l.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens", l.MaxTokens))
	}
	if l.MaxToolCalls > 0 {
		parts = append(parts, fmt.Sprintf("%d tool calls", l.MaxToolCalls))
	}
	if l.MaxModelCalls > 0 {
		parts = append(parts, fmt.Sprintf("%d model calls", l.MaxModelCalls))
	}
	return strings.Join(parts, ", ")
}

// counts renders a map as "a 1, b 2" in key order.
func counts(m map[string]int) string {
	var b strings.Builder
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte(' ')
		b.WriteString(itoa(m[k]))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

func percent(f float64) string { return fmt.Sprintf("%.1f%%", f*100) }

// duration rounds to the millisecond, which is as fine as people read.
func duration(d time.Duration) string { return d.Round(time.Millisecond).String() }

// oneLine folds runs of white space, line breaks included, into single
// spaces and trims the ends, so that multi-line text stays on its line.
func oneLine(s string) string {
	if isOneLine(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isOneLine reports ASCII text with no white space but single spaces
// between words, which oneLine would return unchanged.
func isOneLine(s string) bool {
	if strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.Contains(s, "  ") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !keptByte(s[i]) {
			return false
		}
	}
	return true
}

// keptByte reports whether c is a byte that oneLine surely leaves as it
// is: printable ASCII, a space or NUL. Other control bytes may be white
// space, and bytes past ASCII may start some, so they are not.
func keptByte(c byte) bool {
	return c < utf8.RuneSelf && (c >= ' ' || c == 0)
}
