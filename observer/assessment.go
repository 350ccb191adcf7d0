package observer

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lookout-go/lookout/observer/internal/scan"
)

// Severity grades an assessment: [Info] < [Caution] < [Warning].
type Severity int

// The severities, in increasing order.
const (
	Info Severity = iota
	Caution
	Warning
)

// severityNames are the severities' names, by severity.
var severityNames = [...]string{Info: "info", Caution: "caution", Warning: "warning"}

// severityTags are the severities as a heading writes them after the
// observer's name, by severity.
var severityTags = [...]string{Info: " [info]", Caution: " [caution]", Warning: " [warning]"}

// tag returns the severity as a heading writes it after the observer's
// name: " [caution]".
func (s Severity) tag() string {
	if s < Info || s > Warning {
		return " [" + s.String() + "]"
	}
	return severityTags[s]
}

// String returns "info", "caution" or "warning".
func (s Severity) String() string {
	if s < Info || s > Warning {
		return "severity(" + strconv.Itoa(int(s)) + ")"
	}
	return severityNames[s]
}

// MarshalText encodes the severity as its name.
func (s Severity) MarshalText() ([]byte, error) {
	if s < Info || s > Warning {
		return nil, fmt.Errorf("observer: unknown severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText decodes a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity parses "info", "caution" or "warning".
func ParseSeverity(name string) (Severity, error) {
	for s, n := range severityNames {
		if n == name {
			return Severity(s), nil
		}
	}
	return Info, fmt.Errorf("observer: unknown severity %q", name)
}

// Category of the observation that stands in for a failed observer.
const CategoryObserverError = "observer_error"

// Observation is one evidence-backed finding.
type Observation struct {
	// Category is a short machine-friendly label: "loop", "error_rate",
	// "drift", "stall", "observer_error" and so on.
	Category    string `json:"category"`
	Description string `json:"description"`
	// Evidence cites the calls or patterns behind the finding. It is
	// rendered in a fenced block, of more backticks than any run of them
	// in it, so that it cannot close the block early; empty means none.
	Evidence string `json:"evidence,omitempty"`
}

// Assessment is what one observer says after looking at the trajectory.
type Assessment struct {
	Observer     string        `json:"observer"`
	Summary      string        `json:"summary"`
	Observations []Observation `json:"observations,omitempty"`
	Suggestions  []string      `json:"suggestions,omitempty"`
	Severity     Severity      `json:"severity"`
	Timestamp    time.Time     `json:"timestamp"`
}

// Render returns the assessment as markdown for the model: a
// "### Name [severity]" heading, the summary, each observation as
// "**category**: description" with its evidence fenced, and the
// suggestions as a bulleted list.
func (a Assessment) Render() string {
	var b strings.Builder
	b.Grow(a.renderLen())
	b.WriteString("### ")
	a.render(&b)
	return b.String()
}

// renderLen returns the length of what Render writes: the heading's "### "
// and what render writes.
func (a *Assessment) renderLen() int {
	n := len("### ") + len(a.Observer) + len(a.Severity.tag())
	if a.Summary != "" {
		n += len("\n\n") + len(a.Summary)
	}
	if len(a.Observations) > 0 {
		n += len("\n")
		for _, o := range a.Observations {
			n += o.renderLen()
		}
	}
	if len(a.Suggestions) > 0 {
		n += len("\n\n**Suggestions**:")
		for _, s := range a.Suggestions {
			n += len("\n- ") + len(s)
		}
	}
	return n
}

// renderLen returns the length of what render writes.
func (o Observation) renderLen() int {
	n := len("\n**") + len(o.Category) + len("**: ") + len(o.Description)
	if o.Evidence != "" {
		n += len("\n\n\n") + len(o.Evidence) + 2*fenceLen(o.Evidence)
	}
	return n
}

// summaryTags are the severities' tags followed by the blank line before
// a summary, by severity.
var summaryTags = [...]string{Info: " [info]\n\n", Caution: " [caution]\n\n", Warning: " [warning]\n\n"}

// render writes the assessment after the "### " of its heading, which the
// caller writes with what comes before it. Fixed texts that follow one
// another are written together.
func (a *Assessment) render(b *strings.Builder) {
	b.WriteString(a.Observer)
	switch {
	case a.Summary == "":
		b.WriteString(a.Severity.tag())
	case a.Severity >= Info && a.Severity <= Warning:
		b.WriteString(summaryTags[a.Severity])
		b.WriteString(a.Summary)
	default:
		b.WriteString(a.Severity.tag())
		b.WriteString("\n\n")
		b.WriteString(a.Summary)
	}
	for i := range a.Observations {
		if i == 0 {
			b.WriteByte('\n')
		}
		a.Observations[i].render(b)
	}
	for i, s := range a.Suggestions {
		if i == 0 {
			b.WriteString("\n\n**Suggestions**:\n- ")
		} else {
			b.WriteString("\n- ")
		}
		b.WriteString(s)
	}
}

// render writes the observation: its category and description, and its
// evidence fenced.
func (o *Observation) render(b *strings.Builder) {
	b.WriteString("\n**")
	b.WriteString(o.Category)
	b.WriteString("**: ")
	b.WriteString(o.Description)
	if o.Evidence == "" {
		return
	}
	fence := fenceLen(o.Evidence)
	if fence == len("```") {
		// The usual fence, written with the line breaks around it.
		b.WriteString("\n```\n")
		b.WriteString(o.Evidence)
		b.WriteString("\n```")
		return
	}
	b.WriteByte('\n')
	writeFence(b, fence)
	b.WriteByte('\n')
	b.WriteString(o.Evidence)
	b.WriteByte('\n')
	writeFence(b, fence)
}

// fenceLen returns how many backticks fence evidence: three, or one more
// than the longest run of backticks in it, which a fence of fewer cannot
// be closed by.
func fenceLen(evidence string) int {
	first := strings.IndexByte(evidence, '`')
	if first < 0 {
		return 3
	}
	longest, run := 0, 0
	for i := first; i < len(evidence); i++ {
		if evidence[i] != '`' {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return max(3, longest+1)
}

func writeFence(b *strings.Builder, n int) {
	const fence = "```"
	if n == len(fence) {
		b.WriteString(fence)
		return
	}
	for range n {
		b.WriteByte('`')
	}
}

// CurrentAssessment is the session slice holding the latest merged
// assessment, the one injected before the next model call.
type CurrentAssessment struct {
	Assessments []Assessment `json:"assessments"`
	GeneratedAt time.Time    `json:"generated_at"`
	// CallIndex is the tool call after which it was generated.
	CallIndex int64 `json:"call_index"`
}

// Render returns the block injected into the model's context: a
// "## Trajectory Assessment" heading, the "_Generated after tool call #N_"
// line, and each assessment. It returns "" when there are no assessments.
func (c CurrentAssessment) Render() string {
	if len(c.Assessments) == 0 {
		return ""
	}
	const heading = "## Trajectory Assessment\n\n_Generated after tool call #"
	var digits [20]byte
	index := strconv.AppendInt(digits[:0], c.CallIndex, 10)
	// Each assessment is followed by a blank line, except the last, which
	// ends the block with a single newline.
	size := len(heading) + len(index) + len("_\n\n") + 2*len(c.Assessments) - 1
	for i := range c.Assessments {
		size += c.Assessments[i].renderLen()
	}
	return scan.Written(size, func(b *strings.Builder) {
		b.WriteString(heading)
		b.Write(index)
		b.WriteString("_\n\n### ")
		for i := range c.Assessments {
			if i > 0 {
				b.WriteString("\n\n### ")
			}
			c.Assessments[i].render(b)
		}
		b.WriteByte('\n')
	})
}

// IsStale reports whether the assessment is more than maxAgeCalls tool
// calls older than currentCallIndex, the index of the latest call. A
// non-positive maxAgeCalls means [DefaultMaxAgeCalls].
func (c CurrentAssessment) IsStale(currentCallIndex int64, maxAgeCalls int) bool {
	if maxAgeCalls <= 0 {
		maxAgeCalls = DefaultMaxAgeCalls
	}
	return currentCallIndex-c.CallIndex > int64(maxAgeCalls)
}

// Severity returns the highest severity among the assessments, or Info.
func (c CurrentAssessment) Severity() Severity {
	s := Info
	for _, a := range c.Assessments {
		s = max(s, a.Severity)
	}
	return s
}
