package recorder

import (
	"math"
	"math/bits"
	"regexp"
	"regexp/syntax"
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
	// near, when set, stands for regex: it appends the secrets it finds
	// about the keyword at s[at:end], which it reads in its context.
	near func(s string, at, end int, spans []span) []span
	// exact says the keywords are matched as written rather than in any
	// case.
	exact bool
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
// rule for, or one narrower than the format (a Databricks token in either
// case of hex, followed by anything but a letter or digit), or none that
// fires outside a file of a known kind.
var ownRules = [...]secretRule{
	{id: "docker-hub-token", keywords: []string{"dckr_pat_", "dckr_oat_"}, regex: `\bdckr_[op]at_[\w-]{27,}`},
	{id: "telegram-bot-token", keywords: []string{":aa"}, regex: `\d{8,10}:AA[\w-]{33}`},
	{id: "databricks-token", keywords: []string{"dapi"}, regex: `\b(dapi[a-fA-F0-9]{32}(?:-\d)?)(?:[^A-Za-z0-9]|$)`},
	{id: "tencent-secret-id", keywords: []string{"akid"}, regex: `\bAKID[A-Za-z0-9]{32}\b`},
	{id: "sshpass-password", keywords: []string{"sshpass"}, regex: `sshpass\s+-p\s*(?:'([^']+)'|"([^"]+)"|(\S+))`},
	{id: "netrc-password", keywords: []string{"machine"}, regex: `\bmachine\s+\S+(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+(\S+)`},
	{id: "pgpass-password", keywords: []string{":5432:", ":*:"}, regex: `(?m)^[^:\s]+:(?:\d+|\*):[^:\s]+:[^:\s]+:(\S+)$`},
	{id: "zapier-webhook", keywords: []string{"hooks.zapier.com"}, regex: `hooks\.zapier\.com/hooks/catch/(\d+/[A-Za-z0-9]+)`},
	{id: "teams-webhook", keywords: []string{"webhook.office.com", "outlook.office.com/webhook"}, regex: `(?:webhook\.office\.com/webhookb2|outlook\.office\.com/webhook)/([\w@./-]+)`},
	// Providers' documented token prefixes that gitleaks v8.30.1 has no
	// rule for.
	{id: "tailscale-key", keywords: []string{"tskey-"}, regex: `\btskey-[a-z]+-[A-Za-z0-9-]{20,}`, entropy: 3},
	{id: "fireworks-api-key", keywords: []string{"fw_"}, regex: `\bfw_[A-Za-z0-9]{24,}`, entropy: 3},
	{id: "tavily-api-key", keywords: []string{"tvly-"}, regex: `\btvly-(?:[a-z]+-)?[A-Za-z0-9]{24,}`, entropy: 3},
	{id: "firecrawl-api-key", keywords: []string{"fc-"}, regex: `\bfc-[a-f0-9]{32}\b`, entropy: 3},
	{id: "jina-api-key", keywords: []string{"jina_"}, regex: `\bjina_[A-Za-z0-9_]{40,}`, entropy: 3},
	{id: "neon-api-key", keywords: []string{"napi_"}, regex: `\bnapi_[a-z0-9]{64}\b`, entropy: 3},
	{id: "nvidia-api-key", keywords: []string{"nvapi-"}, regex: `\bnvapi-[\w-]{60,}`, entropy: 3},
	{id: "hubspot-private-app-token", keywords: []string{"pat-na", "pat-eu"}, regex: `\bpat-(?:na|eu)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`},
	{id: "buildkite-token", keywords: []string{"bkua_", "bkct_"}, regex: `\bbk(?:ua|ct)_[a-f0-9]{40}\b`, entropy: 3},
	{id: "deno-deploy-token", keywords: []string{"ddp_"}, regex: `\bddp_[A-Za-z0-9]{36}\b`, entropy: 3},
	{id: "twitch-oauth-token", keywords: []string{"oauth:"}, regex: `\boauth:[a-z0-9]{30}\b`, entropy: 3},
	{id: "posthog-personal-api-key", keywords: []string{"phx_"}, regex: `\bphx_[A-Za-z0-9]{43}\b`, entropy: 3},
	{id: "slack-session-cookie", keywords: []string{"xoxd-"}, regex: `\bxoxd-[A-Za-z0-9%/+=]{40,}`, entropy: 3},
	{id: "atlassian-api-token", keywords: []string{"atatt3xffgf0", "atctt3xffgn0"}, regex: `\bAT[AC]TT3xFfG[FN]0[\w=-]{40,}`, entropy: 3},
	{id: "google-oauth-access-token", keywords: []string{"ya29."}, regex: `\bya29\.[\w-]{30,}`, entropy: 3},
	{id: "google-oauth-client-secret", keywords: []string{"gocspx-"}, regex: `\bGOCSPX-[\w-]{28}`, entropy: 3},
	// An AWS session token, whose bytes start the same way wherever it
	// is printed.
	{id: "aws-session-token", keywords: []string{"iqojb3jpz2lux2vj"}, regex: `\bIQoJb3JpZ2luX2Vj[A-Za-z0-9+/=]{100,}`},
	// Vault's service, batch and recovery tokens of any length from 20
	// on: gitleaks wants 90 or more, and dev servers and older releases
	// hand out short ones.
	{id: "vault-token", keywords: []string{"hvs.", "hvb.", "hvr."}, regex: `\bhv[sbr]\.[\w-]{20,}`, entropy: 3},
	{id: "honeycomb-api-key", keywords: []string{"hcaik_", "hcxik_", "hcamk_", "hcxmk_"}, regex: `\bhc[ax][im]k_[a-z0-9]{50,}`, entropy: 3},
	// The private part of a PuTTY key file: the lines of base64 after
	// Private-Lines, ended by a newline or its escape in a JSON string.
	{id: "putty-private-key", keywords: []string{"private-lines:"}, regex: `Private-Lines: *\d+(?:\r?\n|(?:\\r)?\\n)((?:[A-Za-z0-9+/=]{4,}(?:\r?\n|(?:\\r)?\\n|$))+)`},
	// Credentials written as JSON and then in base64, as a Kubernetes
	// secret or a CI variable carries them: a Docker config's auths, a
	// service account's key, an object whose first key is a password, a
	// client secret or a private key. The bytes of the encoded JSON's
	// start say what it holds.
	{id: "base64-json-credentials", exact: true, keywords: base64CredentialStarts[:],
		regex: `\b(?:eyJhdXRocyI6|ewogICJhdXRocyI6|eyJjcmVkSGVscGVy|eyJ0eXBlIjogInNlcnZpY2VfYWNjb3Vu|eyJ0eXBlIjoic2VydmljZV9hY2NvdW50|ewogICJ0eXBlIjogInNlcnZpY2VfYWNjb3Vu|eyJwYXNzd29yZCI6|eyJjbGllbnRfc2VjcmV0|eyJwcml2YXRlX2tleSI6)[A-Za-z0-9+/]{16,}={0,2}`},
	{id: "braintree-access-token", keywords: []string{"n$production", "n$sandbox"}, regex: `\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}\b`},
}

// base64CredentialStarts are the keywords of the base64-json-credentials
// rule: the base64 of {"auths": and {\n  "auths": (a Docker config),
// {"credHelpers", {"type": "service_account" written three ways,
// {"password":, {"client_secret" and {"private_key":.
var base64CredentialStarts = [...]string{
	"eyJhdXRocyI6", "ewogICJhdXRocyI6", "eyJjcmVkSGVscGVy", "eyJ0eXBlIjogInNlcnZpY2VfYWNjb3Vu",
	"eyJ0eXBlIjoic2VydmljZV9hY2NvdW50", "ewogICJ0eXBlIjogInNlcnZpY2VfYWNjb3Vu", "eyJwYXNzd29yZCI6",
	"eyJjbGllbnRfc2VjcmV0", "eyJwcml2YXRlX2tleSI6",
}

// rules are gitleaks' rules, then the redactor's own and its context
// rules (redact_context.go).
var rules = slices.Concat(gitleaksRules[:], ownRules[:], contextRules[:])

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
	// words are the keywords, each in lower case unless exact says it is
	// written in one case only.
	words []string
	exact []bool
	rules [][]int
	// pairs holds, for two bytes read as a little-endian uint16, 1 + the
	// index in cands of the keywords those bytes may be part of, or 0.
	pairs [1 << 16]uint16
	cands [][]pairCand
	// next holds, for each entry of cands, a bit for each byte that may
	// come right after the pair in the keywords there.
	next [][4]uint64
}

// pairCand says that keyword kw may start back bytes before a pair of
// bytes. Its byte at probe, with fold set (0x20 for a letter of a
// keyword matched in any case), is want: a look at it drops most
// candidates before the keyword is compared.
type pairCand struct {
	kw          uint16
	back, probe int8
	want, fold  byte
	exact       bool
}

// newKeywordIndex indexes each keyword by two pairs of its bytes, one at
// an even offset in it and one at an odd offset, each the one of its
// kind least common in prose, code and JSON. A scan looks up the text's
// bytes two at a time at even offsets only: an occurrence of a keyword
// at an even offset in the text has all of its even pairs there, and one
// at an odd offset all of its odd ones. A keyword of two bytes is indexed
// by itself and by its second byte followed by any byte (or by none, at
// the text's end).
func newKeywordIndex() *keywordIndex {
	x := &keywordIndex{}
	seen := map[string]int{}
	for i := range rules {
		for _, w := range neededKeywords(&rules[i]) {
			k, ok := seen[w]
			if !ok {
				k = len(x.words)
				seen[w] = k
				x.words = append(x.words, w)
				x.rules = append(x.rules, nil)
			}
			x.rules[k] = append(x.rules[k], i)
		}
	}
	x.exact = make([]bool, len(x.words))
	for k, w := range x.words {
		if e := exactKeyword(w, x.rules[k]); e != "" {
			x.words[k], x.exact[k] = e, true
		}
		x.index(x.words[k], k)
	}
	return x
}

// neededKeywords returns the keywords of r less the words it can do
// without: a keyword of letters only is left out when every match of r's
// regexp holds one of the others, as every match of Cloudflare's key holds "v1.0-" and its
// keyword "cloudflare" adds nothing but common pairs of letters. A
// keyword left out changes no finding: a match still holds a keyword of
// r, and the window around that keyword holds the match.
func neededKeywords(r *secretRule) []string {
	re, err := syntax.Parse(r.regex, syntax.Perl)
	if err != nil {
		return r.keywords
	}
	sets := factorSets(re)
	kws := slices.Clone(r.keywords)
	for i := 0; i < len(kws); {
		if strings.Trim(kws[i], "abcdefghijklmnopqrstuvwxyz") != "" {
			i++ // not a word, so not common in text
			continue
		}
		others := slices.Delete(slices.Clone(kws), i, i+1)
		if slices.ContainsFunc(sets, func(set []string) bool { return eachHoldsOne(set, others) }) {
			kws = others
			continue
		}
		i++
	}
	return kws
}

// eachHoldsOne reports whether each text of set holds one of words, in
// any case.
func eachHoldsOne(set, words []string) bool {
	for _, t := range set {
		t = strings.ToLower(t)
		if !slices.ContainsFunc(words, func(w string) bool { return strings.Contains(t, w) }) {
			return false
		}
	}
	return len(set) > 0
}

// factorSets returns sets of texts such that every match of re holds a
// text of each set: the literal texts a match must hold, each run of them
// in a concatenation made into the texts it can spell.
func factorSets(re *syntax.Regexp) [][]string {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return factorSets(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return factorSets(re.Sub[0])
		}
	case syntax.OpConcat:
		var sets [][]string
		var run []string
		for _, sub := range re.Sub {
			if texts, ok := spelled(sub); ok && (run == nil || len(run)*len(texts) <= 64) {
				run = crossJoin(run, texts)
				continue
			}
			if run != nil {
				sets = append(sets, run)
				run = nil
			}
			sets = append(sets, factorSets(sub)...)
		}
		if run != nil {
			sets = append(sets, run)
		}
		return sets
	}
	if texts, ok := spelled(re); ok {
		return [][]string{texts}
	}
	return nil
}

// spelled returns the few texts re matches, when it matches only those.
func spelled(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}, true
	case syntax.OpCapture:
		return spelled(re.Sub[0])
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			texts, ok := spelled(sub)
			if !ok {
				return nil, false
			}
			out = append(out, texts...)
		}
		return out, true
	case syntax.OpConcat:
		var out []string
		for _, sub := range re.Sub {
			texts, ok := spelled(sub)
			if !ok || len(out)*len(texts) > 64 {
				return nil, false
			}
			out = crossJoin(out, texts)
		}
		return out, true
	}
	return nil, false
}

// crossJoin returns each text of a followed by each of b; a nil a is one
// empty text.
func crossJoin(a, b []string) []string {
	if a == nil {
		return b
	}
	var out []string
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// exactKeyword returns the keyword w as it must be written for any of the
// rules rs to match, when each of their regexps holds it in one case
// only, as gitleaks' rule for AWS keys holds "AKIA", or "" when one of
// them matches it in any case.
func exactKeyword(w string, rs []int) string {
	exact := ""
	for _, r := range rs {
		if rules[r].exact {
			if exact != "" && exact != w {
				return ""
			}
			exact = w
			continue
		}
		src := rules[r].regex
		i := indexLower(src, w)
		if i < 0 || strings.Contains(src[:i], "(?i") || strings.ContainsAny(src[i:i+len(w)], `\[]().|?*+{}`) {
			return ""
		}
		if v := src[i : i+len(w)]; exact == "" || exact == v {
			exact = v
		} else {
			return ""
		}
	}
	return exact
}

// indexLower is strings.Index of the lower-case low in s, in any case.
func indexLower(s, low string) int {
	for i := 0; i+len(low) <= len(s); i++ {
		if equalLower(s[i:i+len(low)], low) {
			return i
		}
	}
	return -1
}

func (x *keywordIndex) index(w string, k int) {
	if len(w) == 2 {
		x.add(w, k, 0, false)
		x.add(w, k, 1, true)
		return
	}
	for parity := range 2 {
		best, cost := parity, math.MaxInt
		for i := parity; i+1 < len(w); i += 2 {
			c := pairCost(w[i], w[i+1])
			if i+2 == len(w) && c < commonPairCost {
				// The last pair: no byte after it tells its hits apart.
				c *= 4
			}
			if c < cost {
				best, cost = i, c
			}
		}
		x.add(w, k, best, false)
	}
}

// add files keyword w, number k, under its pair of bytes at i, in every
// case of each, or under its byte at i followed by any byte when anyNext
// is set.
func (x *keywordIndex) add(w string, k, i int, anyNext bool) {
	c := pairCand{kw: uint16(k), back: int8(i), probe: int8(i), exact: x.exact[k]}
	cases := cases
	if c.exact {
		cases = func(c byte) []byte { return []byte{c} }
	}
	// The probe is the keyword's rarest byte outside the pair and the
	// byte after it (which next tells), if any.
	for j := range len(w) {
		if (j < i || j > i+2) && (int(c.probe) == i || byteCost(w[j]) < byteCost(w[c.probe])) {
			c.probe = int8(j)
		}
	}
	var next [4]uint64
	for b := range 256 {
		if i+2 >= len(w) || lower(byte(b)) == lower(w[i+2]) && (!c.exact || byte(b) == w[i+2]) {
			next[b>>6] |= 1 << (b & 63)
		}
	}
	c.want = w[c.probe]
	if !c.exact && isAlpha(c.want) {
		c.want, c.fold = lower(c.want), 0x20
	}
	for _, a := range cases(w[i]) {
		if anyNext {
			for b := range 256 {
				x.file(uint16(a)|uint16(b)<<8, c, next)
			}
			continue
		}
		for _, b := range cases(w[i+1]) {
			x.file(uint16(a)|uint16(b)<<8, c, next)
		}
	}
}

func (x *keywordIndex) file(pair uint16, c pairCand, next [4]uint64) {
	if x.pairs[pair] == 0 {
		x.cands = append(x.cands, nil)
		x.next = append(x.next, [4]uint64{})
		x.pairs[pair] = uint16(len(x.cands))
	}
	i := x.pairs[pair] - 1
	x.cands[i] = append(x.cands[i], c)
	for j := range next {
		x.next[i][j] |= next[j]
	}
}

// cases returns c in both cases when it is a letter.
func cases(c byte) []byte {
	if c >= 'a' && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// pairCost is how often the two bytes a and b may be expected next to
// each other in text, roughly: the 150 commonest pairs of letters in
// English cost most, in their order, and other pairs the product of
// their bytes' frequencies, digits and the punctuation of code counted as
// common letters.
func pairCost(a, b byte) int {
	if i := strings.Index(commonPairs, string([]byte{lower(a), lower(b), ' '})); i >= 0 && i%3 == 0 {
		return commonPairCost + len(commonPairs) - i
	}
	if isAlpha(a) && isAlpha(b) {
		return 4 * byteCost(a) * byteCost(b)
	}
	return byteCost(a) * byteCost(b)
}

// commonPairCost is the least a pair of commonPairs costs.
const commonPairCost = 10000 - len(commonPairs)

// commonPairs are the commonest pairs of letters in English text, the
// commonest first.
const commonPairs = "th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co " +
	"me de hi ri ro ic ne ea ra ce li ch ll be ma si om ur ca el ta la ns di fo ho pe ec pr no ct us ac ot il tr ly " +
	"nc et ut ss so rs un lo wa ge ie wh ee wi em ad ol rt po we na ul ni ts mo ow pa im mi ai sh ir su id os iv ia " +
	"am fi ci vi pl ig tu ev ld ry mp fe bl ab gh ty op wo sa ay ex ke fr oo av ag if ap gr od bo sp rd do uc bu ei "

func byteCost(c byte) int {
	const freq = "zqjxkvbpygfwmucldrhsnioate" // rarest first
	if i := strings.IndexByte(freq, c); i >= 0 {
		return i + 1
	}
	switch {
	case c == '_':
		return 8
	case c >= '0' && c <= '9', c == '-', c == '.':
		return 14
	case c == ' ', c == '"':
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
				found = x.check(s, p+2*j, c, found, false)
			}
		}
	}
	return x.scanTail(s, p, found, false)
}

// scanTail is scan of the bytes from p on, fewer than sixteen, two at a
// time. With first set it stops at the first keyword.
func (x *keywordIndex) scanTail(s string, p int, found []keywordAt, first bool) []keywordAt {
	for ; p < len(s); p += 2 {
		pair := uint16(s[p])
		if p+1 < len(s) {
			pair |= uint16(s[p+1]) << 8
		}
		if c := x.pairs[pair]; c != 0 {
			if found = x.check(s, p, c, found, first); first && len(found) > 0 {
				return found
			}
		}
	}
	return found
}

// inPairs reports whether a keyword is about one of the pairs of bytes
// of s at p+2j for each lookup j of a block whose keywordBit is set in
// m, which the pre-scan's table says may be part of one. The byte after
// the pair must be one that comes after it in one of its keywords, and
// then a candidate's probe byte and whole keyword must match. A block
// with a byte after it is read through a window of 17 bytes, which
// needs no bounds checks.
func (x *keywordIndex) inPairs(s string, p int, m uint64) bool {
	if p+17 > len(s) {
		return x.inPairsAtEnd(s, p, m)
	}
	w := s[p : p+17]
	for ; m != 0; m &= m - 1 {
		i := 2 * (bits.TrailingZeros64(m) >> 3 & 7)
		c := x.pairs[uint16(w[i])|uint16(w[i+1])<<8] - 1
		if b := w[i+2]; x.next[c][b>>6]&(1<<(b&63)) == 0 {
			continue
		}
		for _, cand := range x.cands[c] {
			q := p + i - int(cand.back)
			if j := q + int(cand.probe); uint(j) < uint(len(s)) && s[j]|cand.fold == cand.want && x.holds(s, q, cand) {
				return true
			}
		}
	}
	return false
}

// inPairsAtEnd is inPairs for the text's last block, whose last pair may
// have no byte after it.
func (x *keywordIndex) inPairsAtEnd(s string, p int, m uint64) bool {
	for ; m != 0; m &= m - 1 {
		i := p + 2*(bits.TrailingZeros64(m)>>3)
		c := x.pairs[uint16(s[i])|uint16(s[i+1])<<8] - 1
		if i+2 < len(s) {
			if b := s[i+2]; x.next[c][b>>6]&(1<<(b&63)) == 0 {
				continue
			}
		}
		if x.candidateAt(s, i, c) {
			return true
		}
	}
	return false
}

// candidateAt reports whether s holds, about the pair at i, a keyword of
// candidates c: its probe byte first, then the whole keyword.
func (x *keywordIndex) candidateAt(s string, i int, c uint16) bool {
	for _, cand := range x.cands[c] {
		q := i - int(cand.back)
		if j := q + int(cand.probe); uint(j) < uint(len(s)) && s[j]|cand.fold == cand.want && x.holds(s, q, cand) {
			return true
		}
	}
	return false
}

// check appends the keywords of candidates c that s holds about the pair
// at p; with first set, only the first.
func (x *keywordIndex) check(s string, p int, c uint16, found []keywordAt, first bool) []keywordAt {
	for _, cand := range x.cands[c-1] {
		q := p - int(cand.back)
		if x.holds(s, q, cand) {
			found = append(found, keywordAt{int(cand.kw), q})
			if first {
				return found
			}
		}
	}
	return found
}

// holds reports whether s holds the keyword of cand at q.
func (x *keywordIndex) holds(s string, q int, cand pairCand) bool {
	w := x.words[cand.kw]
	if q < 0 || q+len(w) > len(s) {
		return false
	}
	if s[q+int(cand.probe)]|cand.fold != cand.want {
		return false
	}
	if cand.exact {
		return s[q:q+len(w)] == w
	}
	return equalLower(s[q:q+len(w)], w)
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
		text := string(low)
		if x.exact[k] {
			text = s
		}
		for i := 0; ; {
			j := strings.Index(text[i:], w)
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
// s find about them, and the value of the X- header that starts s, if any
// (customHeaderAt), whose name no keyword's byte comes before.
func ruleSpans(s string, found []keywordAt, spans []span) []span {
	spans = firstHeaderSpans(s, spans)
	if len(found) == 0 {
		return spans
	}
	type window struct{ rule, start, end int }
	var ws []window
	for _, f := range found {
		kwEnd := f.at + len(ruleKeywords.words[f.kw])
		start := max(0, f.at-windowBefore)
		end := min(len(s), kwEnd+windowAfter)
		for _, r := range ruleKeywords.rules[f.kw] {
			if near := rules[r].near; near != nil {
				spans = near(s, f.at, kwEnd, spans)
				continue
			}
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
