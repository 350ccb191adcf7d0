package report

import (
	"bufio"
	"strconv"

	"github.com/lookout-go/lookout/recorder"
)

// The timeline is written by hand; see escape.go for why.

// writeEntry writes one entry of a timeline.
func writeEntry(w *bufio.Writer, e *entry) {
	if e.Kind == kindTools {
		writeTools(w, e.Group)
		return
	}
	if write := entryWriters[e.Kind]; write != nil {
		write(w, e)
	}
}

// entryWriters writes each kind of entry but a group of tool calls, which
// holds entries itself.
var entryWriters = map[string]func(*bufio.Writer, *entry){
	kindModel:      writeModel,
	kindAnchor:     func(w *bufio.Writer, e *entry) { anchor(w, e.ID) },
	kindMessage:    writeMessage,
	kindReminder:   writeReminder,
	kindAssessment: writeAssessment,
	kindInjected:   writeInjected,
	kindBudget:     writeBudget,
	kindExtension:  writeExtension,
	kindEnd:        writeEnd,
}

// writeMessage writes a message of the conversation.
func writeMessage(w *bufio.Writer, e *entry) {
	open(w, "div", "msg role-", e.Label, e.ID)
	tag(w, e.Label, " message")
	writePre(w, "", "", e.Text)
	w.WriteString("</div>")
}

// writeReminder writes a message Lookout added to the conversation.
func writeReminder(w *bufio.Writer, e *entry) {
	open(w, "div", "reminder", "", e.ID)
	tag(w, e.Label, ", added by Lookout to the model's input")
	writePre(w, "", "", e.Text)
	w.WriteString("</div>")
}

// writeInjected writes a message Lookout added to one model call's input.
func writeInjected(w *bufio.Writer, e *entry) {
	open(w, "div", "injected kind-", e.Label, e.ID)
	w.WriteString(`<p class="tag">`)
	escapeText(w, injectedName(e.Label))
	w.WriteString(", added by Lookout to the model's input as a ")
	escapeText(w, e.Note)
	w.WriteString(" message</p>")
	writePre(w, "", "", e.Text)
	w.WriteString("</div>")
}

// writeBudget writes an exceeded budget.
func writeBudget(w *bufio.Writer, e *entry) {
	open(w, "div", "budget", "", e.ID)
	w.WriteString("budget exceeded: ")
	escapeText(w, e.Budget.Resource)
	w.WriteString(", ")
	w.WriteString(strconv.FormatInt(e.Budget.Used, 10))
	w.WriteString(" used of ")
	w.WriteString(strconv.FormatInt(e.Budget.Limit, 10))
	w.WriteString("</div>")
}

// writeExtension writes an extension or unknown record, folded.
func writeExtension(w *bufio.Writer, e *entry) {
	open(w, "details", "ext", "", e.ID)
	w.WriteString("<summary>")
	escapeText(w, e.Label)
	w.WriteString("</summary>")
	writePre(w, "", "", e.Text)
	w.WriteString("</details>")
}

// writeEnd writes the run's end and its outcome.
func writeEnd(w *bufio.Writer, e *entry) {
	more := e.Note
	if e.Note != "outcome-completed" {
		more += " bad"
	}
	open(w, "div", "end ", more, e.ID)
	w.WriteString("run ended: ")
	escapeText(w, e.Label)
	w.WriteString("</div>")
}

// open writes a start tag with the class class+more and the id.
func open(w *bufio.Writer, name, class, more, id string) {
	w.WriteByte('<')
	w.WriteString(name)
	w.WriteString(` class="`)
	escapeAttr(w, class)
	escapeAttr(w, more)
	w.WriteString(`" id="`)
	escapeAttr(w, id)
	w.WriteString(`">`)
}

// anchor writes an empty element that only carries an id.
func anchor(w *bufio.Writer, id string) {
	w.WriteString(`<i id="`)
	escapeAttr(w, id)
	w.WriteString(`"></i>`)
}

// tag writes an entry's small heading.
func tag(w *bufio.Writer, label, rest string) {
	w.WriteString(`<p class="tag">`)
	escapeText(w, label)
	w.WriteString(rest)
	w.WriteString("</p>")
}

// writePre writes t as preformatted text, saying how much was folded.
// class and id may be empty.
func writePre(w *bufio.Writer, class, id string, t *text) {
	w.WriteString("<pre")
	if class != "" {
		w.WriteString(` class="`)
		w.WriteString(class)
		w.WriteByte('"')
	}
	if id != "" {
		w.WriteString(` id="`)
		escapeAttr(w, id)
		w.WriteByte('"')
	}
	w.WriteByte('>')
	escapeText(w, t.S)
	if t.More > 0 {
		w.WriteString("<i>+")
		w.WriteString(strconv.Itoa(t.More))
		w.WriteString("</i>") // the style sheet adds " bytes"
	}
	w.WriteString("</pre>")
}

// writeAssessment writes an assessment record: its severity, the
// observers that spoke, whether the model was shown it, and its text.
func writeAssessment(w *bufio.Writer, e *entry) {
	open(w, "div", "assessment sev-", assessmentClass(e), e.ID)
	w.WriteString(`<p class="tag">assessment`)
	if e.Label != "" {
		w.WriteString(" [")
		escapeText(w, e.Label)
		w.WriteByte(']')
	}
	writeObservers(w, e.Notes)
	writeShown(w, e)
	w.WriteString("</p>")
	if e.Text != nil {
		writePre(w, "", "", e.Text)
	}
	w.WriteString("</div>")
}

// assessmentClass is the end of an assessment's class: its severity, and
// whether it went unshown.
func assessmentClass(e *entry) string {
	sev := e.Label
	if sev == "" {
		sev = "none"
	}
	if e.Note == assessmentUnshown {
		sev += " unshown"
	}
	return sev
}

// writeObservers writes " · name severity" for each observer that spoke.
func writeObservers(w *bufio.Writer, notes []recorder.ObserverNote) {
	for _, n := range notes {
		w.WriteString(" · ")
		escapeText(w, n.Name)
		if n.Severity != "" {
			w.WriteByte(' ')
			escapeText(w, n.Severity)
		}
	}
}

// writeShown writes whether the model was shown an assessment, with a
// link to where.
func writeShown(w *bufio.Writer, e *entry) {
	switch e.Note {
	case assessmentShown:
		w.WriteString(` · <a href="#`)
		escapeAttr(w, e.Link)
		w.WriteString(`">shown to the model</a>`)
	case assessmentUnshown:
		w.WriteString(" · <b>not shown to the model</b>")
	default:
		w.WriteString(" · as the next model call received it")
	}
}

// writeModel writes a model call: its request's line, then its reply and
// the response's line.
func writeModel(w *bufio.Writer, e *entry) {
	m := e.Model
	class := "model"
	if m.Withheld {
		class += " wrapup"
	}
	if m.Failed {
		class += " failed"
	}
	open(w, "div", class, "", e.ID)
	writeRequest(w, m)
	if m.Answered {
		writeResponse(w, m)
	}
	w.WriteString("</div>")
}

// writeRequest writes the line of a model call's request.
func writeRequest(w *bufio.Writer, m *modelCall) {
	w.WriteString(`<p>model call`)
	if m.Model != "" {
		w.WriteString(" · ")
		escapeText(w, m.Model)
	}
	writeCount(w, m.Messages, " messages")
	writeCount(w, m.Offered, " tools")
	if m.Withheld {
		w.WriteString(" · <b>wrap-up turn: tools withheld</b>")
	}
	writeAgain(w, m.Again)
	w.WriteString("</p>")
}

// writeCount writes " · n what" when n is positive.
func writeCount(w *bufio.Writer, n int, what string) {
	if n <= 0 {
		return
	}
	w.WriteString(" · ")
	w.WriteString(strconv.Itoa(n))
	w.WriteString(what)
}

// writeAgain writes the messages Lookout added again: "· again:
// assessment", each a link to its first showing.
func writeAgain(w *bufio.Writer, again []ref) {
	for i, r := range again {
		if i == 0 {
			w.WriteString(" · again: ")
		} else {
			w.WriteString(", ")
		}
		w.WriteString(`<a href="#`)
		escapeAttr(w, r.ID)
		w.WriteString(`">`)
		escapeText(w, r.Label)
		w.WriteString("</a>")
	}
}

// writeResponse writes a model call's reply and the response's line,
// which carries the response's anchor when the entry does not.
func writeResponse(w *bufio.Writer, m *modelCall) {
	if m.Reply != nil {
		writePre(w, "", "", m.Reply)
	}
	w.WriteString(`<p`) // the call's line, then the response's: styled by place
	if m.RespID != "" {
		w.WriteString(` id="`)
		escapeAttr(w, m.RespID)
		w.WriteByte('"')
	}
	w.WriteByte('>')
	w.WriteString(m.Usage)
	for _, s := range []string{m.Latency, m.Finish} {
		if s != "" {
			w.WriteString(" · ")
			escapeText(w, s)
		}
	}
	w.WriteString("</p>")
}

// writeTools writes a group of tool calls, in a grid of lanes when some
// overlapped.
func writeTools(w *bufio.Writer, g *toolGroup) {
	if g.Lanes > 1 {
		w.WriteString(`<div class="lanes lanes-`)
		w.WriteString(strconv.Itoa(g.Lanes))
		w.WriteString(`">`)
	}
	for _, c := range g.Calls {
		writeTool(w, c)
	}
	if g.Lanes > 1 {
		w.WriteString("</div>")
	}
	for _, e := range g.Extras {
		writeEntry(w, e)
	}
}

// writeTool writes a tool call: its name and duration, which open its
// arguments and then its error and result. The result carries the
// tool_ended record's anchor.
func writeTool(w *bufio.Writer, c *toolCall) {
	open(w, "details", toolClass(c), "", c.ID)
	writeToolSummary(w, c)
	if c.Args != nil {
		writePre(w, "args", "", c.Args)
	}
	writeOutput(w, c)
	if c.Cut != "" {
		w.WriteString(`<p class="meta">`)
		w.WriteString(c.Cut)
		w.WriteString("</p>")
	}
	w.WriteString("</details>")
}

// toolClass is a tool call's class: its lane, and whether it failed or
// did not finish.
func toolClass(c *toolCall) string {
	class := "tool"
	if c.Lane > 0 {
		class += " lane-" + strconv.Itoa(c.Lane)
	}
	if c.IsError {
		class += " error"
	}
	if c.Unfinished {
		class += " unfinished"
	}
	return class
}

// writeToolSummary writes the line that opens a tool call: its name, its
// duration and whether it failed or did not finish.
func writeToolSummary(w *bufio.Writer, c *toolCall) {
	w.WriteString("<summary>")
	escapeText(w, c.Name)
	if c.Duration != "" {
		w.WriteString(" · ")
		w.WriteString(c.Duration)
	}
	if c.IsError {
		w.WriteString(" <b>error</b>")
	}
	if c.Unfinished {
		w.WriteString(" <b>unfinished</b>")
	}
	if c.Control {
		w.WriteString(` <span class="k">control tool, not charged</span>`)
	}
	w.WriteString("</summary>")
}

// writeOutput writes a tool call's error and result; the first of them
// written carries the tool_ended record's anchor, or an empty element
// does when there are none.
func writeOutput(w *bufio.Writer, c *toolCall) {
	id := c.EndID
	if c.Error != nil {
		writePre(w, "err", id, c.Error)
		id = ""
	}
	switch {
	case c.Result != nil && (c.Result.S != "" || id != ""):
		writePre(w, resultClass(c), id, c.Result)
	case id != "":
		anchor(w, id)
	}
}

// resultClass is "err" for the result of a failed call that holds its
// error, and "" for any other.
func resultClass(c *toolCall) string {
	if c.IsError && c.Error == nil {
		return "err"
	}
	return ""
}
