package observer

import (
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/lookout-go/lookout/session"
)

// cursor follows the session's call log for one detector, so that each
// call is processed once. It remembers the last call processed and the
// log's epoch, to notice when the log was restored from a snapshot or
// rolled back underneath it.
type cursor struct {
	index int64 // CallIndex of the last call processed; 0 before any
	// epoch is the log's Epoch when the cursor last moved: positions
	// name the same calls while it stays the same.
	epoch uint64
}

// next returns the log position of the first call to process for a log
// whose newest call has index upto, keeping at most keep calls, and
// whether what the detector derived so far must be dropped first.
func (c *cursor) next(calls *session.Log[ToolCallRecord], upto int64, keep int) (from int64, reset bool) {
	from = c.index // positions are CallIndex-1, so the next one is c.index
	epoch := calls.Epoch()
	if c.index > 0 && (c.index > upto || epoch != c.epoch) {
		from, reset = 0, true
	}
	c.epoch = epoch
	if upto-from > int64(keep) {
		from, reset = upto-int64(keep), true
	}
	return from, reset
}

func (c *cursor) mark(rec *ToolCallRecord) { c.index = rec.CallIndex }

// caughtUp reports whether a detector that last checked at call checked
// has nothing new to read for a check at call upto: next returned from
// upto and no reset.
func caughtUp(from int64, reset bool, checked, upto int64) bool {
	return !reset && from == upto && checked == upto
}

// each yields the retained calls at log positions from up to upto,
// oldest first, marking each as processed once it has been handled. The
// calls are the log's own: read them, never change them.
func (c *cursor) each(calls *session.Log[ToolCallRecord], from, upto int64) iter.Seq[*ToolCallRecord] {
	return func(yield func(*ToolCallRecord) bool) {
		for _, rec := range calls.Range(from, upto) {
			if !yield(rec) {
				return
			}
			c.mark(rec)
		}
	}
}

// ring keeps the last len(buf) items, overwriting the oldest.
type ring[T any] struct {
	buf  []T
	head int // position of the oldest item
	n    int
}

func newRing[T any](size int) ring[T] { return ring[T]{buf: make([]T, max(size, 1))} }

func (r *ring[T]) len() int { return r.n }

// push makes room for a new item and returns it for the caller to fill. It
// holds whatever the overwritten slot held.
func (r *ring[T]) push() *T {
	if r.n < len(r.buf) {
		r.n++
		return r.back(0)
	}
	slot := &r.buf[r.head]
	r.head = (r.head + 1) % len(r.buf)
	return slot
}

// back returns the i-th newest item: back(0) is the newest.
func (r *ring[T]) back(i int) *T {
	at := r.head + r.n - 1 - i
	if at >= len(r.buf) {
		at -= len(r.buf)
	}
	return &r.buf[at]
}

func (r *ring[T]) clear() { r.head, r.n = 0, 0 }

// pick returns v, or def when v is zero.
func pick(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// Escalation says how the severity of a detected pattern rises while the
// pattern persists: it is first reported at info (a nudge), raised to
// caution once the pattern has gone on for CautionAfter more calls, and to
// warning after WarningAfter more calls. A negative field means never.
//
// The zero Escalation means the detector's default; any other value is
// taken as it is, so Escalation{WarningAfter: 4} reports at caution from
// the start and at warning after 4 more calls. It is a plain value, safe
// for concurrent use.
type Escalation struct {
	CautionAfter int
	WarningAfter int
}

// severity grades a pattern that has gone on for over calls past the point
// where it is first reported.
func (e Escalation) severity(over int) Severity {
	switch {
	case e.WarningAfter >= 0 && over >= e.WarningAfter:
		return Warning
	case e.CautionAfter >= 0 && over >= e.CautionAfter:
		return Caution
	}
	return Info
}

// or returns e, or def when e is zero.
func (e Escalation) or(def Escalation) Escalation {
	if e == (Escalation{}) {
		return def
	}
	return e
}

// Lengths of the pieces of evidence lines.
const (
	maxSummaryLen = 80
	maxErrorLen   = 80
	maxEvidence   = 6
)

// label caches a call's label, computed when first needed, in a buffer
// that the call's slot in a ring keeps for the next call it holds.
type label struct {
	buf  []byte
	done bool
}

func (l *label) of(tool, paramsSummary, args string) []byte {
	if !l.done {
		l.buf, l.done = appendLabel(l.buf[:0], tool, paramsSummary, args), true
	}
	return l.buf
}

// reuse returns an empty label that keeps l's buffer, for the call that
// replaces l's in a ring slot.
func (l *label) reuse() label { return label{buf: l.buf[:0]} }

// appendLabel appends the name of a call for the model: its tool and
// summarized arguments, as "read_file path=go.mod".
func appendLabel(dst []byte, tool, paramsSummary, args string) []byte {
	s := paramsSummary
	if s == "" {
		// The summary is written on the stack.
		var buf [3 * maxSummaryLen]byte
		summary, ok := appendSummary(buf[:0], args)
		switch {
		case !ok:
			s = strings.TrimSpace(prefixOf(args, 4*maxSummaryLen))
		case len(summary) == 0:
			return append(dst, oneLine(tool)...)
		case needsOneLine(summary):
			s = string(summary)
		default:
			dst = append(append(dst, oneLine(tool)...), ' ')
			return appendClipped(dst, summary, maxSummaryLen)
		}
	}
	s = oneLine(s)
	dst = append(dst, oneLine(tool)...)
	if s == "" {
		return dst
	}
	return appendClipped(append(dst, ' '), s, maxSummaryLen)
}

// appendClipped appends what clip(s, n) returns.
func appendClipped[T string | []byte](dst []byte, s T, n int) []byte {
	if cut := clipLen(s, n); cut < len(s) {
		return append(append(dst, s[:cut]...), "…"...)
	}
	return append(dst, s...)
}

// evidenceLine cites one call: "#12 read_file path=go.mod", with
// " (failed: reason)" for a failure.
func evidenceLine(b *strings.Builder, index int64, label []byte, success bool, errMsg string) {
	b.WriteByte('#')
	writeInt(b, index)
	b.WriteByte(' ')
	b.Write(label)
	if !success {
		b.WriteString(" (failed")
		if msg := clip(oneLine(errMsg), maxErrorLen); msg != "" {
			b.WriteString(": ")
			b.WriteString(msg)
		}
		b.WriteByte(')')
	}
}

// appendSummary appends to dst the abbreviation of JSON object arguments
// as "key=value" pairs, strings unquoted. It reports false when args is
// not a JSON object.
func appendSummary(dst []byte, args string) ([]byte, bool) {
	ok := eachMember(args, func(key, val string, isString bool) bool {
		if len(dst) > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, key...)
		dst = append(dst, '=')
		dst = append(dst, val...)
		return len(dst) < 2*maxSummaryLen
	})
	return dst, ok
}

// oneLine makes s safe for one line of a fenced block: newlines and tabs
// become spaces and backticks become quotes.
func oneLine(s string) string {
	if !needsOneLine(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', '\t':
			return ' '
		case '`':
			return '\''
		}
		return r
	}, s)
}

// needsOneLine reports whether [oneLine] changes s: whether it holds a
// newline, tab or backtick.
func needsOneLine[T string | []byte](s T) bool {
	for i := range len(s) {
		if notOnOneLine[s[i]] {
			return true
		}
	}
	return false
}

// notOnOneLine marks the bytes [oneLine] replaces: one table lookup per
// byte of every label and error text an assessment shows.
var notOnOneLine = [256]bool{'\n': true, '\r': true, '\t': true, '`': true}

// clip shortens s to at most n bytes, cutting at a rune boundary and
// marking the cut with "…".
func clip(s string, n int) string {
	if cut := clipLen(s, n); cut < len(s) {
		return s[:cut] + "…"
	}
	return s
}

// clipLen returns how many bytes of s [clip] keeps: all of them, or fewer
// when it cuts.
func clipLen[T string | []byte](s T, n int) int {
	if len(s) <= n {
		return len(s)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return cut
}

func prefixOf(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// listCalls writes the evidence lines for a pattern of total calls, of
// which the n most recent are kept: all of them when they fit, otherwise
// the first, a line saying how many are left out, and the most recent
// ones. line(b, i) writes the line of the i-th kept call, oldest first;
// first(b) writes the line of the pattern's first call when it is no
// longer kept. Only the lines shown are formatted.
func listCalls(b *strings.Builder, n, total int, line func(b *strings.Builder, i int), first func(b *strings.Builder)) {
	if total <= n && n <= maxEvidence {
		for i := range n {
			if i > 0 {
				b.WriteByte('\n')
			}
			line(b, i)
		}
		return
	}
	const tail = maxEvidence - 3
	from := max(n-tail, 0)
	if total == n {
		line(b, 0)
	} else {
		first(b)
	}
	b.WriteString("\n… ")
	writePlural(b, int64(total-1-(n-from)), "more call", "more calls")
	b.WriteString(" …")
	for i := from; i < n; i++ {
		b.WriteByte('\n')
		line(b, i)
	}
}

// writeInt writes n in decimal without allocating. The evidence of an
// assessment writes one per line, so it does the work inline rather than
// through strconv.
func writeInt(b *strings.Builder, n int64) {
	if 0 <= n && n < 10 {
		b.WriteByte(byte('0' + n))
		return
	}
	var digits [20]byte
	i := len(digits)
	u := uint64(n)
	if n < 0 {
		u = -u
	}
	for u >= 10 {
		i--
		digits[i] = byte('0' + u%10)
		u /= 10
	}
	i--
	digits[i] = byte('0' + u)
	if n < 0 {
		i--
		digits[i] = '-'
	}
	b.Write(digits[i:])
}

// writePlural writes what [plural] returns.
func writePlural(b *strings.Builder, n int64, one, many string) {
	writeInt(b, n)
	b.WriteByte(' ')
	if n == 1 {
		b.WriteString(one)
	} else {
		b.WriteString(many)
	}
}

// texts builds the texts of an assessment one after the other in one
// buffer, so that they take a single allocation: each text is a piece of
// the whole. A detector keeps one in its working state and starts it
// afresh for each assessment; the strings it returned stay valid.
type texts struct {
	strings.Builder
	from int // where the piece being written starts
}

// start discards the pieces of the previous assessment and makes room for
// as much text again, and at least least bytes. The strings of the
// previous assessment stay valid.
func (t *texts) start(least int) {
	size := max(t.Len()+t.Len()/8, least)
	t.Reset()
	t.Grow(size)
	t.from = 0
}

// piece is a text written into a [texts], as its byte range.
type piece struct{ from, to int }

// end ends the piece being written and returns it.
func (t *texts) end() piece {
	p := piece{t.from, t.Len()}
	t.from = p.to
	return p
}

// in returns the piece's text in all, what the texts' String returned.
func (p piece) in(all string) string { return all[p.from:p.to] }
