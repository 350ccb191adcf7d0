package report

import (
	"bufio"
	"strconv"
)

// writeTimeline writes a run's entries; see escape.go for why by hand.
func writeTimeline(w *bufio.Writer, entries []*entry) {
	for _, e := range entries {
		writeEntry(w, e)
		w.WriteByte('\n')
	}
}

func writeEntry(w *bufio.Writer, e *entry) {
	switch e.Kind {
	case kindTools:
		writeTools(w, e.Group)
	case kindModel:
		writeModel(w, e)
	case kindAnchor:
		anchor(w, e.ID)
	case kindMessage:
		open(w, "div", "msg role-", e.Label, e.ID)
		tag(w, e.Label, " message")
		writePre(w, "", "", e.Text)
		w.WriteString("</div>")
	case kindReminder:
		open(w, "div", "reminder", "", e.ID)
		tag(w, e.Label, ", added by Lookout to the model's input")
		writePre(w, "", "", e.Text)
		w.WriteString("</div>")
	case kindAssessment:
		writeAssessment(w, e)
	case kindInjected:
		open(w, "div", "injected kind-", e.Label, e.ID)
		w.WriteString(`<p class="tag">`)
		escapeText(w, injectedName(e.Label))
		w.WriteString(", added by Lookout to the model's input as a ")
		escapeText(w, e.Note)
		w.WriteString(" message</p>")
		writePre(w, "", "", e.Text)
		w.WriteString("</div>")
	case kindBudget:
		open(w, "div", "budget", "", e.ID)
		w.WriteString("budget exceeded: ")
		escapeText(w, e.Budget.Resource)
		w.WriteString(", ")
		w.WriteString(strconv.FormatInt(e.Budget.Used, 10))
		w.WriteString(" used of ")
		w.WriteString(strconv.FormatInt(e.Budget.Limit, 10))
		w.WriteString("</div>")
	case kindExtension:
		open(w, "details", "ext", "", e.ID)
		w.WriteString("<summary>")
		escapeText(w, e.Label)
		w.WriteString("</summary>")
		writePre(w, "", "", e.Text)
		w.WriteString("</details>")
	case kindEnd:
		open(w, "div", "end ", e.Note, e.ID)
		w.WriteString("run ended: ")
		escapeText(w, e.Label)
		w.WriteString("</div>")
	}
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

func writeAssessment(w *bufio.Writer, e *entry) {
	sev := e.Label
	if sev == "" {
		sev = "none"
	}
	if e.Note == assessmentUnshown {
		sev += " unshown"
	}
	open(w, "div", "assessment sev-", sev, e.ID)
	w.WriteString(`<p class="tag">assessment`)
	if e.Label != "" {
		w.WriteString(" [")
		escapeText(w, e.Label)
		w.WriteByte(']')
	}
	for _, n := range e.Notes {
		w.WriteString(" · ")
		escapeText(w, n.Name)
		if n.Severity != "" {
			w.WriteByte(' ')
			escapeText(w, n.Severity)
		}
	}
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
	w.WriteString("</p>")
	if e.Text != nil {
		writePre(w, "", "", e.Text)
	}
	w.WriteString("</div>")
}

func writeModel(w *bufio.Writer, e *entry) {
	m := e.Model
	class := "model"
	if m.Withheld {
		class = "model wrapup"
	}
	open(w, "div", class, "", e.ID)
	w.WriteString(`<p>model call`)
	if m.Model != "" {
		w.WriteString(" · ")
		escapeText(w, m.Model)
	}
	if m.Messages > 0 {
		w.WriteString(" · ")
		w.WriteString(strconv.Itoa(m.Messages))
		w.WriteString(" messages")
	}
	if m.Offered > 0 {
		w.WriteString(" · ")
		w.WriteString(strconv.Itoa(m.Offered))
		w.WriteString(" tools")
	}
	if m.Withheld {
		w.WriteString(" · <b>wrap-up turn: tools withheld</b>")
	}
	// Messages Lookout added again: "· again: assessment", each a link
	// to its first showing.
	for i, r := range m.Again {
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
	w.WriteString("</p>")
	if m.Answered {
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
	w.WriteString("</div>")
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
	open(w, "details", class, "", c.ID)
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
	w.WriteString("</summary>")
	if c.Args != nil {
		writePre(w, "args", "", c.Args)
	}
	id := c.EndID
	if c.Error != nil {
		writePre(w, "err", id, c.Error)
		id = ""
	}
	switch {
	case c.Result != nil && (c.Result.S != "" || id != ""):
		class := ""
		if c.IsError && c.Error == nil {
			class = "err"
		}
		writePre(w, class, id, c.Result)
	case id != "":
		anchor(w, id)
	}
	if c.Cut != "" {
		w.WriteString(`<p class="meta">`)
		w.WriteString(c.Cut)
		w.WriteString("</p>")
	}
	w.WriteString("</details>")
}
