package scan

import (
	"bytes"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Compiled is the read-only part of a compiled Normalizer, which any
// number of canons may share.
type Compiled struct {
	keys  map[string]struct{}
	rules ruleSet
	// keyStarts marks the bytes, in lower case, a volatile key starts
	// with: a key starting with another is not looked up.
	keyStarts [256]bool
}

func CompileRules(keys []string, rules []Rule) *Compiled {
	c := &Compiled{keys: make(map[string]struct{}, len(keys))}
	var kb []byte
	for _, k := range keys {
		kb = FoldKey(kb[:0], k)
		c.keys[string(kb)] = struct{}{}
		if len(kb) > 0 {
			c.keyStarts[kb[0]] = true
		}
	}
	c.rules = newRuleSet(rules)
	return c
}

// ruleSet is a list of rules with, for each byte, the set of rules that
// can start with it: bit k of starts[b] is set when rule k can; for each
// length of the run of word bytes a word starts with, up to maxRun, the
// set of rules whose matches can start with a run that long; and for each
// byte, the set of rules whose matches can have it right after that run
// (follows[256]: the text's end). Rules past the 64th are tried at every
// word start.
type ruleSet struct {
	rules   []Rule
	starts  [256]uint64
	runs    [maxRun + 1]uint64
	follows [257]uint64
}

// maxRun is the longest run of word bytes a rule set tells apart: longer
// runs count as maxRun.
const maxRun = 16

func newRuleSet(rules []Rule) ruleSet {
	rs := ruleSet{}
	for _, r := range rules {
		if r.Match != nil {
			rs.add(r)
		}
	}
	return rs
}

// add adds rule r, and marks the bytes it can start with.
func (rs *ruleSet) add(r Rule) {
	k := len(rs.rules)
	rs.rules = append(rs.rules, r)
	bit := uint64(1) << min(k, 63)
	shape, ok := wordShapes[funcPointer(r.Match)]
	if !ok {
		shape.most = maxRun
	}
	for n := range rs.runs {
		if shape.least <= n && n <= shape.most || k >= 63 {
			rs.runs[n] |= bit
		}
	}
	for b := range rs.follows {
		if shape.follow == "" || b < 256 && strings.IndexByte(shape.follow, byte(b)) >= 0 || k >= 63 {
			rs.follows[b] |= bit
		}
	}
	if k >= 64 || r.Starts == "" {
		for b := range rs.starts {
			rs.starts[b] |= bit
		}
		return
	}
	for i := range len(r.Starts) {
		rs.starts[r.Starts[i]] |= bit
	}
}

// apply appends s to dst with every rule match replaced by its placeholder.
// A rule is tried only where no word byte comes before: on a byte that is
// not a word byte and that the rule can start with, and on a run of word
// bytes whose first byte, length and next byte its matches can have.
func (rs *ruleSet) apply(dst []byte, s string) []byte {
	if len(rs.rules) == 0 {
		return append(dst, s...)
	}
	last := 0
	for i := 0; i < len(s); {
		at, end, mask := rs.candidate(s, i)
		if mask == 0 {
			break
		}
		if k, n := rs.match(s[at:], mask); n > 0 {
			dst = rs.placeholder(append(dst, s[last:at]...), k)
			i = at + n
			last = i
			i = skipWordTail(s, i)
			continue
		}
		// No rule starts inside a word, nor on the byte after it.
		i = end + 1
	}
	return append(dst, s[last:]...)
}

// candidate returns the first place at or after i, where no word byte
// comes before, at which some rule may start: at, the end of the run of
// word bytes it starts (at itself when s[at] is not a word byte), and the
// set of rules to try, which is empty when there is no such place. It
// calls nothing, so that the loop over the text's bytes keeps its
// variables in registers.
func (rs *ruleSet) candidate(s string, i int) (at, end int, mask uint64) {
	for i < len(s) {
		b := s[i]
		if !IsWordByte(b) {
			if mask := rs.starts[b] & rs.runs[0]; mask != 0 {
				return i, i, mask
			}
			i++
			continue
		}
		j := i + 1
		for j < len(s) && IsWordByte(s[j]) {
			j++
		}
		next := 256
		if j < len(s) {
			next = int(s[j])
		}
		if mask := rs.starts[b] & rs.runs[min(j-i, maxRun)] & rs.follows[next]; mask != 0 {
			return i, j, mask
		}
		// No rule starts inside a word, nor on the byte after it.
		i = j + 1
	}
	return len(s), len(s), 0
}

// skipWordTail returns where the next rule may start at or after i, which
// follows a match: past the byte after a match that ends with a word
// byte, which no rule starts on.
func skipWordTail(s string, i int) int {
	if i > 0 && i < len(s) && IsWordByte(s[i-1]) {
		return i + 1
	}
	return i
}

// placeholder appends the placeholder of rule k.
func (rs *ruleSet) placeholder(dst []byte, k int) []byte {
	dst = append(dst, '<')
	dst = append(dst, rs.rules[k].Name...)
	return append(dst, '>')
}

// match returns the index of the first rule matching at the start of s,
// whose first byte the rules of mask can start with, and the length it
// matches, or a zero length.
func (rs *ruleSet) match(s string, mask uint64) (int, int) {
	for m := mask &^ (1 << 63); m != 0; m &= m - 1 {
		k := bits.TrailingZeros64(m)
		if n := rs.lengthOf(k, s); n > 0 {
			return k, n
		}
	}
	if mask&(1<<63) == 0 {
		return 0, 0
	}
	// Rules past the 63rd share the last bit and are asked again.
	for k := 63; k < len(rs.rules); k++ {
		if starts := rs.rules[k].Starts; starts != "" && strings.IndexByte(starts, s[0]) < 0 {
			continue
		}
		if n := rs.lengthOf(k, s); n > 0 {
			return k, n
		}
	}
	return 0, 0
}

// lengthOf returns the length rule k matches at the start of s, or 0 when
// it does not or when the match would end inside a word. The caller has
// checked that the rule can start with s[0].
func (rs *ruleSet) lengthOf(k int, s string) int {
	n := rs.rules[k].Match(s)
	if n <= 0 || n > len(s) {
		return 0
	}
	if n < len(s) && IsWordByte(s[n-1]) && IsWordByte(s[n]) {
		return 0
	}
	return n
}

// MaxRuleBytes is how many bytes of a text, or of the strings of one
// argument, the rules read: the rest is kept as it is, so that a long
// script or output costs no more to normalize than its start.
const MaxRuleBytes = 1024

// Canon is a compiled Normalizer with reusable buffers. It is owned by one
// detector state or pipeline and used under its lock.
type Canon struct {
	*Compiled
	Buf   []byte
	tmp   []byte
	spans []member
	key   []byte
	// left is how many more bytes of the argument's strings the rules
	// read.
	left int
}

// member is one object member written to canon.buf.
type member struct {
	start, keyEnd, end int
}

// maxDepth bounds the nesting canon follows before treating the input as
// text.
const maxDepth = 32

// Canonical returns the canonical form of args in c.buf. The result is
// valid until the next use of c.
func (c *Canon) Canonical(args string) []byte {
	c.Buf = slices.Grow(c.Buf[:0], len(args))
	c.spans = c.spans[:0]
	c.left = MaxRuleBytes
	i := skipSpace(args, 0)
	if i < len(args) && (args[i] == '{' || args[i] == '[') {
		if next, ok := c.value(args, i, 0); ok && skipSpace(args, next) == len(args) {
			return c.Buf
		}
	}
	c.Buf = append(c.Buf[:0], '~')
	c.Buf = c.Text(c.Buf, strings.TrimSpace(args))
	return c.Buf
}

// Text appends s with the rules applied to its first MaxRuleBytes.
func (c *Canon) Text(dst []byte, s string) []byte {
	n := min(len(s), MaxRuleBytes)
	return append(c.rules.apply(dst, s[:n]), s[n:]...)
}

// value appends the canonical form of the JSON value at s[i:] and returns
// the index after it.
func (c *Canon) value(s string, i, depth int) (int, bool) {
	i = skipSpace(s, i)
	if i >= len(s) || depth > maxDepth {
		return i, false
	}
	switch s[i] {
	case '{':
		return c.object(s, i, depth)
	case '[':
		return c.array(s, i, depth)
	case '"':
		return c.str(s, i)
	}
	return c.literal(s, i)
}

// array appends a JSON array with its elements in canonical form.
func (c *Canon) array(s string, i, depth int) (int, bool) {
	c.Buf = append(c.Buf, '[')
	i, empty := openContainer(s, i, ']')
	for !empty {
		var ok bool
		if i, ok = c.value(s, i, depth+1); !ok {
			return i, false
		}
		if i, empty, ok = afterElement(s, i, ']'); !ok {
			return i, false
		}
		if !empty {
			c.Buf = append(c.Buf, ',')
		}
	}
	c.Buf = append(c.Buf, ']')
	return i, true
}

// str appends a JSON string with the rules applied to its content.
func (c *Canon) str(s string, i int) (int, bool) {
	end, ok := stringEnd(s, i)
	if !ok {
		return i, false
	}
	content := s[i+1 : end-1]
	n := min(len(content), c.left)
	c.left -= n
	c.Buf = append(c.Buf, '"')
	c.Buf = c.rules.apply(c.Buf, content[:n])
	c.Buf = append(c.Buf, content[n:]...)
	c.Buf = append(c.Buf, '"')
	return end, true
}

// literal appends a JSON number, true, false or null as it is.
func (c *Canon) literal(s string, i int) (int, bool) {
	j, ok := literalEnd(s, i)
	if !ok {
		return i, false
	}
	c.Buf = append(c.Buf, s[i:j]...)
	return j, true
}

// object appends a JSON object with its members sorted by key and its
// volatile members dropped.
func (c *Canon) object(s string, i, depth int) (int, bool) {
	base := len(c.spans)
	defer func() { c.spans = c.spans[:base] }()
	open := len(c.Buf)
	c.Buf = append(c.Buf, '{')
	i, closed := openContainer(s, i, '}')
	if closed {
		c.Buf = append(c.Buf, '}')
		return i, true
	}
	for !closed {
		var ok bool
		if i, ok = c.member(s, skipSpace(s, i), depth); !ok {
			return i, false
		}
		if i, closed, ok = afterElement(s, i, '}'); !ok {
			return i, false
		}
	}
	if ms := c.spans[base:]; len(ms) > 1 {
		c.sortMembers(open, ms)
	} else {
		c.Buf = append(c.Buf, '}') // one member, or none: in order
	}
	return i, true
}

// member appends the object member at s[i], and records its span unless
// its key is volatile, in which case it is dropped again.
func (c *Canon) member(s string, i, depth int) (int, bool) {
	key, i, ok := memberKey(s, i)
	if !ok {
		return i, false
	}
	start := len(c.Buf)
	c.Buf = append(c.Buf, '"')
	c.Buf = append(c.Buf, key...)
	c.Buf = append(c.Buf, '"')
	keyEnd := len(c.Buf)
	c.Buf = append(c.Buf, ':')
	if i, ok = c.value(s, i, depth+1); !ok {
		return i, false
	}
	if c.volatile(key) {
		c.Buf = c.Buf[:start]
	} else {
		c.spans = append(c.spans, member{start: start, keyEnd: keyEnd, end: len(c.Buf)})
	}
	return i, true
}

// sortMembers rewrites the members written after buf[open] ('{') in key
// order, comma-separated, and closes the object.
func (c *Canon) sortMembers(open int, ms []member) {
	c.sortByKey(ms)
	c.tmp = append(c.tmp[:0], c.Buf[open+1:]...)
	c.Buf = c.Buf[:open+1]
	for k, m := range ms {
		if k > 0 {
			c.Buf = append(c.Buf, ',')
		}
		c.Buf = append(c.Buf, c.tmp[m.start-open-1:m.end-open-1]...)
	}
	c.Buf = append(c.Buf, '}')
}

// sortByKey sorts members by key, keeping the order of members with equal
// keys.
func (c *Canon) sortByKey(ms []member) {
	if len(ms) <= maxInsertionSort {
		// Insertion sort: objects in tool arguments are mostly small.
		for a := 1; a < len(ms); a++ {
			for b := a; b > 0 && c.keyLess(ms[b], ms[b-1]); b-- {
				ms[b], ms[b-1] = ms[b-1], ms[b]
			}
		}
		return
	}
	// Stable, as insertion sort is: members with equal keys keep their
	// order.
	slices.SortStableFunc(ms, func(a, b member) int {
		return bytes.Compare(c.Buf[a.start:a.keyEnd], c.Buf[b.start:b.keyEnd])
	})
}

// maxInsertionSort is the most members an object's keys are sorted by
// insertion, whose cost grows with the square of their number.
const maxInsertionSort = 16

func (c *Canon) keyLess(a, b member) bool {
	return string(c.Buf[a.start:a.keyEnd]) < string(c.Buf[b.start:b.keyEnd])
}

func (c *Canon) volatile(key string) bool {
	if len(c.keys) == 0 {
		return false
	}
	i := 0
	for i < len(key) && (key[i] == '_' || key[i] == '-') {
		i++
	}
	if i < len(key) && !c.keyStarts[key[i]|0x20] && !c.keyStarts[key[i]] {
		return false // no volatile key starts so: not looked up
	}
	c.key = FoldKey(c.key[:0], key)
	_, ok := c.keys[string(c.key)]
	return ok
}

// FoldKey appends key lower-cased with '_' and '-' removed.
func FoldKey(dst []byte, key string) []byte {
	for i := 0; i < len(key); i++ {
		b := key[i]
		switch {
		case b == '_' || b == '-':
			continue
		case 'A' <= b && b <= 'Z':
			b += 'a' - 'A'
		}
		dst = append(dst, b)
	}
	return dst
}

// stringEnd returns the index after the closing quote of the JSON string
// starting at s[i].
func stringEnd(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			break
		}
		j += k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		escapes := 0
		for b := j - 1; b > i && s[b] == '\\'; b-- {
			escapes++
		}
		if escapes%2 == 0 {
			return j + 1, true
		}
	}
	return len(s), false
}

// openContainer reads past the opening byte of the object or array at
// s[i] and the spaces after it, and reports whether the container is
// closed right away, in which case next is past its closing byte.
func openContainer(s string, i int, closing byte) (next int, empty bool) {
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == closing {
		return i + 1, true
	}
	return i, false
}

// memberKey reads the key of the object member at s[i] and the colon
// after it, and returns the key's raw content and the index after the
// colon.
func memberKey(s string, i int) (key string, next int, ok bool) {
	if i >= len(s) || s[i] != '"' {
		return "", i, false
	}
	end, ok := stringEnd(s, i)
	if !ok {
		return "", i, false
	}
	j := skipSpace(s, end)
	if j >= len(s) || s[j] != ':' {
		return "", j, false
	}
	return s[i+1 : end-1], j + 1, true
}

// afterElement reads what follows a member or element of an object or
// array, the spaces skipped: closing, which ends the container (done), or
// a comma before the next one. next is the index after either.
func afterElement(s string, i int, closing byte) (next int, done, ok bool) {
	i = skipSpace(s, i)
	switch {
	case i >= len(s):
		return i, false, false
	case s[i] == closing:
		return i + 1, true, true
	case s[i] == ',':
		return i + 1, false, true
	}
	return i, false, false
}

// literalEnd returns the index after the JSON number, true, false or null
// at s[i]; it is not one when no byte of a literal is there.
func literalEnd(s string, i int) (int, bool) {
	j := i + RunOf(s[i:], isLiteralByte)
	return j, j > i
}

func skipSpace(s string, i int) int {
	for i < len(s) && ByteClasses[s[i]]&SpaceClass != 0 {
		i++
	}
	return i
}

// byteClass is a set of the classes a byte belongs to. The scanners ask
// about every byte of arguments and results: one table lookup answers
// what would take a chain of comparisons.
type byteClass uint16

// byteClassMembers lists the ASCII members of each class.
var byteClassMembers = [...]struct {
	class byteClass
	bytes string
}{
	{digitClass, Digits},
	{LowerClass, lowers},
	{UpperClass, uppers},
	{hexClass, HexDigits},
	{literalPunct, "-+."},
	{PathCharPunct, `/\._-~@+%`},
	{pathBytePunct, "._-~@+ "},
	{namePunct, "_-."},
	{SpaceClass, " \t\n\r"},
	{UrlStop, " \"'`<>)"},
}

// ByteClasses holds the classes of every byte.
var ByteClasses = makeByteClasses()

func makeByteClasses() (t [256]byteClass) {
	for _, m := range byteClassMembers {
		for i := range len(m.bytes) {
			t[m.bytes[i]] |= m.class
		}
	}
	for b := range ' ' {
		t[b] |= UrlStop
	}
	for b := 0x80; b < len(t); b++ {
		t[b] |= highClass
	}
	return t
}

func isLiteralByte(b byte) bool { return ByteClasses[b]&(WordClass|literalPunct) != 0 }

func IsDigit(b byte) bool { return ByteClasses[b]&digitClass != 0 }

func IsLetter(b byte) bool { return ByteClasses[b]&letterClass != 0 }

func IsHex(b byte) bool { return ByteClasses[b]&hexClass != 0 }

func isAlnum(b byte) bool { return ByteClasses[b]&(digitClass|letterClass) != 0 }

func IsSlash(b byte) bool { return b == '/' || b == '\\' }

// IsSchemeByte reports the bytes of a URL's scheme after its first letter.
func IsSchemeByte(b byte) bool { return ByteClasses[b]&(digitClass|letterClass|literalPunct) != 0 }

// HasDrive reports whether s starts with a Windows drive, as C: does.
func HasDrive(s string) bool { return len(s) >= 3 && IsLetter(s[0]) && s[1] == ':' }

// IsWordByte reports letters and digits, the bytes that make up a word for
// the rules. Bytes of multi-byte UTF-8 characters count as word bytes, so
// rules never start or stop in the middle of a character.
func IsWordByte(b byte) bool { return ByteClasses[b]&WordClass != 0 }

// CountOf returns how many bytes of s satisfy ok.
func CountOf(s string, ok func(byte) bool) int {
	n := 0
	for i := range len(s) {
		if ok(s[i]) {
			n++
		}
	}
	return n
}

// RunOf returns how many bytes at the start of s satisfy ok.
func RunOf(s string, ok func(byte) bool) int {
	n := 0
	for n < len(s) && ok(s[n]) {
		n++
	}
	return n
}

func MatchUUID(s string) int {
	if len(s) < 36 || s[8] != '-' {
		return 0 // most words: no need to read them
	}
	groups := [...]int{8, 4, 4, 4, 12}
	i := 0
	for g, n := range groups {
		if g > 0 {
			if i >= len(s) || s[i] != '-' {
				return 0
			}
			i++
		}
		if RunOf(s[i:], IsHex) < n {
			return 0
		}
		i += n
	}
	return i
}

// MatchTime matches an ISO 8601 date with an optional time, or a time of
// day with seconds.
func MatchTime(s string) int {
	if n := matchClock(s, true); n > 0 {
		return n
	}
	if !fitsLayout(s, "dddd-dd-dd") {
		return 0
	}
	if len(s) < 12 || strings.IndexByte("T ", s[10]) < 0 {
		return 10
	}
	n := matchClock(s[11:], false)
	if n == 0 {
		return 10
	}
	return 11 + n + matchZone(s[11+n:])
}

// matchClock matches HH:MM[:SS[.frac]]; with needSeconds, the seconds are
// required.
func matchClock(s string, needSeconds bool) int {
	if !fitsLayout(s, "dd:dd") {
		return 0
	}
	if fitsLayout(s, "dd:dd:dd") {
		return 8 + DigitsAfter(s[8:], ".,")
	}
	if needSeconds {
		return 0
	}
	return 5
}

// DigitsAfter matches one of the separators seps followed by digits, as
// the fraction of a second follows the seconds and a port an address.
func DigitsAfter(s, seps string) int {
	if len(s) < 2 || strings.IndexByte(seps, s[0]) < 0 || !IsDigit(s[1]) {
		return 0
	}
	return 1 + RunOf(s[1:], IsDigit)
}

// zoneOffsets are the layouts of a time zone's offset after its sign,
// longest first.
var zoneOffsets = [...]string{"dd:dd", "dddd", "dd"}

func matchZone(s string) int {
	if strings.HasPrefix(s, "Z") {
		return 1
	}
	if s == "" || strings.IndexByte("+-", s[0]) < 0 {
		return 0
	}
	for _, layout := range zoneOffsets {
		if fitsLayout(s[1:], layout) {
			return 1 + len(layout)
		}
	}
	return 0
}

// fitsLayout reports whether s starts with layout, in which each 'd'
// stands for a digit and every other byte for itself.
func fitsLayout(s, layout string) bool {
	if len(s) < len(layout) {
		return false
	}
	for i := range len(layout) {
		if !fitsByte(layout[i], s[i]) {
			return false
		}
	}
	return true
}

func fitsByte(layout, b byte) bool {
	if layout == 'd' {
		return IsDigit(b)
	}
	return b == layout
}

func MatchEpoch(s string) int {
	n := RunOf(s, IsDigit)
	if (n == 10 || n == 13) && s[0] == '1' {
		return n
	}
	return 0
}

// tempRoots are the prefixes of temporary directories, compared
// case-insensitively.
var tempRoots = [...]string{"/tmp/", "/var/tmp/", "/dev/shm/", "/private/tmp/", "/var/folders/", "/private/var/folders/"}

func MatchTempDir(s string) int {
	if len(s) < 3 || s[0] != '/' && s[1] != ':' {
		return 0 // neither a root nor a drive: most words
	}
	i := tempRootLen(s)
	if i == 0 {
		return 0
	}
	// The random-looking directory right after the temporary root. In raw
	// JSON a Windows separator is an escaped, doubled backslash.
	j := i + RunOf(s[i:], func(b byte) bool { return b == '\\' })
	n := RunOf(s[j:], isNameByte)
	if n > 0 && j+n < len(s) && IsSlash(s[j+n]) && looksRandom(s[j:j+n]) {
		return j + n
	}
	return i - 1
}

// tempRootLen returns the length of the temporary directory s starts
// with, or 0.
func tempRootLen(s string) int {
	if s[0] != '/' {
		return windowsTemp(s)
	}
	// Only the roots with s's second byte are compared: none for /home,
	// /usr or /etc, and one for /dev/null.
	for m := tempSecond[s[1]]; m != 0; m &= m - 1 {
		root := tempRoots[bits.TrailingZeros8(m)]
		if len(s) >= len(root) && strings.EqualFold(s[:len(root)], root) {
			return len(root) + macTempLen(s[len(root):], root)
		}
	}
	return 0
}

// tempSecond's sets hold at most 8 roots: more do not compile.
var _ [8 - len(tempRoots)]struct{}

// tempSecond holds, for each byte, the set of tempRoots that have it
// after their slash, in either case: bit k for tempRoots[k].
var tempSecond = func() (t [256]uint8) {
	for k, root := range tempRoots {
		t[root[1]] |= 1 << k
		t[root[1]&^0x20] |= 1 << k
	}
	return t
}()

// macTempLen returns the length of the rest of a macOS temporary
// directory, <random>/T/ after /var/folders/xy/, or 0. It is looked for
// only as far as it can start, so that text with many such prefixes costs
// no more than any other.
func macTempLen(rest, root string) int {
	if !strings.HasSuffix(root, "folders/") {
		return 0
	}
	if k := strings.Index(rest[:min(len(rest), 63+len("/T/"))], "/T/"); k >= 0 {
		return k + 3
	}
	return 0
}

// isNameByte reports the bytes of a temporary directory's name.
func isNameByte(b byte) bool { return ByteClasses[b]&(WordClass|namePunct) != 0 }

// looksRandom reports whether a directory's name looks made up for the
// occasion: it has a digit or starts with "tmp".
func looksRandom(name string) bool {
	return strings.ContainsAny(name, Digits) || strings.HasPrefix(strings.ToLower(name), "tmp")
}

// windowsTemp returns the length of a Windows path prefix up to and
// including a component named Temp, as in C:\Users\me\AppData\Local\Temp\,
// or 0.
func windowsTemp(s string) int {
	if !HasDrive(s) || s[2] != '\\' {
		return 0
	}
	return tempComponentEnd(s, 3)
}

// tempComponentEnd returns the index after the first component named Temp
// and its backslash, reading the components of a Windows path from
// s[start] up to its 256th byte, or 0 when there is none or a byte is no
// path's.
func tempComponentEnd(s string, start int) int {
	for i := start; i < min(len(s), 256); i++ {
		switch {
		case s[i] == '\\':
			if strings.EqualFold(s[start:i], "temp") {
				return i + 1
			}
			start = i + 1
		case !isPathByte(s[i]):
			return 0
		}
	}
	return 0
}

func isPathByte(b byte) bool { return ByteClasses[b]&(WordClass|pathBytePunct) != 0 }

// MatchLongID matches a word of 16 or more letters and digits with at
// least 4 digits.
func MatchLongID(s string) int {
	if len(s) < 16 || !isAlnum(s[15]) {
		return 0 // a shorter word: no need to read it
	}
	n := RunOf(s, isAlnum)
	if n >= 16 && CountOf(s[:n], IsDigit) >= 4 {
		return n
	}
	return 0
}

const (
	Digits    = "0123456789"
	HexDigits = "0123456789abcdefABCDEF"
	lowers    = "abcdefghijklmnopqrstuvwxyz"
	uppers    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	Letters   = lowers + uppers
)

const (
	digitClass byteClass = 1 << iota
	LowerClass
	UpperClass
	hexClass
	highClass     // a byte of a multi-byte UTF-8 character
	literalPunct  // besides word bytes, in a JSON literal or number
	PathCharPunct // besides word bytes, in a path in an error message
	pathBytePunct // besides word bytes, in a component of a Windows path
	namePunct     // besides word bytes, in the name of a temporary directory
	SpaceClass    // JSON white space
	UrlStop       // ends a URL in an error message: controls, space, quotes, brackets
	letterClass   = LowerClass | UpperClass
	WordClass     = digitClass | letterClass | highClass
)

// Rule is a compiled normalizer's copy of a rule: a Name written in place
// of what Match matches, where a match can begin with a byte of Starts
// (any byte when it is empty).
type Rule struct {
	Name   string
	Starts string
	Match  func(s string) int
}

// wordShape is what a matcher's matches that start with a run of word
// bytes start with: a run of least to most bytes, and, when follow is not
// empty, one of its bytes right after the run.
type wordShape struct {
	least, most int
	follow      string
}

// wordShapes holds the shapes of the matchers here: a rule set tries them
// on no other word, whoever compiled the rule. A UUID's first group is 8
// bytes before a dash; a time's first field 2 (14:03) or 4 (2026-01-15); an
// IPv4 address's 1 to 3 before a dot; an epoch 10 or 13 digits; a
// temporary directory starts with a slash, or a drive's letter and a
// colon; a URL's scheme goes on to "://", and a path to a slash, as
// src/main.go does.
var wordShapes = map[uintptr]wordShape{
	funcPointer(MatchUUID):    {8, 8, "-"},
	funcPointer(MatchEpoch):   {10, 13, ""},
	funcPointer(MatchLongID):  {16, maxRun, ""},
	funcPointer(MatchID):      {8, maxRun, ""},
	funcPointer(MatchTempDir): {0, 1, ":"},
	funcPointer(MatchTime):    {2, 4, ":-"},
	funcPointer(MatchIPv4):    {1, 3, "."},
	funcPointer(MatchURL):     {1, maxRun, ":" + membersOf(literalPunct)},
	funcPointer(MatchPath):    {0, maxRun, ":" + membersOf(PathCharPunct)},
}

// membersOf returns the ASCII bytes of class c.
func membersOf(c byteClass) string {
	var b []byte
	for i := range 0x80 {
		if ByteClasses[i]&c != 0 {
			b = append(b, byte(i))
		}
	}
	return string(b)
}

func funcPointer(f func(string) int) uintptr { return reflect.ValueOf(f).Pointer() }

// MessageRules returns the rules that make messages with one cause compare
// equal, as observer.MessageRules documents them.
func MessageRules() []Rule {
	return []Rule{
		{Name: "url", Starts: Letters, Match: MatchURL},
		{Name: "uuid", Starts: HexDigits, Match: MatchUUID},
		{Name: "time", Starts: Digits, Match: MatchTime},
		{Name: "addr", Starts: Digits, Match: MatchIPv4},
		{Name: "path", Starts: `/\~.` + Letters + Digits, Match: MatchPath},
		{Name: "id", Starts: Letters + Digits, Match: MatchID},
		{Name: "n", Starts: Digits, Match: MatchNumber},
	}
}

// messageCompiled is MessageRules compiled, with no volatile keys, once
// per process: every session's detectors compare messages with it.
var messageCompiled = sync.OnceValue(func() *Compiled { return CompileRules(nil, MessageRules()) })

// MessageCanon returns a Canon of MessageRules, with buffers of its own,
// whose compiled rules every caller shares.
func MessageCanon() *Canon { return &Canon{Compiled: messageCompiled()} }
