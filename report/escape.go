package report

import "bufio"

// The timeline is written by hand rather than by html/template, for
// speed on trajectories of many thousand records: each record costs a few
// writes instead of a reflective walk. Every recorded string goes through
// escapeText (element content) or escapeAttr (a double-quoted attribute
// value); nothing recorded is ever written in any other place.

// textEscapes are what escapeText replaces. In element content only '<'
// and '&' are special; '>' is escaped too, so that no tag ever shows in
// the source, and NUL, which HTML forbids, becomes U+FFFD.
var textEscapes = [256]string{'&': "&amp;", '<': "&lt;", '>': "&gt;", 0: "\uFFFD"}

// attrEscapes adds the quotes to textEscapes, for attribute values.
var attrEscapes = func() [256]string {
	t := textEscapes
	t['"'] = "&#34;"
	t['\''] = "&#39;"
	return t
}()

// escapeGrowth is how many bytes escapeText adds for c.
func escapeGrowth(c byte) int {
	if r := textEscapes[c]; r != "" {
		return len(r) - 1
	}
	return 0
}

func escapeText(w *bufio.Writer, s string) { escape(w, s, &textEscapes) }

func escapeAttr(w *bufio.Writer, s string) { escape(w, s, &attrEscapes) }

func escape(w *bufio.Writer, s string, table *[256]string) {
	last := 0
	for i := 0; i < len(s); i++ {
		if r := table[s[i]]; r != "" {
			w.WriteString(s[last:i])
			w.WriteString(r)
			last = i + 1
		}
	}
	w.WriteString(s[last:])
}
