package drift

import (
	"slices"
	"strings"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/scan"
)

// maxScopeShown is how many scope entries a drift report lists.
const maxScopeShown = 5

// driftReturn is the Drift assessments' last suggestion.
const driftReturn = "If it does not, return to the task; if it does, say why before going further."

// assess turns a finding into an assessment. Its texts are written one
// after the other into st.out, whose buffer they share.
func (st *driftState) assess(f driftFinding) observer.Assessment {
	outside := st.gatherOutside()
	if f.ground != 0 {
		outside = outside[len(outside)-1:]
	}
	t := &st.out
	t.Start(512)
	line := func(b *strings.Builder, i int) {
		c := outside[i]
		scan.EvidenceLine(b, c.index, c.label.Of(c.tool, c.summary, c.args), true, "")
	}
	scan.ListCalls(&t.Builder, len(outside), len(outside), line, func(b *strings.Builder) { line(b, 0) })
	evidence := t.End()
	st.writeDescription(f)
	description := t.End()

	var room [2]string
	suggestions := room[:0]
	task := firstLine(st.taskPrompt)
	var check scan.Piece
	if task != "" {
		t.WriteString("Check that this work serves the task: \"")
		t.WriteString(strings.TrimRight(scan.Clip(task, 120), "."))
		t.WriteString("\".")
		check = t.End()
	}
	all := t.String()
	if task != "" {
		suggestions = append(suggestions, check.In(all))
	}
	summary := "Most of your recent work is outside the task's scope."
	if f.ground != 0 {
		summary = "Your latest call works outside the task."
	}
	a := observer.Assessment{Summary: summary, Severity: f.severity}
	a.Observations, a.Suggestions = st.parts.ObservationWith(observer.Observation{
		Category:    "drift",
		Description: description.In(all),
		Evidence:    evidence.In(all),
	}, append(suggestions, driftReturn)...)
	return a
}

// gatherOutside collects the kept calls outside the scope, oldest first,
// into st.outsideCalls.
func (st *driftState) gatherOutside() []*driftCall {
	st.outsideCalls = st.outsideCalls[:0]
	for i := st.calls.Len() - 1; i >= 0; i-- {
		if c := st.calls.Back(i); c.outside {
			st.outsideCalls = append(st.outsideCalls, c)
		}
	}
	return st.outsideCalls
}

// writeDescription writes how many calls were outside which scope.
func (st *driftState) writeDescription(f driftFinding) {
	t := &st.out
	if f.ground == plantedAt {
		st.writePlanted()
		return
	}
	if f.ground != 0 {
		c := groundCommands[f.ground-1]
		t.WriteString("#")
		scan.WriteInt(&t.Builder, st.calls.Back(0).index)
		t.WriteString(" (")
		t.WriteString(c.name)
		t.WriteString(") ")
		t.WriteString(groundDescriptions[c.kind])
		t.WriteString(".")
		return
	}
	scan.WriteInt(&t.Builder, int64(f.outside))
	t.WriteString(" of the last ")
	scan.WriteInt(&t.Builder, int64(f.total))
	t.WriteString(" calls that named a file, host or resource were outside ")
	if len(st.declared) > 0 {
		t.WriteString("the declared scope")
	} else {
		t.WriteString("the scope taken from the task")
	}
	t.WriteString(" (")
	writeScopeList(&t.Builder, st.scope)
	t.WriteString(").")
}

// writeScopeList writes the first maxScopeShown entries of scope, and how
// many more there are.
func writeScopeList(b *strings.Builder, scope []string) {
	shown := scope[:min(len(scope), maxScopeShown)]
	if slices.ContainsFunc(shown, scan.NeedsOneLine[string]) {
		// oneLine also replaces the invalid UTF-8 of the other entries.
		b.WriteString(scan.OneLine(strings.Join(shown, ", ")))
	} else {
		writeJoined(b, shown)
	}
	if more := len(scope) - len(shown); more > 0 {
		b.WriteString(" and ")
		scan.WriteInt(b, int64(more))
		b.WriteString(" more")
	}
}

// writeJoined writes entries separated by commas.
func writeJoined(b *strings.Builder, entries []string) {
	for i, e := range entries {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e)
	}
}

// firstLine returns the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return scan.OneLine(line)
		}
	}
	return ""
}
