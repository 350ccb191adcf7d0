package stall

import (
	"strings"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/scan"
)

func (st *stallState) labelOf(c *stallCall) []byte { return c.label.Of(c.tool, c.summary, c.args) }

// list writes the evidence for a pattern of total calls whose kept calls
// are st.picked, oldest first; firstIndex and firstOf give the pattern's
// first call and a kept call identical to it.
func (st *stallState) list(b *strings.Builder, total int, firstIndex int64, firstOf *stallCall) {
	scan.ListCalls(b, len(st.picked), total, func(b *strings.Builder, i int) {
		c := st.picked[i]
		scan.EvidenceLine(b, c.index, st.labelOf(c), c.success, c.errMsg)
	}, func(b *strings.Builder) {
		scan.EvidenceLine(b, firstIndex, st.labelOf(firstOf), firstOf.success, firstOf.errMsg)
	})
}

// pick gathers the kept calls that keep returns true for, oldest first,
// into st.picked.
func (st *stallState) pick(keep func(*stallCall) bool) {
	picked := st.picked[:0]
	older, newer := st.calls.Halves()
	for _, half := range [...][]stallCall{older, newer} {
		for i := range half {
			if c := &half[i]; keep(c) {
				picked = append(picked, c)
			}
		}
	}
	st.picked, st.kept = picked, chainsKept{}
}

// pickChain gathers the kept calls of e's chain of repeats, e included,
// oldest first, into st.picked. It is pick for the pattern reported most
// often, without a call per kept call.
func (st *stallState) pickChain(e *stallCall) {
	picked := st.picked[:0]
	older, newer := st.calls.Halves()
	for _, half := range [...][]stallCall{older, newer} {
		for i := range half {
			if c := &half[i]; st.inChain(c, e) {
				picked = append(picked, c)
			}
		}
	}
	st.picked = picked
}

// Suggestions of the Stall assessments.
const (
	repeatSuggestion      = "Use the result you already have: calling again will not change it."
	repeatOtherSuggestion = "If it does not answer your question, change the arguments or use a different tool."
	failedSuggestion      = "Calling it again will not help: read the error, then change the call or try another approach."
	oscillateSuggestion   = "Decide what you need from these two calls and move on: switching between them is not making progress."
	stallWarning          = "If you cannot make progress this way, stop and report what is blocking you."
	pollSuggestion        = "Polling again will not change it: check whether what you are waiting for is stuck, or do other work before you poll again."
	sameCallSuggestion    = "Calling it again is not making progress: use what you already have, or change the call."
	recheckSuggestion     = "What you did between these checks did not change the result: find out why before you change anything else or check again."
	noEffectSuggestion    = "Finish or cancel the unfinished command first (its heredoc terminator, a closing quote, or Ctrl-C), then check that the shell prompt is back."
)

// assess turns a finding into an assessment. Its texts are written one
// after the other into st.out, whose buffer they share.
func (st *stallState) assess(f stallFinding) observer.Assessment {
	e := st.calls.Back(0)
	var room [3]string
	var x stallTexts
	st.out.Start(512)
	suggestions := st.describe(&x, room[:0], f, e)
	all := st.out.String()
	if x.summaryAt != (scan.Piece{}) {
		x.summary = x.summaryAt.In(all)
	}
	if x.suggestion != (scan.Piece{}) {
		suggestions = append(suggestions, x.suggestion.In(all))
	}
	if f.severity == observer.Warning {
		suggestions = append(suggestions, stallWarning)
	}
	a := observer.Assessment{Summary: x.summary, Severity: f.severity}
	a.Observations, a.Suggestions = st.parts.ObservationWith(
		observer.Observation{Category: x.category, Description: x.description.In(all), Evidence: x.evidence.In(all)},
		suggestions...)
	return a
}

// stallTexts are what a pattern's assessment says: fixed texts, and the
// pieces of st.out written for it.
type stallTexts struct {
	category, summary string // summary unless summaryAt is written

	summaryAt, description, evidence, suggestion scan.Piece
}

// describe writes the texts of the pattern f into st.out and x, and
// returns suggestions with the pattern's fixed suggestions appended.
func (st *stallState) describe(x *stallTexts, suggestions []string, f stallFinding, e *stallCall) []string {
	switch f.kind {
	case repeatPattern, pollPattern:
		return st.describeRepeat(x, suggestions, f, e)
	case sameCallPattern:
		return st.describeSameCall(x, suggestions, f, e)
	case oscillationPattern:
		return st.describeOscillation(x, suggestions, f, e)
	case writeBackPattern:
		st.describeWriteBack(x, f, e)
	case recheckPattern:
		return st.describeRecheck(x, suggestions, f, e)
	case noEffectPattern:
		return st.describeNoEffect(x, suggestions, f, e)
	}
	return suggestions
}

// repeatWording is what a repeat's texts say, by whether its calls
// succeeded.
type repeatWording struct {
	category, summary, outcome string
	suggestions                []string
}

var (
	repeatSucceeded = repeatWording{
		category:    "repeat",
		summary:     "You are repeating a call that keeps giving the same result.",
		outcome:     " times with the same arguments and returned the same result each time (calls #",
		suggestions: []string{repeatSuggestion, repeatOtherSuggestion},
	}
	repeatFailed = repeatWording{
		category:    "repeat",
		summary:     "You are repeating a call that keeps failing the same way.",
		outcome:     " times with the same arguments and failed the same way each time (calls #",
		suggestions: []string{failedSuggestion},
	}
	repeatPolled = repeatWording{
		category:    "no_progress",
		summary:     "You keep polling, and nothing has changed.",
		outcome:     " times with the same arguments and returned the same result each time (calls #",
		suggestions: []string{pollSuggestion},
	}
)

func (st *stallState) describeRepeat(x *stallTexts, suggestions []string, f stallFinding, e *stallCall) []string {
	t := &st.out
	w := &repeatFailed
	switch {
	case f.kind == pollPattern:
		w = &repeatPolled
	case e.success:
		w = &repeatSucceeded
	}
	if st.kept.of != e.index {
		st.pickChain(e)
	}
	first := e.repeatFirst
	st.list(&t.Builder, f.length, first, e)
	x.evidence = t.End()
	x.category, x.summary = w.category, w.summary
	scan.WriteQuoted(&t.Builder, e.tool)
	t.WriteString(" was called ")
	scan.WriteInt(&t.Builder, int64(f.length))
	t.WriteString(w.outcome)
	scan.WriteInt(&t.Builder, first)
	t.WriteString(" to #")
	scan.WriteInt(&t.Builder, e.index)
	t.WriteString(").")
	x.description = t.End()
	return append(suggestions, w.suggestions...)
}

func (st *stallState) describeSameCall(x *stallTexts, suggestions []string, f stallFinding, e *stallCall) []string {
	x.category = "same_call"
	x.summary = "You keep making the same call; its result changes, but you are not moving on."
	st.describeCalls(x, f, e, e.sigFirst, " times with the same arguments (calls #", "), with nothing else in between.")
	return append(suggestions, sameCallSuggestion)
}

// describeRecheck describes the same call returning the same result
// again and again, with other calls between.
func (st *stallState) describeRecheck(x *stallTexts, suggestions []string, f stallFinding, e *stallCall) []string {
	x.category = "recheck"
	x.summary = "You keep checking the same thing and getting the same result."
	st.describeCalls(x, f, e, e.recurFirst, " times with the same arguments (calls #", ") and returned the same result each time, whatever was done between.")
	return append(suggestions, recheckSuggestion)
}

// describeCalls writes the evidence of the calls with e's tool and
// arguments from first on, and the description "`tool` was called N" +
// middle + "first to #last" + end.
func (st *stallState) describeCalls(x *stallTexts, f stallFinding, e *stallCall, first int64, middle, end string) {
	t := &st.out
	st.pick(func(c *stallCall) bool { return c.index >= first && c.sig == e.sig && !c.exempt })
	st.list(&t.Builder, f.length, first, e)
	x.evidence = t.End()
	scan.WriteQuoted(&t.Builder, e.tool)
	t.WriteString(" was called ")
	scan.WriteInt(&t.Builder, int64(f.length))
	t.WriteString(middle)
	scan.WriteInt(&t.Builder, first)
	t.WriteString(" to #")
	scan.WriteInt(&t.Builder, e.index)
	t.WriteString(end)
	x.description = t.End()
}

// describeNoEffect describes calls in a row that a waiting shell only
// echoed.
func (st *stallState) describeNoEffect(x *stallTexts, suggestions []string, f stallFinding, e *stallCall) []string {
	x.category = "no_effect"
	x.summary = "Your last calls had no effect: the shell is still waiting for the end of an earlier command."
	first := e.index - int64(f.length) + 1
	t := &st.out
	t.WriteString("Calls #")
	scan.WriteInt(&t.Builder, first)
	t.WriteString(" to #")
	scan.WriteInt(&t.Builder, e.index)
	t.WriteString(" were only echoed back after a \">\" prompt: an earlier command, such as a heredoc or an open quote, is unfinished, and nothing sent since has run.")
	x.description = t.End()
	st.pick(func(c *stallCall) bool { return c.index >= first })
	st.list(&t.Builder, f.length, first, e)
	x.evidence = t.End()
	return append(suggestions, noEffectSuggestion)
}

func (st *stallState) describeOscillation(x *stallTexts, suggestions []string, f stallFinding, e *stallCall) []string {
	t := &st.out
	first := e.index - int64(f.length) + 1
	st.pick(func(c *stallCall) bool { return c.index >= first })
	other := st.calls.Back(1)
	firstOf := e
	if (f.length-1)%2 == 1 {
		firstOf = other
	}
	st.list(&t.Builder, f.length, first, firstOf)
	x.evidence = t.End()
	x.category = "oscillation"
	x.summary = "You are alternating between two calls that keep giving the same results."
	t.WriteString("The last ")
	scan.WriteInt(&t.Builder, int64(f.length))
	t.WriteString(" calls alternated between ")
	writeQuotedLabel(&t.Builder, st.labelOf(other))
	t.WriteString(" and ")
	writeQuotedLabel(&t.Builder, st.labelOf(e))
	t.WriteString(", with the same results each time.")
	x.description = t.End()
	return append(suggestions, oscillateSuggestion)
}

func (st *stallState) describeWriteBack(x *stallTexts, f stallFinding, e *stallCall) {
	t := &st.out
	st.pick(func(c *stallCall) bool { return c.index >= e.wbFirst && c.wbRun > 0 && c.target == e.target })
	head := e.wbHead
	scan.ListCalls(&t.Builder, len(st.picked), f.length, func(b *strings.Builder, i int) {
		c := st.picked[i]
		scan.EvidenceLine(b, c.index, st.labelOf(c), c.success, c.errMsg)
	}, func(b *strings.Builder) {
		st.text = scan.AppendLabel(st.text[:0], head.tool, head.summary, head.args)
		scan.EvidenceLine(b, e.wbFirst, st.text, head.success, head.errMsg)
	})
	x.evidence = t.End()
	x.category = "write_back"
	target := scan.Clip(e.targetText, scan.MaxSummaryLen)
	t.WriteString("You keep reading and rewriting ")
	scan.WriteQuoted(&t.Builder, target)
	t.WriteString(" without making progress.")
	x.summaryAt = t.End()
	scan.WriteQuoted(&t.Builder, target)
	t.WriteString(" was read and written in turn ")
	scan.WriteInt(&t.Builder, int64(f.length))
	t.WriteString(" times (calls #")
	scan.WriteInt(&t.Builder, e.wbFirst)
	t.WriteString(" to #")
	scan.WriteInt(&t.Builder, e.index)
	t.WriteString("), and the cycle repeats itself: the same write, or the same content read back.")
	x.description = t.End()
	t.WriteString("Stop rewriting ")
	scan.WriteQuoted(&t.Builder, target)
	t.WriteString(": check what the last write did, then make one deliberate change.")
	x.suggestion = t.End()
}

// writeQuotedLabel writes a call's label, already on one line, in
// backticks.
func writeQuotedLabel(b *strings.Builder, label []byte) {
	b.WriteByte('`')
	b.Write(label)
	b.WriteByte('`')
}
