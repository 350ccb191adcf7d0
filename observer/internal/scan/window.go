package scan

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Ring keeps the last len(buf) items, overwriting the oldest.
type Ring[T any] struct {
	buf  []T
	head int // position of the oldest item
	n    int
}

func NewRing[T any](size int) Ring[T] { return Ring[T]{buf: make([]T, max(size, 1))} }

func (r *Ring[T]) Len() int { return r.n }

// Push makes room for a new item and returns it for the caller to fill. It
// holds whatever the overwritten slot held.
func (r *Ring[T]) Push() *T {
	if r.n < len(r.buf) {
		r.n++
		return r.Back(0)
	}
	slot := &r.buf[r.head]
	r.head = (r.head + 1) % len(r.buf)
	return slot
}

// Back returns the i-th newest item: back(0) is the newest.
func (r *Ring[T]) Back(i int) *T {
	at := r.head + r.n - 1 - i
	if at >= len(r.buf) {
		at -= len(r.buf)
	}
	return &r.buf[at]
}

func (r *Ring[T]) Clear() { r.head, r.n = 0, 0 }

// Halves returns the kept items, oldest first, as the two parts of the
// ring they lie in: older, then newer. A walk over them does without the
// index arithmetic of Back.
func (r *Ring[T]) Halves() (older, newer []T) {
	end := r.head + r.n
	if end <= len(r.buf) {
		return r.buf[r.head:end], nil
	}
	return r.buf[r.head:], r.buf[:end-len(r.buf)]
}

// Carve returns n zero values taken from the front of *free, first
// refilling *free with room for at least chunk values when it holds fewer
// than n: values made one after the other share few allocations. A value
// taken is never handed out again; it keeps its neighbours' array alive
// for as long as it is referenced.
func Carve[T any](free *[]T, n, chunk int) []T {
	if len(*free) < n {
		*free = make([]T, max(n, chunk))
	}
	s := (*free)[:n:n]
	*free = (*free)[n:]
	return s
}

// Pick returns v, or def when v is zero.
func Pick(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// Lengths of the pieces of evidence lines.
const (
	MaxSummaryLen = 80
	maxErrorLen   = 80
	maxEvidence   = 6
)

// Label caches a call's label, computed when first needed, in a buffer
// that the call's slot in a ring keeps for the next call it holds.
type Label struct {
	Buf  []byte
	Done bool
}

func (l *Label) Of(tool, paramsSummary, args string) []byte {
	if !l.Done {
		// Room for the longest label of tool, grown once.
		buf := slices.Grow(l.Buf[:0], len(tool)+1+MaxSummaryLen+len("…"))
		l.Buf, l.Done = AppendLabel(buf, tool, paramsSummary, args), true
	}
	return l.Buf
}

// Reuse returns an empty label that keeps l's buffer, for the call that
// replaces l's in a ring slot.
func (l *Label) Reuse() Label { return Label{Buf: l.Buf[:0]} }

// AppendLabel appends the name of a call for the model: its tool and
// summarized arguments, as "read_file path=go.mod".
func AppendLabel(dst []byte, tool, paramsSummary, args string) []byte {
	s := paramsSummary
	if s == "" {
		// The summary is written on the stack.
		var buf [3 * MaxSummaryLen]byte
		summary, ok := appendSummary(buf[:0], args)
		switch {
		case !ok:
			s = strings.TrimSpace(PrefixOf(args, 4*MaxSummaryLen))
		case len(summary) == 0:
			return append(dst, OneLine(tool)...)
		case NeedsOneLine(summary):
			s = string(summary)
		default:
			dst = append(append(dst, OneLine(tool)...), ' ')
			return appendClipped(dst, summary, MaxSummaryLen)
		}
	}
	s = OneLine(s)
	dst = append(dst, OneLine(tool)...)
	if s == "" {
		return dst
	}
	return appendClipped(append(dst, ' '), s, MaxSummaryLen)
}

// appendClipped appends what clip(s, n) returns.
func appendClipped[T string | []byte](dst []byte, s T, n int) []byte {
	if cut := clipLen(s, n); cut < len(s) {
		return append(append(dst, s[:cut]...), "…"...)
	}
	return append(dst, s...)
}

// EvidenceLine cites one call: "#12 read_file path=go.mod", with
// " (failed: reason)" for a failure.
func EvidenceLine(b *strings.Builder, index int64, label []byte, success bool, errMsg string) {
	// "#12 " is put together on the stack and written at once; an index
	// under 100, the most common, straight from the table.
	var head [1 + 20 + 1]byte
	var i int
	if uint64(index) < 100 {
		i = 18
		head[19], head[20] = digitPairs[2*index], digitPairs[2*index+1]
		if index < 10 {
			i = 19
		}
	} else {
		i = putInt((*[20]byte)(head[1:21]), index)
	}
	head[i] = '#'
	head[len(head)-1] = ' '
	b.Write(head[i:])
	b.Write(label)
	if !success {
		b.WriteString(" (failed")
		if msg := ClipOneLine(errMsg, maxErrorLen); msg != "" {
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
	ok := EachMember(args, func(key, val string, isString bool) bool {
		if len(dst) > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, key...)
		dst = append(dst, '=')
		dst = append(dst, val...)
		return len(dst) < 2*MaxSummaryLen
	})
	return dst, ok
}

// OneLine makes s safe for one line of a fenced block: newlines and tabs
// become spaces and backticks become quotes.
func OneLine(s string) string {
	if !NeedsOneLine(s) {
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

// NeedsOneLine reports whether [oneLine] changes s: whether it holds a
// newline, tab or backtick.
func NeedsOneLine[T string | []byte](s T) bool {
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

// ClipOneLine returns Clip(OneLine(s), n), reading no more of s than it
// shows when it can: OneLine gives at least a byte for each byte of s, and
// changes none before a rune's start; when it changes s at all, it changes
// an invalid byte too.
func ClipOneLine(s string, n int) string {
	end := min(n+1, len(s))
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	switch head := s[:end]; {
	case NeedsOneLine(head):
		return Clip(OneLine(head), n)
	case utf8.ValidString(head):
		return Clip(head, n)
	}
	return Clip(OneLine(s), n)
}

// Clip shortens s to at most n bytes, cutting at a rune boundary and
// marking the cut with "…".
func Clip(s string, n int) string {
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

func PrefixOf(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// ListCalls writes the evidence lines for a pattern of total calls, of
// which the n most recent are kept: all of them when they fit, otherwise
// the first, a line saying how many are left out, and the most recent
// ones. line(b, i) writes the line of the i-th kept call, oldest first;
// first(b) writes the line of the pattern's first call when it is no
// longer kept. Only the lines shown are formatted.
func ListCalls(b *strings.Builder, n, total int, line func(b *strings.Builder, i int), first func(b *strings.Builder)) {
	if total <= n && n <= maxEvidence {
		listAll(b, n, line)
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
	WritePlural(b, int64(total-1-(n-from)), "more call", "more calls")
	b.WriteString(" …")
	for i := from; i < n; i++ {
		b.WriteByte('\n')
		line(b, i)
	}
}

// listAll writes the lines of all n kept calls, oldest first.
func listAll(b *strings.Builder, n int, line func(b *strings.Builder, i int)) {
	for i := range n {
		if i > 0 {
			b.WriteByte('\n')
		}
		line(b, i)
	}
}

// WriteInt writes n in decimal without allocating. The evidence of an
// assessment writes one per line, so it does the work inline rather than
// through strconv.
func WriteInt(b *strings.Builder, n int64) {
	switch {
	case 0 <= n && n < 10:
		b.WriteByte(byte('0' + n))
		return
	case 10 <= n && n < 100:
		// Call indices and counts: two digits, straight from the table.
		b.WriteString(digitPairs[2*n : 2*n+2])
		return
	}
	var digits [20]byte
	b.Write(digits[putInt(&digits, n):])
}

// putInt writes n in decimal at the end of buf and returns where it
// starts.
func putInt(buf *[20]byte, n int64) int {
	i := putDigits(buf, len(buf), magnitude(n))
	if n < 0 {
		i--
		buf[i] = '-'
	}
	return i
}

// magnitude returns the absolute value of n, which MinInt64 has too as
// an unsigned number.
func magnitude(n int64) uint64 {
	if n < 0 {
		return -uint64(n)
	}
	return uint64(n)
}

// putDigits writes the decimal digits of u into buf so that they end
// before end, and returns where they start. Two digits at a time: a
// division costs more than a table lookup.
func putDigits(buf *[20]byte, end int, u uint64) int {
	i := end
	for u >= 100 {
		q := u / 100
		r := 2 * (u - 100*q)
		i -= 2
		buf[i], buf[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		i -= 2
		buf[i], buf[i+1] = digitPairs[2*u], digitPairs[2*u+1]
	} else {
		i--
		buf[i] = byte('0' + u)
	}
	return i
}

// digitPairs holds the two digits of each number from 00 to 99.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// WritePlural writes what [plural] returns.
func WritePlural(b *strings.Builder, n int64, one, many string) {
	WriteInt(b, n)
	b.WriteByte(' ')
	if n == 1 {
		b.WriteString(one)
	} else {
		b.WriteString(many)
	}
}

// Texts builds the texts of an assessment one after the other in one
// buffer, so that they take a single allocation: each text is a piece of
// the whole. The texts of the assessments that follow go on in the same
// buffer while it has room, so that a buffer is shared by several. A
// detector keeps one in its working state and starts it afresh for each
// assessment; the strings it returned stay valid, as their bytes are never
// written again.
type Texts struct {
	strings.Builder
	from int // where the piece being written starts
}

// textsChunk is the size of a Texts buffer: the room of several
// assessments.
const textsChunk = 4096

// Start begins the texts of the next assessment, with room for at least
// least bytes: in the buffer of the previous one when it has that room
// left, or in a new buffer. The strings of the previous assessments stay
// valid.
func (t *Texts) Start(least int) { t.start(least, textsChunk) }

// StartShared is Start for Texts that serve many sessions, such as those
// of a pool: a new buffer, when one is needed, is the room of more
// assessments.
func (t *Texts) StartShared(least int) { t.start(least, pooledChunk) }

// start is Start with a new buffer, when one is needed, of chunk bytes or
// least if more.
func (t *Texts) start(least, chunk int) {
	if t.Cap()-t.Len() < least {
		t.Reset()
		t.Grow(max(least, chunk))
	}
	t.from = t.Len()
}

// pooledTexts are the Texts of writers that keep no state of their own,
// such as an observer that serves many sessions at once.
var pooledTexts = sync.Pool{New: func() any { return new(Texts) }}

// pooledChunk is the size of the buffer of pooled Texts: a pooled
// writer serves the sessions of a process rather than one, so it is the
// room of more assessments, each written once a call and shown to the
// model; the fewer buffers, the fewer allocations.
const pooledChunk = 16 << 10

// Written returns the text that write writes, of about size bytes, into
// the buffer of Texts taken from a pool, which the texts written after it
// share while it has room.
func Written(size int, write func(b *strings.Builder)) string {
	t := pooledTexts.Get().(*Texts)
	t.StartShared(size)
	write(&t.Builder)
	text := t.End().In(t.String())
	pooledTexts.Put(t)
	return text
}

// Piece is a text written into a [texts], as its byte range.
type Piece struct{ from, to int }

// End ends the piece being written and returns it.
func (t *Texts) End() Piece {
	p := Piece{t.from, t.Len()}
	t.from = p.to
	return p
}

// In returns the piece's text in all, what the texts' String returned
// once the piece was written.
func (p Piece) In(all string) string { return all[p.from:p.to] }

// WriteDuration writes what [FormatDuration] returns.
func WriteDuration(b *strings.Builder, d time.Duration) {
	var num [32]byte
	s := d.Seconds()
	switch {
	case s < 60:
		WritePlural(b, int64(s), "second", "seconds")
	case s < 3600:
		WritePlural(b, int64(s/60), "minute", "minutes")
	case s < 86400:
		b.Write(strconv.AppendFloat(num[:0], s/3600, 'f', 1, 64))
		b.WriteString(" hours")
	default:
		b.Write(strconv.AppendFloat(num[:0], s/86400, 'f', 1, 64))
		b.WriteString(" days")
	}
}

// WriteThousands writes n with thousands separators: 50000 → "50,000".
func WriteThousands(b *strings.Builder, n int64) {
	var digits thousandsDigits
	b.Write(digits[putThousands(&digits, n):])
}

// AppendThousands appends n in decimal with a comma between each group
// of three digits.
func AppendThousands(dst []byte, n int64) []byte {
	var digits thousandsDigits
	return append(dst, digits[putThousands(&digits, n):]...)
}

// thousandsDigits holds a number written with thousands separators: the
// groups of three digits with their commas (6 at most), the leading
// digits in the 20 bytes before them, and the sign.
type thousandsDigits [20 + 6*4 + 1]byte

// putThousands writes n with thousands separators at the end of buf, from
// the end, and returns where it starts.
func putThousands(buf *thousandsDigits, n int64) int {
	i := len(buf)
	u := magnitude(n)
	for u >= 1000 {
		q := u / 1000
		r := u - 1000*q
		h := r / 100
		t := 2 * (r - 100*h)
		i -= 4
		buf[i], buf[i+1] = ',', byte('0'+h)
		buf[i+2], buf[i+3] = digitPairs[t], digitPairs[t+1]
		u = q
	}
	i += putDigits((*[20]byte)(buf[i-20:i]), 20, u) - 20
	if n < 0 {
		i--
		buf[i] = '-'
	}
	return i
}

// Leading keeps the digits of a number written before but its last six,
// for the next number that shares them: the count of what is left of a
// large limit, written after every call, changes in its last digits
// only.
type Leading struct {
	high    int64 // n / 1e6 of the number they were written for; 0 for none
	grouped bool  // written with thousands separators
	text    []byte
}

// lowDigits is one more than the largest number of the digits Leading
// writes anew.
const lowDigits = 1e6

// WriteInt writes what [WriteInt] does.
func (l *Leading) WriteInt(b *strings.Builder, n int64) { l.write(b, n, false) }

// WriteThousands writes what [WriteThousands] does.
func (l *Leading) WriteThousands(b *strings.Builder, n int64) { l.write(b, n, true) }

// write writes n, grouped or not.
func (l *Leading) write(b *strings.Builder, n int64, grouped bool) {
	switch {
	case n < lowDigits && grouped:
		WriteThousands(b, n)
	case n < lowDigits:
		WriteInt(b, n)
	default:
		var low [6]byte
		b.Write(l.of(n, grouped, &low))
		if grouped {
			digits := [8]byte{',', low[0], low[1], low[2], ',', low[3], low[4], low[5]}
			b.Write(digits[:])
		} else {
			b.Write(low[:])
		}
	}
}

// of returns the text of the leading digits of n, a million or more,
// grouped or not, written anew when they are not the ones last written,
// and puts its last six digits into low.
func (l *Leading) of(n int64, grouped bool, low *[6]byte) []byte {
	high := n / lowDigits
	if high != l.high || grouped != l.grouped || len(l.text) == 0 {
		if grouped {
			l.text = AppendThousands(l.text[:0], high)
		} else {
			l.text = strconv.AppendInt(l.text[:0], high, 10)
		}
		l.high, l.grouped = high, grouped
	}
	putLow(low, n-high*lowDigits)
	return l.text
}

// putLow writes low, under a million, as six digits with leading zeros,
// two at a time.
func putLow(buf *[6]byte, low int64) {
	u := uint64(low)
	for i := 4; i >= 0; i -= 2 {
		q := u / 100
		r := 2 * (u - 100*q)
		buf[i], buf[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
}

// HasASCIIWordByte reports whether s holds an ASCII letter or digit.
func HasASCIIWordByte(s string) bool {
	for i := range len(s) {
		if s[i] < 0x80 && IsWordByte(s[i]) {
			return true
		}
	}
	return false
}

// WriteQuoted writes a name in backticks for the markdown block.
func WriteQuoted(b *strings.Builder, name string) {
	b.WriteByte('`')
	b.WriteString(OneLine(name))
	b.WriteByte('`')
}

// AtLeast returns a positive v raised to low; a non-positive v (a
// threshold turned off) is returned as it is.
func AtLeast(v, low int) int {
	if v > 0 {
		return max(v, low)
	}
	return v
}
