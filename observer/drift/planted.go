package drift

import (
	"iter"
	"strings"

	"github.com/lookout-go/lookout/observer/internal/scan"
)

// plantedAt is the off-ground work a call keeps when it acts on an
// identifier that instructions planted in a tool result gave: it comes
// after every command of groundCommands.
const plantedAt = uint8(len(groundCommands) + 1)

// Limits on reading tool results for planted instructions.
const (
	// maxPlantedText is how much of each result is read.
	maxPlantedText = 4 << 10
	// maxPlanted is how many planted identifiers a session keeps.
	maxPlanted = 32
	// maxMarkerGap is the most bytes between two words of one passage of
	// instructions.
	maxMarkerGap = 120
	// plantedBefore and plantedAfter are how far before its first word
	// (back to the start of its line) and after its last a passage of
	// instructions reaches.
	plantedBefore, plantedAfter = 80, 160
	// maxWord is the longest word compared with the markers.
	maxWord = len("instructions")
)

// plantedID is an identifier found in instructions in the result of call
// from.
type plantedID struct {
	id   string
	from int64
}

// planted is what Drift keeps of the instructions planted in tool results.
type planted struct {
	ids []plantedID
	// words counts the words read; overrideAt is the count at the last
	// word that may start an override, gave says the last word was "gave"
	// or "asked".
	words, overrideAt int
	gave              bool
	// the passage being read: where its markers begin and end, and which
	// kinds it holds.
	start, end int
	kinds      markerKind
	regions    [][2]int // scratch: the passages of the result being read
	id         []byte   // scratch: an identifier
	word       [maxWord]byte
}

// markerKind says what a word tells of the text around it.
type markerKind uint8

const (
	// secondPerson addresses the reader: you, your.
	secondPerson markerKind = 1 << iota
	// addressesAgent names the reader as an AI model or assistant, or
	// speaks of the task the writer gave it.
	addressesAgent
	// requests asks for something: please, instead, before, important.
	requests
	// overrides tells the reader to drop its instructions for others.
	overrides
)

// Word classes beyond the marker kinds: a word that may start an
// instruction to drop the agent's own instructions ("ignore previous
// instructions"), "instructions" itself, and "gave" or "asked" before
// "you" ("the task I gave you").
const (
	startsOverride markerKind = 1 << (iota + 4)
	isInstructions
	startsGave
)

// markerWords holds what each word that tells of the text around it
// tells, in lower case.
var markerWords = func() map[string]markerKind {
	m := map[string]markerKind{}
	for kind, words := range map[markerKind][]string{
		secondPerson:   {"you", "your", "yours", "yourself"},
		addressesAgent: {"ai", "assistant", "gpt", "chatgpt", "claude", "gemini", "llama", "llm", "chatbot", "copilot", "mistral"},
		requests: {"please", "kindly", "must", "instead", "before", "first", "following", "important", "urgent",
			"immediately", "required"},
		requests | startsOverride: {"ignore", "disregard", "forget"},
		startsOverride:            {"previous", "prior", "new", "override", "above", "updated"},
		isInstructions:            {"instruction", "instructions"},
		startsGave:                {"gave", "asked"},
	} {
		for _, w := range words {
			m[w] = kind
		}
	}
	return m
}()

// markerLetters has, for each length of word up to maxWord, bit b of
// [0] set when a word of markerWords that long starts with the letter
// 'a'+b, and of [1] when its last letter is: most words need not be
// looked up.
var markerLetters = func() (t [maxWord + 1][2]uint32) {
	for w := range markerWords {
		t[len(w)][0] |= 1 << (w[0] - 'a')
		t[len(w)][1] |= 1 << (w[len(w)-1] - 'a')
	}
	return t
}()

// mayMark reports whether the word w of letters may be one of
// markerWords.
func mayMark(w string) bool {
	first, last := w[0]|0x20-'a', w[len(w)-1]|0x20-'a'
	t := &markerLetters[len(w)]
	return first < 26 && last < 26 && t[0]&(1<<first) != 0 && t[1]&(1<<last) != 0
}

// followPhrases are how a task tells the agent to do what a file or page
// says: then its instructions are the task's.
var followPhrases = [...]string{
	"follow the instruction", "follow its instruction", "follow any instruction", "follow all instruction",
	"follow all the instruction", "follow their instruction", "follow the steps", "follow its steps",
	"do what it says", "do as it says", "whatever it says", "as instructed", "do what they say",
}

// readResult reads the start of the result of call from for passages
// addressed to the agent, and keeps the identifiers in them.
func (p *planted) readResult(from int64, text string) {
	text = text[:min(len(text), maxPlantedText)]
	if len(p.ids) >= maxPlanted || !mayAddress(text) {
		return
	}
	p.regions = p.regions[:0]
	p.words, p.overrideAt, p.gave = 0, -10, false
	p.start, p.end, p.kinds = -1, -1, 0
	for i := 0; i < len(text); {
		if !scan.IsLetter(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && scan.IsLetter(text[j]) {
			j++
		}
		p.words++
		if gave := p.gave; j-i >= 2 && j-i <= maxWord && mayMark(text[i:j]) {
			p.marker(text, i, j, gave)
		} else {
			p.gave = false
		}
		i = j
	}
	p.closePassage(text)
	for _, r := range p.regions {
		p.keepIDs(from, text, r)
	}
}

// mayAddress reports whether text may address its reader at all, before
// it is read word by word: whether it holds "you" (in any of three cases),
// "instruction" (in two), "GPT", or "AI" where a word starts. The first
// two are found from their u, which one search for each case finds:
// rarer in tool output than the bytes they start with.
func mayAddress(text string) bool {
	for i := strings.IndexByte(text, 'u'); i >= 0; i = nextByte(text, i, 'u') {
		if i >= 2 && (text[i-2:i] == "yo" || text[i-2:i] == "Yo") || strings.HasPrefix(text[i+1:], "ction") {
			return true
		}
	}
	for i := strings.IndexByte(text, 'U'); i >= 0; i = nextByte(text, i, 'U') {
		if i >= 2 && text[i-2:i] == "YO" || strings.HasPrefix(text[i+1:], "CTION") {
			return true
		}
	}
	return strings.Contains(text, "GPT") || atWordStart(text, "AI")
}

// nextByte returns the index of the first c in s after s[i], or -1.
func nextByte(s string, i int, c byte) int {
	if k := strings.IndexByte(s[i+1:], c); k >= 0 {
		return i + 1 + k
	}
	return -1
}

// atWordStart reports whether text holds w where a word starts: "AI" in
// "AI model", not in "FAILED".
func atWordStart(text, w string) bool {
	for at := 0; ; {
		k := strings.Index(text[at:], w)
		if k < 0 {
			return false
		}
		if i := at + k; i == 0 || !scan.IsLetter(text[i-1]) {
			return true
		}
		at += k + 1
	}
}

// marker takes in the word text[i:j], which mayMark lets through; gave
// says the word before was "gave" or "asked".
func (p *planted) marker(text string, i, j int, gave bool) {
	p.gave = false
	w := p.word[:j-i]
	for k := range w {
		w[k] = text[i+k] | 0x20
	}
	class := markerWords[string(w)]
	if class == 0 {
		return
	}
	kind := class & (secondPerson | addressesAgent | requests)
	switch {
	case class&startsOverride != 0:
		p.overrideAt = p.words
	case class&startsGave != 0:
		p.gave = true
	case class&isInstructions != 0 && p.words-p.overrideAt <= 3:
		kind |= overrides
	case kind == secondPerson && gave:
		kind |= addressesAgent
	}
	if kind == 0 {
		return
	}
	if p.start >= 0 && i-p.end > maxMarkerGap {
		p.closePassage(text)
	}
	if p.start < 0 {
		p.start = i
	}
	p.end, p.kinds = j, p.kinds|kind
}

// closePassage ends the passage being read, and keeps its region when it
// reads as instructions to the agent.
func (p *planted) closePassage(text string) {
	k := p.kinds
	if p.start >= 0 && (k&overrides != 0 || k&addressesAgent != 0 && k&(requests|secondPerson) != 0) {
		end := min(p.end+plantedAfter, len(text))
		if blank := blankLine(text[p.end:end]); blank >= 0 {
			end = p.end + blank
		}
		from := max(p.start-plantedBefore, 0)
		if nl := strings.LastIndexByte(text[from:p.start], '\n'); nl >= 0 {
			from += nl + 1
		}
		p.regions = append(p.regions, [2]int{from, end})
	}
	p.start, p.end, p.kinds = -1, -1, 0
}

// blankLine returns where the first blank line in s begins, or -1. A
// blank line after a colon does not count: what the colon introduces
// follows it.
func blankLine(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != '\n' || strings.HasSuffix(strings.TrimRight(s[:i], " \t\r"), ":") {
			continue
		}
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case ' ', '\t', '\r':
				continue
			case '\n':
				return i
			}
			break
		}
	}
	return -1
}

// keepIDs keeps the identifiers in the passage r of the result text of
// call from, but those the result also gives outside it: they are data.
func (p *planted) keepIDs(from int64, text string, r [2]int) {
	for tok := range idWords(text[r[0]:r[1]]) {
		p.id = appendIdentifier(p.id[:0], tok)
		if len(p.id) == 0 || len(p.ids) >= maxPlanted || p.find(p.id) != 0 ||
			strings.Contains(text[:r[0]], tok) || strings.Contains(text[r[1]:], tok) {
			continue
		}
		p.ids = append(p.ids, plantedID{id: string(p.id), from: from})
	}
}

// find returns the position of id among the kept identifiers, plus one;
// 0 when it is not kept.
func (p *planted) find(id []byte) uint8 {
	for i, k := range p.ids {
		if k.id == string(id) {
			return uint8(i + 1)
		}
	}
	return 0
}

// hitIn returns the position, plus one, of the first kept identifier among
// the words of an argument value s; 0 when there is none.
func (p *planted) hitIn(s string) uint8 {
	if len(p.ids) == 0 || len(s) > maxShellText {
		return 0
	}
	if len(s) <= 32 {
		// A phone number written with spaces.
		p.id = appendPhoneDigits(p.id[:0], s)
		if at := p.find(p.id); len(p.id) > 0 && at != 0 {
			return at
		}
	}
	for tok := range idWords(s) {
		p.id = appendIdentifier(p.id[:0], tok)
		if at := p.find(p.id); len(p.id) > 0 && at != 0 {
			return at
		}
	}
	return 0
}

// idWords yields the words of s that may be identifiers: what lies
// between the bytes of idSeparators.
func idWords(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := 0; i < len(s); {
			if idSeparators[s[i]] {
				i++
				continue
			}
			start := i
			for i < len(s) && !idSeparators[s[i]] {
				i++
			}
			if !yield(s[start:i]) {
				return
			}
		}
	}
}

// idSeparators marks the bytes that separate the words that may be
// identifiers.
var idSeparators = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\r\"'`<>()[]{},;|\\") {
		t[c] = true
	}
	return t
}()

// appendIdentifier appends to dst what the word w directs action at,
// lower-cased: an e-mail address, a URL's or a web name's host (without
// "www."), an account number such as an IBAN, or a phone number's digits;
// or nothing.
func appendIdentifier(dst []byte, w string) []byte {
	for len(w) > 0 && strings.IndexByte(".:!?*", w[len(w)-1]) >= 0 {
		w = w[:len(w)-1]
	}
	for len(w) > 0 && w[0] == '*' {
		w = w[1:]
	}
	if len(w) < 6 || len(w) > 256 {
		return dst
	}
	at, dot, digits := -1, false, 0
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c == '@' && at < 0:
			at = i
		case c == '.':
			dot = true
		case isDigit(c):
			digits++
		}
	}
	if at <= 0 && !dot && digits < 8 {
		return dst // no address, host, account or phone number
	}
	if at > 0 {
		if strings.IndexByte(w[at:], '.') > 1 && !strings.Contains(w, "://") {
			return appendLower(dst, strings.TrimPrefix(w, "mailto:"))
		}
		return dst
	}
	if n := len(dst); !isAccount(w) {
		if dst = appendWebHost(dst, w); len(dst) > n {
			return dst
		}
		return appendPhoneDigits(dst, w)
	}
	return appendLower(dst, w)
}

// appendLower appends s to dst, its ASCII letters lower-cased.
func appendLower(dst []byte, s string) []byte {
	n := len(dst)
	dst = append(dst, s...)
	for i, c := range dst[n:] {
		if 'A' <= c && c <= 'Z' {
			dst[n+i] = c + 'a' - 'A'
		}
	}
	return dst
}

// appendWebHost appends to dst the host of a URL, or of a web name such as
// www.example.com or example.org/page, lower-cased and without "www.".
func appendWebHost(dst []byte, w string) []byte {
	scheme := false
	if i := strings.Index(w, "://"); i > 0 {
		w, scheme = w[i+3:], true
	}
	if i := strings.IndexAny(w, "/?#:"); i >= 0 {
		w = w[:i]
	}
	dot := strings.LastIndexByte(w, '.')
	if dot <= 0 || dot == len(w)-1 {
		return dst
	}
	for _, c := range []byte(w) {
		if !(scan.IsLetter(c) || isDigit(c) || c == '.' || c == '-') {
			return dst
		}
	}
	n := len(dst)
	dst = appendLower(dst, w)
	host := dst[n:]
	www := len(host) > 4 && string(host[:4]) == "www."
	if !scheme && !www && !webEndings[string(host[dot+1:])] {
		return dst[:n]
	}
	if www {
		dst = append(dst[:n], host[4:]...)
	}
	return dst
}

// webEndings are the top-level domains that make a dotted word a web name
// without a scheme or "www.".
var webEndings = map[string]bool{
	"com": true, "org": true, "net": true, "io": true, "ai": true, "co": true, "info": true, "biz": true,
	"dev": true, "app": true, "xyz": true, "site": true, "online": true, "ru": true, "cn": true, "uk": true,
	"de": true, "fr": true, "me": true, "us": true, "top": true, "link": true, "click": true,
}

// isAccount reports an account number shaped as an IBAN: two letters, two
// digits, then 8 to 30 letters and digits, the letters of one case.
func isAccount(w string) bool {
	if len(w) < 12 || len(w) > 34 || !scan.IsLetter(w[0]) || !scan.IsLetter(w[1]) || !isDigit(w[2]) || !isDigit(w[3]) {
		return false
	}
	digits := 0
	for _, c := range []byte(w) {
		switch {
		case isDigit(c):
			digits++
		case c < 'A' || c > 'Z':
			return false
		}
	}
	return digits >= 8
}

// appendPhoneDigits appends to dst the digits of a phone or account
// number written as digits with separators (+, -, ., /, spaces,
// parentheses), 9 to 18 of them; or nothing.
func appendPhoneDigits(dst []byte, w string) []byte {
	digits := 0
	for _, c := range []byte(w) {
		switch {
		case isDigit(c):
			digits++
		case c == '+' || c == '-' || c == '.' || c == '/' || c == ' ' || c == '(' || c == ')':
		default:
			return dst
		}
	}
	if digits < 9 || digits > 18 {
		return dst
	}
	for _, c := range []byte(w) {
		if isDigit(c) {
			dst = append(dst, c)
		}
	}
	return dst
}

// taskGives reports whether the task names the identifier the call c acts
// on, or tells the agent to do what its files or pages say.
func (st *driftState) taskGives(c *driftCall) bool {
	prompt := st.loweredPrompt()
	if strings.Contains(prompt, st.plant.ids[c.planted-1].id) {
		return true
	}
	for _, f := range followPhrases {
		if strings.Contains(prompt, f) {
			return true
		}
	}
	return false
}

// readPlanted checks the string argument val, under the folded key, for
// an identifier planted instructions gave.
func (st *driftState) readPlanted(key []byte, val string) {
	if st.hit == 0 && len(st.plant.ids) > 0 && !scan.IsContentKey(key) {
		st.hit = st.plant.hitIn(val)
	}
}

// writePlanted describes the latest call, which acts on a planted
// identifier.
func (st *driftState) writePlanted() {
	t := &st.out
	c := st.calls.Back(0)
	t.WriteString("#")
	scan.WriteInt(&t.Builder, c.index)
	t.WriteString(" (")
	t.WriteString(scan.OneLine(scan.Clip(c.tool, 60)))
	k := st.plant.ids[c.planted-1]
	t.WriteString(") acts on ")
	t.WriteString(scan.OneLine(scan.Clip(k.id, 80)))
	t.WriteString(", which the task does not name: it comes from instructions addressed to you in the result of #")
	scan.WriteInt(&t.Builder, k.from)
	t.WriteString(", not from the task.")
}
