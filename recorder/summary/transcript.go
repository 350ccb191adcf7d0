package summary

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/lookout-go/lookout/recorder"

	"github.com/lookout-go/lookout/internal/msgtext"
)

// instructions is the system message of every summary request.
const instructions = `You review what an AI agent did for one user request, from its recorded trajectory.
Reply with a single JSON object and nothing else, with exactly these keys:
  "summary": two or three sentences on how the agent went about the request and what came of it;
  "tools_rationale": why the agent chose the tools it used and what each contributed, or why it needed none;
  "key_findings": an array of short strings, the facts the agent established;
  "confidence": "low", "medium" or "high", how well the trajectory supports the agent's final answer.`

// request builds the user message of a summary request: the query, the
// final answer and the trajectory, each text field cut to maxField bytes
// and the trajectory cut by leaving out entries from its middle. The
// message is at most maxTotal bytes: the query and the answer take at most
// a quarter of it each, so that the trajectory keeps room.
func request(seg segment, maxField, maxTotal int) string {
	outer := min(maxField, max(maxTotal/4-len(ellipsis), 0))
	var b strings.Builder
	b.WriteString("User request:\n")
	b.WriteString(cut(secrets.Redact(seg.prompt.Query), outer))
	b.WriteString("\n\nFinal answer:\n")
	if seg.prompt.Response == "" {
		b.WriteString("(none recorded)")
	} else {
		b.WriteString(cut(secrets.Redact(seg.prompt.Response), outer))
	}
	b.WriteString("\n\nTrajectory, oldest first:\n")
	writeTrajectory(&b, trajectory(seg.records[1:], maxField), maxTotal)
	// Only a bound too small for the headings and the omission line makes
	// the message longer than maxTotal.
	return runePrefix(b.String(), maxTotal)
}

// writeTrajectory writes to b, one a line, the entries that fit in what
// is left of maxTotal bytes.
func writeTrajectory(b *strings.Builder, entries []string, maxTotal int) {
	if len(entries) == 0 {
		b.WriteString("(no steps recorded)\n")
	}
	for _, e := range fit(entries, max(maxTotal-b.Len(), 0)) {
		b.WriteString(e)
		b.WriteByte('\n')
	}
}

// trajectory renders the records of a prompt as one entry each, skipping
// those that say nothing about the agent's reasoning.
func trajectory(recs []*recorder.Record, maxField int) []string {
	t := &transcript{announced: announced(recs), maxField: maxField}
	for _, rec := range recs {
		t.record(rec)
	}
	return t.out
}

// announced returns the ids of the tool calls the model's responses among
// recs show, whose starts need no entry of their own.
func announced(recs []*recorder.Record) map[string]bool {
	ids := map[string]bool{}
	for _, rec := range recs {
		p, ok := rec.Payload.(*recorder.ModelResponse)
		if !ok || p.Message == nil {
			continue
		}
		for _, c := range p.Message.ToolCalls {
			if c.ID != "" {
				ids[c.ID] = true
			}
		}
	}
	return ids
}

// transcript gathers the entries trajectory renders.
type transcript struct {
	out       []string
	announced map[string]bool
	maxField  int
}

func (t *transcript) add(seq uint64, format string, args ...any) {
	t.out = append(t.out, "["+strconv.FormatUint(seq, 10)+"] "+fmt.Sprintf(format, args...))
}

// text is s redacted, cut to maxField and folded onto one line. Cutting
// before folding keeps the folding cheap for long outputs; redacting
// before cutting leaves no part of a secret that the cut would make
// unrecognizable.
func (t *transcript) text(s string) string { return oneLine(cut(secrets.Redact(s), t.maxField)) }

// secrets redacts every text of a summary request with the recorder's
// built-in redactor, so that a trajectory recorded with KeepSecrets, or
// imported, sends no credential it holds to the summarizing model.
var secrets = recorder.Secrets()

// record adds the entries of one record.
func (t *transcript) record(rec *recorder.Record) {
	switch p := rec.Payload.(type) {
	case *recorder.ModelResponse:
		t.response(rec.Seq, p)
	case *recorder.ToolStarted:
		t.toolStarted(rec.Seq, p)
	case *recorder.ToolEnded:
		t.toolEnded(rec.Seq, p)
	case *recorder.Message:
		t.message(rec.Seq, p)
	default:
		t.aside(rec)
	}
}

// aside adds the entries of a record that is not part of the conversation
// itself: an assessment, a budget or the end of the run.
func (t *transcript) aside(rec *recorder.Record) {
	switch p := rec.Payload.(type) {
	case *recorder.AssessmentRecord:
		t.assessment(rec.Seq, p)
	case *recorder.BudgetRecord:
		t.budget(rec.Seq, p)
	case *recorder.RunEnded:
		t.add(rec.Seq, "%s", t.runEnded(p))
	}
}

// toolStarted adds the start of a tool call and its arguments, unless the
// model response already showed the call with them.
func (t *transcript) toolStarted(seq uint64, p *recorder.ToolStarted) {
	if p.CallID == "" || !t.announced[p.CallID] {
		t.add(seq, "tool %s starts with %s", p.Name, t.text(p.Arguments))
	}
}

// message adds a message, by its role.
func (t *transcript) message(seq uint64, p *recorder.Message) {
	if p.Message != nil {
		t.add(seq, "%s message: %s", p.Message.Role, t.text(msgtext.Of(p.Message)))
	}
}

// budget adds an exceeded budget; budgets that were only checked say
// nothing about what the agent did.
func (t *transcript) budget(seq uint64, p *recorder.BudgetRecord) {
	if p.Event == recorder.BudgetExceeded {
		t.add(seq, "budget exceeded: %s, used %d of %d", p.Resource, p.Used, p.Limit)
	}
}

// response adds what a model response holds: its reasoning, its text and
// each tool call, one entry each.
func (t *transcript) response(seq uint64, p *recorder.ModelResponse) {
	if p.Error != "" {
		t.add(seq, "model call failed: %s", t.text(p.Error))
		return
	}
	if p.Message == nil {
		t.add(seq, "model answered nothing")
		return
	}
	if r := p.Message.ReasoningContent; r != "" {
		t.add(seq, "model reasoning: %s", t.text(r))
	}
	if c := msgtext.Of(p.Message); strings.TrimSpace(c) != "" {
		t.add(seq, "model says: %s", t.text(c))
	}
	for _, c := range p.Message.ToolCalls {
		t.add(seq, "model calls %s with %s", c.Function.Name, t.text(c.Function.Arguments))
	}
}

func (t *transcript) toolEnded(seq uint64, p *recorder.ToolEnded) {
	if p.IsError || p.Error != "" {
		t.add(seq, "tool %s failed: %s; output: %s", p.Name, t.text(p.Error), t.text(p.Result))
		return
	}
	t.add(seq, "tool %s returned: %s", p.Name, t.text(p.Result))
}

func (t *transcript) assessment(seq uint64, p *recorder.AssessmentRecord) {
	var who []string
	for _, o := range p.Observers {
		who = append(who, strings.TrimSpace(o.Name+" "+o.Severity))
	}
	t.add(seq, "observers (%s) told the model: %s", strings.Join(who, ", "), t.text(p.Markdown))
}

func (t *transcript) runEnded(p *recorder.RunEnded) string {
	line := "run ended: " + string(p.Outcome)
	if p.StopReason != "" {
		line += " (" + p.StopReason + ")"
	}
	if p.Error != "" {
		line += ": " + t.text(p.Error)
	}
	return line
}

// fit returns entries whose lines fit in budget bytes: all of them if they
// fit, otherwise as many from the start and the end as fit in half the
// budget each, with a line saying how many were left out between.
func fit(entries []string, budget int) []string {
	total := 0
	for _, e := range entries {
		total += len(e) + 1
	}
	if total <= budget {
		return entries
	}
	const marker = 64 // room for the omission line
	half := max(budget-marker, 0) / 2
	head := fitting(slices.All(entries), half)
	tail := len(entries) - fitting(slices.Backward(entries[head:]), half)
	out := make([]string, 0, head+1+len(entries)-tail)
	out = append(out, entries[:head]...)
	out = append(out, fmt.Sprintf("[… %d entries left out …]", tail-head))
	return append(out, entries[tail:]...)
}

// fitting returns how many of the entries seq yields, in its order, fit
// in budget bytes, a line each.
func fitting(seq iter.Seq2[int, string], budget int) int {
	n, used := 0, 0
	for _, e := range seq {
		if used+len(e)+1 > budget {
			break
		}
		used += len(e) + 1
		n++
	}
	return n
}
