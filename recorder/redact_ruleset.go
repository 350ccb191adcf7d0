package recorder

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

//go:generate go run ./internal/genrules

// secretRule is a provider rule of gitleaks (redact_rules.go): a secret
// is a match of regex, in text that holds one of keywords (in any case),
// whose secret group (the first non-empty one when group is 0, or the
// whole match when there is none) has a Shannon entropy above entropy,
// and that no allowlist lets through.
type secretRule struct {
	id       string
	keywords []string
	regex    string
	entropy  float64
	group    int
	allow    []ruleAllow
}

// ruleAllow lets a finding through when one of its regexes matches its
// target (the secret, the whole match or the match's lines) or the
// secret holds one of its stopwords (in lower case).
type ruleAllow struct {
	target    uint8
	regexes   []string
	stopwords []string
}

// The targets of a ruleAllow's regexes.
const (
	allowSecret = iota
	allowMatch
	allowLine
)

// A rule's regexp runs over a window around each of its keywords in the
// text rather than over all of it, so that a long text pays for the few
// hundred bytes around the keyword only: from windowBefore bytes before
// it to windowAfter bytes after it, windows that overlap merged. Every
// rule's match lies within 64 bytes before its keyword; a secret that
// runs past a window's end is redacted to the end of its run of token
// bytes.
const (
	windowBefore = 64
	windowAfter  = 512
)

// compiledRule is a rule's regexps, compiled on the rule's first use:
// most programs never meet most providers.
type compiledRule struct {
	once  sync.Once
	re    *regexp.Regexp
	allow []compiledAllow
}

type compiledAllow struct {
	target    uint8
	regexes   []*regexp.Regexp
	stopwords []string
}

func compileAllow(a ruleAllow) compiledAllow {
	c := compiledAllow{target: a.target, stopwords: a.stopwords}
	for _, r := range a.regexes {
		c.regexes = append(c.regexes, regexp.MustCompile(r))
	}
	return c
}

// ownRules are the redactor's own rules, for formats gitleaks has no
// rule for, or none that fires outside a file of a known kind.
var ownRules = [...]secretRule{
	{id: "docker-hub-token", keywords: []string{"dckr_pat_", "dckr_oat_"}, regex: `\bdckr_[op]at_[\w-]{27,}`},
	{id: "telegram-bot-token", keywords: []string{":aa"}, regex: `\d{8,10}:AA[\w-]{33}`},
	{id: "tencent-secret-id", keywords: []string{"akid"}, regex: `\bAKID[A-Za-z0-9]{32}\b`},
	{id: "sshpass-password", keywords: []string{"sshpass"}, regex: `sshpass\s+-p\s*(?:'([^']+)'|"([^"]+)"|(\S+))`},
	{id: "netrc-password", keywords: []string{"machine"}, regex: `\bmachine\s+\S+(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+(\S+)`},
	{id: "pgpass-password", keywords: []string{":5432:", ":*:"}, regex: `(?m)^[^:\s]+:(?:\d+|\*):[^:\s]+:[^:\s]+:(\S+)$`},
	{id: "zapier-webhook", keywords: []string{"hooks.zapier.com"}, regex: `hooks\.zapier\.com/hooks/catch/(\d+/[A-Za-z0-9]+)`},
	{id: "teams-webhook", keywords: []string{"webhook.office.com", "outlook.office.com/webhook"}, regex: `(?:webhook\.office\.com/webhookb2|outlook\.office\.com/webhook)/([\w@./-]+)`},
	// A random string passed to a call, as in Client("…") or run("…"):
	// most often a credential.
	{id: "random-call-argument", keywords: []string{"(\"", "('"}, regex: `\(\s*["']([A-Za-z0-9_\-.+/=]{24,})["']\s*[,)]`, entropy: 4.3},
}

// rules are gitleaks' rules and then the redactor's own.
var rules = append(gitleaksRules[:len(gitleaksRules):len(gitleaksRules)], ownRules[:]...)

var (
	compiledRules     = make([]compiledRule, len(rules))
	compiledGlobal    compiledAllow
	compileGlobalOnce sync.Once
)

// ruleAt returns rule i's regexps, compiling them on first use.
func ruleAt(i int) *compiledRule {
	c := &compiledRules[i]
	c.once.Do(func() {
		r := &rules[i]
		c.re = regexp.MustCompile(r.regex)
		for _, a := range r.allow {
			c.allow = append(c.allow, compileAllow(a))
		}
	})
	return c
}

func globalAllowRules() *compiledAllow {
	compileGlobalOnce.Do(func() { compiledGlobal = compileAllow(globalAllow) })
	return &compiledGlobal
}

// keywordAt is a keyword found in a text: keyword kw of ruleKeywords at
// index at.
type keywordAt struct{ kw, at int }

// ruleKeywords is every rule's keywords, each once, in lower case, with
// the rules that hold it and the index that finds them.
var ruleKeywords = newKeywordIndex()

type keywordIndex struct {
	words []string
	rules [][]int
	// pairs holds, for two bytes read as a little-endian uint16, 1 + the
	// index in cands of the keywords those bytes may be part of, or 0.
	pairs [1 << 16]uint16
	cands [][]pairCand
}

// pairCand says that a keyword may start back bytes before a pair of
// bytes.
type pairCand struct{ kw, back int }

// newKeywordIndex indexes each keyword by two pairs of its bytes that
// are rare in prose, code and JSON: the pair at some offset i and the one
// at i+1. A scan looks up the text's bytes two at a time at even offsets
// only, and an occurrence of a keyword at any offset has one of the two at
// an even offset. A keyword of two bytes is indexed by itself and by its
// second byte followed by any byte (or by none, at the text's end).
func newKeywordIndex() *keywordIndex {
	x := &keywordIndex{}
	seen := map[string]int{}
	for i := range rules {
		for _, w := range rules[i].keywords {
			k, ok := seen[w]
			if !ok {
				k = len(x.words)
				seen[w] = k
				x.words = append(x.words, w)
				x.rules = append(x.rules, nil)
				x.index(w, k)
			}
			x.rules[k] = append(x.rules[k], i)
		}
	}
	return x
}

func (x *keywordIndex) index(w string, k int) {
	if len(w) == 2 {
		x.add(w[0], w[1], pairCand{k, 0}, false)
		x.add(w[1], 0, pairCand{k, 1}, true)
		return
	}
	best, cost := 0, math.MaxInt
	for i := 0; i+2 < len(w); i++ {
		if c := pairCost(w[i], w[i+1]) + pairCost(w[i+1], w[i+2]); c < cost {
			best, cost = i, c
		}
	}
	x.add(w[best], w[best+1], pairCand{k, best}, false)
	x.add(w[best+1], w[best+2], pairCand{k, best + 1}, false)
}

// add files c under the pair (a, b), in every case of each, or under a
// followed by any byte when anyB is set.
func (x *keywordIndex) add(a, b byte, c pairCand, anyB bool) {
	for _, a := range cases(a) {
		if anyB {
			for b := range 256 {
				x.file(uint16(a)|uint16(b)<<8, c)
			}
			continue
		}
		for _, b := range cases(b) {
			x.file(uint16(a)|uint16(b)<<8, c)
		}
	}
}

func (x *keywordIndex) file(pair uint16, c pairCand) {
	if x.pairs[pair] == 0 {
		x.cands = append(x.cands, nil)
		x.pairs[pair] = uint16(len(x.cands))
	}
	i := x.pairs[pair] - 1
	x.cands[i] = append(x.cands[i], c)
}

// cases returns c in both cases when it is a letter.
func cases(c byte) []byte {
	if c >= 'a' && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// pairCost is how often the two bytes a and b may be expected next to
// each other in text, roughly: the product of their frequencies in
// English, digits and the punctuation of code counted as common letters.
func pairCost(a, b byte) int { return byteCost(a) * byteCost(b) }

func byteCost(c byte) int {
	const freq = "zqjxkvbpygfwmucldrhsnioate" // rarest first
	if i := strings.IndexByte(freq, c); i >= 0 {
		return i + 1
	}
	switch {
	case c >= '0' && c <= '9', c == '_', c == '-', c == '.':
		return 14
	case c == ' ':
		return 30
	}
	return 5
}

// scan appends each keyword occurrence in s to found: sixteen bytes at a
// time, a table lookup for each two, and a look at the candidates of the
// pairs found only.
func (x *keywordIndex) scan(s string, found []keywordAt) []keywordAt {
	p := 0
	for ; p+16 <= len(s); p += 16 {
		w := s[p : p+16]
		c0, c1 := x.pairs[uint16(w[0])|uint16(w[1])<<8], x.pairs[uint16(w[2])|uint16(w[3])<<8]
		c2, c3 := x.pairs[uint16(w[4])|uint16(w[5])<<8], x.pairs[uint16(w[6])|uint16(w[7])<<8]
		c4, c5 := x.pairs[uint16(w[8])|uint16(w[9])<<8], x.pairs[uint16(w[10])|uint16(w[11])<<8]
		c6, c7 := x.pairs[uint16(w[12])|uint16(w[13])<<8], x.pairs[uint16(w[14])|uint16(w[15])<<8]
		if c0|c1|c2|c3|c4|c5|c6|c7 == 0 {
			continue
		}
		for j, c := range [8]uint16{c0, c1, c2, c3, c4, c5, c6, c7} {
			if c != 0 {
				found = x.check(s, p+2*j, c, found)
			}
		}
	}
	for ; p < len(s); p += 2 {
		pair := uint16(s[p])
		if p+1 < len(s) {
			pair |= uint16(s[p+1]) << 8
		}
		if c := x.pairs[pair]; c != 0 {
			found = x.check(s, p, c, found)
		}
	}
	return found
}

// check appends the keywords of candidates c that s holds about the pair
// at p.
func (x *keywordIndex) check(s string, p int, c uint16, found []keywordAt) []keywordAt {
	for _, cand := range x.cands[c-1] {
		w := x.words[cand.kw]
		q := p - cand.back
		if q >= 0 && q+len(w) <= len(s) && equalLower(s[q:q+len(w)], w) {
			found = append(found, keywordAt{cand.kw, q})
		}
	}
	return found
}

// scanPlainly is scan done plainly: each keyword looked for in the
// lower-cased text. It is the reference scan agrees with.
func (x *keywordIndex) scanPlainly(s string) []keywordAt {
	low := []byte(s)
	for i, c := range low {
		low[i] = lower(c)
	}
	var found []keywordAt
	for k, w := range x.words {
		for i := 0; ; {
			j := strings.Index(string(low[i:]), w)
			if j < 0 {
				break
			}
			found = append(found, keywordAt{k, i + j})
			i += j + 1
		}
	}
	return found
}

// ruleSpans appends the secrets that the rules of the keywords found in
// s find about them.
func ruleSpans(s string, found []keywordAt, spans []span) []span {
	if len(found) == 0 {
		return spans
	}
	type window struct{ rule, start, end int }
	var ws []window
	for _, f := range found {
		start := max(0, f.at-windowBefore)
		end := min(len(s), f.at+len(ruleKeywords.words[f.kw])+windowAfter)
		for _, r := range ruleKeywords.rules[f.kw] {
			ws = append(ws, window{r, start, end})
		}
	}
	slices.SortFunc(ws, func(a, b window) int {
		if a.rule != b.rule {
			return a.rule - b.rule
		}
		return a.start - b.start
	})
	for i := 0; i < len(ws); {
		w := ws[i]
		for i++; i < len(ws) && ws[i].rule == w.rule && ws[i].start <= w.end; i++ {
			w.end = max(w.end, ws[i].end)
		}
		spans = ruleWindowSpans(s, w.rule, w.start, w.end, spans)
	}
	return spans
}

// ruleWindowSpans appends the secrets rule r finds in s[start:end].
func ruleWindowSpans(s string, r, start, end int, spans []span) []span {
	c := ruleAt(r)
	rule := &rules[r]
	for _, m := range c.re.FindAllStringSubmatchIndex(s[start:end], -1) {
		a, b := secretGroup(m, rule.group)
		if a < 0 {
			continue
		}
		sec := span{start + a, start + b}
		match := s[start+m[0] : start+m[1]]
		secret := s[sec.start:sec.end]
		if rule.entropy != 0 && entropy(secret) <= rule.entropy {
			continue
		}
		if allowed(globalAllowRules(), s, secret, match, start+m[0]) || slices.ContainsFunc(c.allow, func(a compiledAllow) bool {
			return allowed(&a, s, secret, match, start+m[0])
		}) {
			continue
		}
		if sec.end == end && end < len(s) {
			// The window cut the secret: take the rest of its run.
			sec.end = runEnd(s, sec.end, isTokenByte)
		}
		if strings.HasPrefix(s[sec.start:], Redacted) {
			continue
		}
		spans = append(spans, sec)
	}
	return spans
}

// secretGroup returns the bounds of the secret in the submatch indexes m:
// group g when it is set, else the first non-empty group, else the whole
// match; or -1 when group g did not take part.
func secretGroup(m []int, g int) (int, int) {
	if g > 0 {
		if 2*g+1 >= len(m) {
			return -1, -1
		}
		return m[2*g], m[2*g+1]
	}
	for i := 2; i+1 < len(m); i += 2 {
		if m[i] >= 0 && m[i+1] > m[i] {
			return m[i], m[i+1]
		}
	}
	return m[0], m[1]
}

// allowed reports whether the allowlist a lets the secret through, found
// in the match that starts at index at of s.
func allowed(a *compiledAllow, s, secret, match string, at int) bool {
	target := secret
	switch a.target {
	case allowMatch:
		target = match
	case allowLine:
		lineStart := strings.LastIndexByte(s[:at], '\n') + 1
		lineEnd := len(s)
		if i := strings.IndexByte(s[at+len(match):], '\n'); i >= 0 {
			lineEnd = at + len(match) + i
		}
		target = s[lineStart:lineEnd]
	}
	for _, re := range a.regexes {
		if re.MatchString(target) {
			return true
		}
	}
	if len(a.stopwords) > 0 {
		low := strings.ToLower(secret)
		for _, w := range a.stopwords {
			if strings.Contains(low, w) {
				return true
			}
		}
	}
	return false
}

// entropy returns the Shannon entropy of s's characters, in bits.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var ascii [128]int
	var other map[rune]int
	n := 0
	for _, c := range s {
		n++
		if c < utf8.RuneSelf {
			ascii[c]++
			continue
		}
		if other == nil {
			other = map[rune]int{}
		}
		other[c]++
	}
	e := 0.0
	add := func(count int) {
		if count > 0 {
			f := float64(count) / float64(n)
			e -= f * math.Log2(f)
		}
	}
	for _, count := range ascii {
		add(count)
	}
	for _, count := range other {
		add(count)
	}
	return e
}
