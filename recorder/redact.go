package recorder

import (
	"encoding/json"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/cloudwego/eino/schema"
)

// Redacted replaces a secret in redacted text.
const Redacted = "[REDACTED]"

// Redactor rewrites free text before any sink sees it. The recorder calls
// it on every free-text field of a record: tool arguments and results,
// error text, message content, reasoning and tool-call arguments, message
// text and reasoning parts, assessment markdown, run metadata values and
// extension bodies. It must return s itself when there is nothing to change, and be
// safe for concurrent use.
type Redactor interface {
	Redact(s string) string
}

// RedactFunc adapts a function to a Redactor. It is as safe for
// concurrent use as the function is.
type RedactFunc func(s string) string

// Redact returns f(s).
func (f RedactFunc) Redact(s string) string { return f(s) }

// Secrets returns the built-in redactor, which a Recorder applies unless
// Options.KeepSecrets is set. It replaces with Redacted:
//
//   - OpenAI-style keys: sk-… (16 or more key characters after "sk-");
//   - bearer tokens: the token after "Bearer " (8 or more characters);
//   - AWS access key ids: AKIA… and ASIA… (20 characters);
//   - GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ and github_pat_ tokens;
//   - Stripe keys: sk_live_, sk_test_, rk_live_ and rk_test_ keys;
//   - Slack tokens: xoxa-, xoxb-, xoxe-, xoxp-, xoxr- and xoxs- tokens;
//   - GitLab personal access tokens: glpat-…;
//   - Google API keys: AIza… (35 or more key characters after "AIza");
//   - Hugging Face tokens (hf_…), npm tokens (npm_…), SendGrid keys
//     (SG.….…), Twilio API key ids (SK and 32 hex digits) and Databricks
//     tokens (dapi and 32 hex digits);
//   - JSON Web Tokens, eyJ….ey….…, wherever they are, as in a cookie;
//   - the secret path of a Slack or Discord webhook URL;
//   - the password of curl's -u and --user user:password, of mysql's
//     -pPASSWORD, and the value of a --flag value whose flag name is a
//     sensitive key (below), as in --password PASS, unless it starts with
//     '$';
//   - the body of a PEM private key block, from its "-----BEGIN … PRIVATE
//     KEY-----" line to its "-----END" line (or to the end of the text or
//     of the JSON string it is in, when that comes first);
//   - the password in a URL's user information: scheme://user:password@host;
//   - the value of key/value pairs whose key ends in password, passwd,
//     secret, token, api_key, apikey, api-key, access_key, accesskey,
//     private_key, secret_key, secretkey, secret-key, accountkey,
//     account_key, secret_key_base or authorization (any case), or that
//     is auth or ends in _auth or -auth,
//     written as key=value, key: value, "key": "value", key := "value",
//     "key" => "value" or with escaped quotes inside a JSON string. A
//     quoted key needs a quoted value, so JSON numbers, booleans and nulls
//     are left alone; so is an unquoted value after "=>", as in the code
//     token => token.trim(), and a comparison such as token == x is no
//     pair. An authorization value keeps its scheme ("Basic [REDACTED]").
//     A pair written inside a JSON string value ("Enter password: x") ends
//     where that string does, and one whose value there is empty is left
//     alone, so JSON text stays valid and the fields after it stay as they
//     are.
//
// Text holding none of these is returned unchanged without allocating,
// after a single pass over its bytes. The returned Redactor is safe for
// concurrent use.
func Secrets() Redactor { return RedactFunc(redactSecrets) }

type span struct{ start, end int }

// minSecretText is the length of the shortest text any shape matches:
// the key "auth", a separator and one byte of value.
const minSecretText = 6

func redactSecrets(s string) string {
	if len(s) < minSecretText {
		return s
	}
	from := firstSecret(s)
	if from < 0 {
		return s
	}
	var buf [8]span
	return replaceSpans(s, secretSpans(s, from, buf[:0]))
}

// secretSpans appends what every finder finds in s, one pass each,
// looking at anchors from index from on. It is the full detector;
// firstSecret tells where it needs to start, if at all.
func secretSpans(s string, from int, spans []span) []span {
	spans = findAll(s, from, spans, "-", dashSecretAt)
	spans = findAll(s, from, spans, "_", underscoreSecretAt)
	spans = findAll(s, from, spans, "AKIA", awsKeyAt)
	spans = findAll(s, from, spans, "ASIA", awsKeyAt)
	spans = findAll(s, from, spans, "AIza", googleKeyAt)
	spans = findAll(s, from, spans, "Bearer", bearerAt)
	spans = findAll(s, from, spans, "bearer", bearerAt)
	spans = findAll(s, from, spans, "BEARER", bearerAt)
	spans = findAll(s, from, spans, "SG.", sKeyAt)
	spans = findAll(s, from, spans, "SK", sKeyAt)
	spans = findAll(s, from, spans, "J", jwtAt)
	spans = findAll(s, from, spans, "dapi", databricksTokenAt)
	spans = findAll(s, from, spans, "@", userinfoAt)
	spans = findAll(s, from, spans, ":", colonSecretAt)
	spans = findAll(s, from, spans, "=", pairAt)
	return spans
}

// findAll appends what the matcher at finds at each occurrence of anchor
// in s from index from on. After a match the search goes on from its end,
// or from the byte after the anchor when the match ends before it (a URL's
// password ends at its '@'), otherwise from the byte after the anchor.
func findAll(s string, from int, spans []span, anchor string, at func(s string, p int) (span, bool)) []span {
	for i := from; ; {
		j := strings.Index(s[i:], anchor)
		if j < 0 {
			return spans
		}
		p := i + j
		i = p + 1
		if m, ok := at(s, p); ok {
			spans = append(spans, m)
			i = max(m.end, i)
		}
	}
}

// Anchors are the bytes a secret shape is found from: each finder looks
// for its anchor and then asks its matcher whether a secret is there.
const (
	anchorNone   = iota
	anchorDash   // the '-' of "sk-", "xoxb-" or "glpat-", or the last of "-----BEGIN"
	anchorUnder  // the '_' of "ghp_", "github_pat_" or "sk_live_"
	anchorAWS    // the 'A' of "AKIA", "ASIA" or "AIza"
	anchorBearer // the 'B' or 'b' of "Bearer", "bearer" or "BEARER"
	anchorAt     // the '@' after a URL's user information
	anchorPair   // the ':' or '=' of a key/value pair, or the ':' of a webhook URL
	anchorS      // the 'S' of a SendGrid key (SG.…) or a Twilio API key (SK…)
	anchorJ      // the 'J' of a JWT's "eyJ"
	anchorD      // the 'd' of a Databricks token (dapi…)
)

var anchors = [256]uint8{
	'-': anchorDash,
	'_': anchorUnder,
	'A': anchorAWS,
	'B': anchorBearer,
	'b': anchorBearer,
	'@': anchorAt,
	':': anchorPair,
	'=': anchorPair,
	'S': anchorS,
	'J': anchorJ,
	'd': anchorD,
}

// firstSecret returns the first anchor in s at which secretSpans finds a
// secret, or -1 when it would find none. It makes one pass over s and
// runs the same matchers as the finders at the same anchors, so its answer
// is exact: a finder only moves past an anchor whose matcher failed, or
// past a match. Since no finder matches at an earlier anchor, the finders
// can start at the one returned and find what they would find from 0.
func firstSecret(s string) int {
	p := 0
	for ; p+8 <= len(s); p += 8 {
		// Eight bytes at a time: a bit for each anchor among them, built
		// without branches, and then a matcher call for each set bit
		// only. Slicing the window first drops the bounds checks.
		w := s[p : p+8]
		m := uint(isAnchor[w[0]]) | uint(isAnchor[w[1]])<<1 | uint(isAnchor[w[2]])<<2 | uint(isAnchor[w[3]])<<3 |
			uint(isAnchor[w[4]])<<4 | uint(isAnchor[w[5]])<<5 | uint(isAnchor[w[6]])<<6 | uint(isAnchor[w[7]])<<7
		for ; m != 0; m &= m - 1 {
			if i := p + bits.TrailingZeros(m); secretAt(s, i) {
				return i
			}
		}
	}
	for ; p < len(s); p++ {
		if isAnchor[s[p]] != 0 && secretAt(s, p) {
			return p
		}
	}
	return -1
}

// isAnchor is 1 for the bytes anchors names and 0 for the others.
var isAnchor = func() (t [256]uint8) {
	for c, a := range anchors {
		if a != anchorNone {
			t[c] = 1
		}
	}
	return t
}()

// secretAt runs the matcher for the anchor at p, after a cheap look at the
// bytes next to it that every match needs.
func secretAt(s string, p int) bool {
	return anchorMatchers[anchors[s[p]]](s, p)
}

// anchorMatchers holds, for each anchor, whether a secret is found at a
// byte of it.
var anchorMatchers = [...]func(s string, p int) bool{
	anchorNone:   func(string, int) bool { return false },
	anchorDash:   dashSecretHere,
	anchorUnder:  underscoreSecretHere,
	anchorAWS:    keyIDHere,
	anchorBearer: bearerHere,
	anchorAt:     userinfoHere,
	anchorPair:   pairOrWebhookHere,
	anchorS:      sKeyHere,
	anchorJ:      jwtHere,
	anchorD:      databricksHere,
}

// userinfoHere reports whether userinfoAt matches at the '@' at p.
func userinfoHere(s string, p int) bool {
	_, ok := userinfoAt(s, p)
	return ok
}

// pairOrWebhookHere reports whether a sensitive pair's value follows the
// ':' or '=' at p, or a webhook URL's secret path follows the ':' at p.
func pairOrWebhookHere(s string, p int) bool {
	return pairHere(s, p) || s[p] == ':' && webhookHere(s, p)
}

// sKeyHere reports whether sKeyAt matches at the 'S' at p.
func sKeyHere(s string, p int) bool {
	_, ok := sKeyAt(s, p)
	return ok
}

// jwtHere reports whether jwtAt matches at the 'J' at p.
func jwtHere(s string, p int) bool {
	_, ok := jwtAt(s, p)
	return ok
}

// databricksHere reports whether databricksTokenAt matches at the 'd' at
// p. 'd' is common: it looks at the next byte before calling.
func databricksHere(s string, p int) bool {
	if p+1 >= len(s) || s[p+1] != 'a' {
		return false
	}
	_, ok := databricksTokenAt(s, p)
	return ok
}

// webhookHere reports whether webhookAt matches at the ':' at p, which
// must start "://".
func webhookHere(s string, p int) bool {
	if len(s)-p < len("://x") || s[p+1] != '/' {
		return false
	}
	_, ok := webhookAt(s, p)
	return ok
}

// dashSecretHere reports whether dashSecretAt matches at the '-' at p,
// which must follow "sk", "xox" and a letter, "glpat", "----", "--" or a
// blank.
func dashSecretHere(s string, p int) bool {
	if p < 2 || !mayPrecedeDash[s[p-1]] {
		return false
	}
	_, ok := dashSecretAt(s, p)
	return ok
}

// mayPrecedeDash holds the bytes that come before the '-' of a secret:
// the last byte of "sk", of "xox" and a Slack token letter, of "glpat", of
// "-----BEGIN" or of the "--" of a long flag, or the blank before a short
// flag.
var mayPrecedeDash = [256]bool{
	'k': true, 't': true, '-': true, ' ': true,
	'a': true, 'b': true, 'e': true, 'p': true, 'r': true, 's': true,
}

// underscoreSecretHere reports whether underscoreSecretAt matches at the
// '_' at p, which must follow "gh" and a letter, "github", "sk", "rk",
// "hf" or "npm".
func underscoreSecretHere(s string, p int) bool {
	if p < 2 || s[p-2] != 'h' && s[p-1] != 'b' && s[p-1] != 'k' && s[p-1] != 'm' {
		return false
	}
	_, ok := underscoreSecretAt(s, p)
	return ok
}

// keyIDHere reports whether an AWS access key id or a Google API key,
// each at least 20 bytes long, starts at the 'A' at p. The third byte
// tells AKIA and ASIA from AIza.
func keyIDHere(s string, p int) bool {
	if len(s)-p < 20 {
		return false
	}
	var ok bool
	switch {
	case s[p+2] == 'I':
		_, ok = awsKeyAt(s, p)
	case s[p+1] == 'I':
		_, ok = googleKeyAt(s, p)
	}
	return ok
}

// bearerHere reports whether bearerAt matches at p, which needs room for
// "Bearer" and one byte more, and an 'e' (in any case) after its first.
func bearerHere(s string, p int) bool {
	if len(s)-p < len("Bearer")+1 || s[p+1]|0x20 != 'e' {
		return false
	}
	_, ok := bearerAt(s, p)
	return ok
}

// pairHere reports whether pairAt matches at the separator at p, which
// must follow a key whose last letter a sensitive key could end in.
func pairHere(s string, p int) bool {
	if k, _ := keyEnd(s, p); k == 0 || !sensitiveEnd(s, k) {
		return false
	}
	_, ok := pairAt(s, p)
	return ok
}

func replaceSpans(s string, spans []span) string {
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		// Overlapping or touching matches collapse into one marker.
		for i++; i < len(spans) && spans[i].start <= end; i++ {
			end = max(end, spans[i].end)
		}
		b.WriteString(s[at:start])
		b.WriteString(Redacted)
		at = end
	}
	b.WriteString(s[at:])
	return b.String()
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isUpperAlnum(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

// isKeyByte reports characters that make up API keys and identifiers.
func isKeyByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

func isPatByte(c byte) bool { return isAlnum(c) || c == '_' }

// boundaryBefore reports whether position i starts a word.
func boundaryBefore(s string, i int) bool { return i == 0 || !isKeyByte(s[i-1]) }

// runEnd returns the end of the run of bytes starting at i that satisfy ok.
func runEnd(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

// dashSecretAt matches a secret with a '-' at p: an sk-… key, a Slack or
// GitLab token, or the body of a private key block.
func dashSecretAt(s string, p int) (span, bool) {
	if p < 2 {
		return span{}, false
	}
	switch s[p-1] {
	case 'k':
		return openAIKeyAt(s, p)
	case 't':
		return gitLabTokenAt(s, p)
	case '-':
		if m, ok := privateKeyAt(s, p); ok {
			return m, ok
		}
		return longFlagAt(s, p)
	case ' ':
		return shortFlagAt(s, p)
	}
	return slackTokenAt(s, p)
}

// openAIKeyAt matches an sk-… key whose '-' is at p.
func openAIKeyAt(s string, p int) (span, bool) {
	return prefixedKeyAt(s, p, "sk", isKeyByte, 16)
}

// prefixedKeyAt matches a key whose prefix, which ends with the byte
// before p, starts at a boundary, and whose body after the byte at p is a
// run of at least n ok bytes.
func prefixedKeyAt(s string, p int, prefix string, ok func(byte) bool, n int) (span, bool) {
	if !prefixBefore(s, p, prefix) {
		return span{}, false
	}
	return keyOfAtLeast(s, p-len(prefix), p+1, ok, n)
}

// prefixBefore reports whether prefix ends at p and starts at a boundary.
func prefixBefore(s string, p int, prefix string) bool {
	start := p - len(prefix)
	return start >= 0 && s[start:p] == prefix && boundaryBefore(s, start)
}

// slackTokenAt matches a Slack token (xoxb-…) whose first '-' is at p.
func slackTokenAt(s string, p int) (span, bool) {
	if p < 4 || s[p-4:p-1] != "xox" || strings.IndexByte("abeprs", s[p-1]) < 0 || !boundaryBefore(s, p-4) {
		return span{}, false
	}
	return keyOfAtLeast(s, p-4, p+1, isSlackByte, 10)
}

func isSlackByte(c byte) bool { return isAlnum(c) || c == '-' }

// gitLabTokenAt matches a GitLab personal access token (glpat-…) whose
// '-' is at p.
func gitLabTokenAt(s string, p int) (span, bool) {
	return prefixedKeyAt(s, p, "glpat", isKeyByte, 20)
}

// privateKeyAt matches the body of a PEM private key block whose
// "-----BEGIN" has its last '-' at p: from the end of that line's
// "-----" to the "-----END" line, or to the end of s or of the JSON
// string the block is in. The lines that frame it stay.
func privateKeyAt(s string, p int) (span, bool) {
	const begin = "-----BEGIN "
	if p < 4 || !strings.HasPrefix(s[p-4:], begin) {
		return span{}, false
	}
	label := p - 4 + len(begin)
	i := runEnd(s, label, isPEMLabelByte)
	if !strings.Contains(s[label:i], "PRIVATE KEY") || !strings.HasPrefix(s[i:], "-----") {
		return span{}, false
	}
	start := i + len("-----")
	end := pemBodyEnd(s, start)
	if end == start || s[start:end] == Redacted {
		return span{}, false
	}
	return span{start, end}, true
}

// pemBodyEnd returns where the body of a private key block that starts at
// i ends: at the "-----END" line, at the '"' that ends the JSON string the
// block is in, or at len(s). Escape sequences are skipped whole, so an
// escaped quote inside the body does not end it.
func pemBodyEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c == '"' || c == '-' && strings.HasPrefix(s[i:], "-----END") {
			return i
		}
		if c == '\\' {
			i++
		}
		i++
	}
	return len(s)
}

func isPEMLabelByte(c byte) bool { return isUpperAlnum(c) || c == ' ' }

// underscoreSecretAt matches a secret with a '_' at p: a GitHub token or
// a Stripe, Hugging Face (hf_…) or npm (npm_…) token.
func underscoreSecretAt(s string, p int) (span, bool) {
	if p < 2 {
		return span{}, false
	}
	switch s[p-1] {
	case 'k':
		return stripeKeyAt(s, p)
	case 'f':
		return prefixedKeyAt(s, p, "hf", isAlpha, 30)
	case 'm':
		return prefixedKeyAt(s, p, "npm", isAlnum, 36)
	}
	return gitHubTokenAt(s, p)
}

// stripeKeyAt matches a Stripe secret or restricted key (sk_live_…,
// rk_test_…) whose first '_' is at p.
func stripeKeyAt(s string, p int) (span, bool) {
	if s[p-2] != 's' && s[p-2] != 'r' || !boundaryBefore(s, p-2) {
		return span{}, false
	}
	if !strings.HasPrefix(s[p:], "_live_") && !strings.HasPrefix(s[p:], "_test_") {
		return span{}, false
	}
	key := p + len("_live_")
	return keyOfAtLeast(s, p-2, key, isAlnum, 16)
}

// gitHubTokenAt matches a GitHub token whose first '_' is at p.
func gitHubTokenAt(s string, p int) (span, bool) {
	switch {
	case prefixBefore(s, p-1, "gh") && strings.IndexByte("pousr", s[p-1]) >= 0:
		return keyOfAtLeast(s, p-3, p+1, isAlnum, 20)
	case strings.HasPrefix(s[p:], "_pat_") && prefixBefore(s, p, "github"):
		return keyOfAtLeast(s, p-6, p+5, isPatByte, 20)
	}
	return span{}, false
}

// keyOfAtLeast matches a key from start whose prefix ends at body, when
// the run of ok bytes from body is at least n long.
func keyOfAtLeast(s string, start, body int, ok func(byte) bool, n int) (span, bool) {
	end := runEnd(s, body, ok)
	if end-body < n {
		return span{}, false
	}
	return span{start, end}, true
}

// awsKeyAt matches an AWS access key id (AKIA… or ASIA…) starting at p.
func awsKeyAt(s string, p int) (span, bool) {
	end := p + 20
	if end > len(s) {
		return span{}, false
	}
	switch s[p : p+4] {
	case "AKIA", "ASIA":
	default:
		return span{}, false
	}
	if !boundaryBefore(s, p) || runEnd(s, p+4, isUpperAlnum) < end || (end < len(s) && isAlnum(s[end])) {
		return span{}, false
	}
	return span{p, end}, true
}

// googleKeyAt matches a Google API key (AIza…) starting at p.
func googleKeyAt(s string, p int) (span, bool) {
	if !strings.HasPrefix(s[p:], "AIza") || !boundaryBefore(s, p) {
		return span{}, false
	}
	return keyOfAtLeast(s, p, p+4, isKeyByte, 35)
}

// sKeyAt matches a SendGrid API key (SG.….…) or a Twilio API key id (SK
// and 32 hex digits) starting at the 'S' at p.
func sKeyAt(s string, p int) (span, bool) {
	if len(s)-p < 34 || !boundaryBefore(s, p) {
		return span{}, false
	}
	switch s[p+1] {
	case 'G':
		return sendGridKeyAt(s, p)
	case 'K':
		return hexKeyAt(s, p, p+2, 32)
	}
	return span{}, false
}

// sendGridKeyAt matches SG., a key id, '.' and a secret starting at p.
func sendGridKeyAt(s string, p int) (span, bool) {
	if s[p+2] != '.' {
		return span{}, false
	}
	dot := runEnd(s, p+3, isKeyByte)
	if dot-(p+3) < 16 || dot >= len(s) || s[dot] != '.' {
		return span{}, false
	}
	return keyOfAtLeast(s, p, dot+1, isKeyByte, 32)
}

// hexKeyAt matches a key from start whose prefix ends at body and whose
// body is exactly n hexadecimal digits, followed by no letter or digit.
func hexKeyAt(s string, start, body, n int) (span, bool) {
	end := runEnd(s, body, isHex)
	if end-body != n || end < len(s) && isAlnum(s[end]) {
		return span{}, false
	}
	return span{start, end}, true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// databricksTokenAt matches a Databricks token (dapi and 32 hex digits,
// perhaps with a "-1" suffix) starting at the 'd' at p.
func databricksTokenAt(s string, p int) (span, bool) {
	if !strings.HasPrefix(s[p:], "dapi") || !boundaryBefore(s, p) {
		return span{}, false
	}
	m, ok := hexKeyAt(s, p, p+4, 32)
	if ok && versionSuffixAt(s, m.end) {
		m.end += 2
	}
	return m, ok
}

// versionSuffixAt reports whether a '-' and a digit, as in "-1", are at i.
func versionSuffixAt(s string, i int) bool {
	return i+1 < len(s) && s[i] == '-' && s[i+1] >= '0' && s[i+1] <= '9'
}

// jwtAt matches a JSON Web Token, eyJ….ey….…, whose first 'J' is at p:
// a JSON header, a '.', a payload and a '.' with an optional signature.
// It needs no key or scheme before it, so a bare token in a cookie or
// a JSON field is caught too.
func jwtAt(s string, p int) (span, bool) {
	start := p - 2
	if !prefixBefore(s, p, "ey") {
		return span{}, false
	}
	dot := runEnd(s, p+1, isB64URLByte)
	if dot-start < 12 || !strings.HasPrefix(s[dot:], ".ey") {
		return span{}, false
	}
	dot2 := runEnd(s, dot+1, isB64URLByte)
	if dot2-dot < 12 || !strings.HasPrefix(s[dot2:], ".") {
		return span{}, false
	}
	return span{start, runEnd(s, dot2+1, isB64URLByte)}, true
}

func isB64URLByte(c byte) bool { return isKeyByte(c) }

// colonSecretAt matches at a ':' the value of a sensitive pair or the
// secret path of a webhook URL.
func colonSecretAt(s string, p int) (span, bool) {
	if m, ok := pairAt(s, p); ok {
		return m, ok
	}
	return webhookAt(s, p)
}

// webhookHosts are the URL prefixes, after "://", whose rest is a secret.
var webhookHosts = [...]string{
	"hooks.slack.com/services/",
	"hooks.slack.com/workflows/",
	"discord.com/api/webhooks/",
	"discordapp.com/api/webhooks/",
}

// webhookAt matches the secret path of a Slack or Discord webhook URL
// whose "://" starts at p.
func webhookAt(s string, p int) (span, bool) {
	if !strings.HasPrefix(s[p:], "://") {
		return span{}, false
	}
	for _, h := range webhookHosts {
		if strings.HasPrefix(s[p+3:], h) {
			v := p + 3 + len(h)
			return keyOfAtLeast(s, v, v, isWebhookByte, 20)
		}
	}
	return span{}, false
}

func isWebhookByte(c byte) bool { return isKeyByte(c) || c == '/' }

// longFlagAt matches the value of a command-line flag such as
// --password PASS or --token "TOK", whose second '-' is at p, and the
// password of curl's --user user:password. A value that starts with '$'
// names a variable and is left alone. The --flag=value form is a pair.
func longFlagAt(s string, p int) (span, bool) {
	if p < 2 || !isArgSpace(s[p-2]) {
		return span{}, false
	}
	n := runEnd(s, p+1, isKeyByte)
	if n >= len(s) || s[n] != ' ' {
		return span{}, false
	}
	switch name := s[p+1 : n]; {
	case name == "user":
		return curlPasswordAt(s, p, n)
	case sensitiveKey(name):
		return flagValueAt(s, runEnd(s, n, isBlank))
	}
	return span{}, false
}

// shortFlagAt matches curl's -u user:password and mysql's -pPASSWORD,
// whose '-' is at p.
func shortFlagAt(s string, p int) (span, bool) {
	if len(s)-p < 4 {
		return span{}, false
	}
	switch s[p+1] {
	case 'u':
		if s[p+2] == ' ' {
			return curlPasswordAt(s, p, p+2)
		}
	case 'p':
		if s[p+2] != '-' && (onLine(s, p, "mysql") || onLine(s, p, "mariadb")) {
			return flagValueAt(s, p+2)
		}
	}
	return span{}, false
}

// curlPasswordAt matches the password of the user:password argument that
// follows a curl flag at p after blanks from i.
func curlPasswordAt(s string, p, i int) (span, bool) {
	if !onLine(s, p, "curl") {
		return span{}, false
	}
	v := runEnd(s, i, isBlank)
	if v < len(s) && (s[v] == '"' || s[v] == '\'') {
		v++
	}
	end := runEnd(s, v, isArgByte)
	colon := strings.IndexByte(s[v:end], ':')
	if colon < 0 || v+colon+1 == end || strings.HasPrefix(s[v+colon+1:], Redacted) {
		return span{}, false
	}
	return span{v + colon + 1, end}, true
}

// flagValueAt matches a command-line value starting at v: quoted, or up
// to the next blank or quote.
func flagValueAt(s string, v int) (span, bool) {
	if v >= len(s) {
		return span{}, false
	}
	var end int
	switch q := s[v]; q {
	case '"', '\'':
		v++
		end = quotedValueEnd(s, v, q)
	default:
		end = runEnd(s, v, isArgByte)
	}
	if end == v || s[v] == '$' || strings.HasPrefix(s[v:], Redacted) {
		return span{}, false
	}
	return span{v, end}, true
}

// isArgByte reports the bytes of an unquoted command-line argument.
func isArgByte(c byte) bool { return c > ' ' && c != '"' && c != '\'' && c != '\\' }

func isArgSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// onLine reports whether the line that holds p names cmd before p.
func onLine(s string, p int, cmd string) bool {
	return strings.Contains(s[strings.LastIndexByte(s[:p], '\n')+1:p], cmd)
}

// userinfoAt matches the password of a URL's user information,
// scheme://user:password@host, whose '@' is at p. The user may be empty.
func userinfoAt(s string, p int) (span, bool) {
	a := userinfoStart(s, p)
	if a < 4 || s[a-3:a] != "://" || !isAlnum(s[a-4]) {
		return span{}, false
	}
	colon := strings.IndexByte(s[a:p], ':')
	if colon < 0 {
		return span{}, false
	}
	v := a + colon + 1
	if v == p {
		return span{}, false
	}
	return span{v, p}, true
}

// userinfoStart walks back from the '@' at p over the user information
// before it.
func userinfoStart(s string, p int) int {
	a := p
	for a > 0 && isUserinfoByte(s[a-1]) {
		a--
	}
	return a
}

// isUserinfoByte reports the characters RFC 3986 allows in a URL's user
// information: unreserved, percent-encoded, sub-delimiters and ':'.
func isUserinfoByte(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-._~%!$&'()*+,;=:", c) >= 0
}

func isTokenByte(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-._~+/=", c) >= 0
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// bearerAt matches the token after "Bearer", "bearer" or "BEARER" starting
// at p.
func bearerAt(s string, p int) (span, bool) {
	if len(s)-p < len("Bearer") {
		return span{}, false
	}
	switch s[p : p+len("Bearer")] {
	case "Bearer", "bearer", "BEARER":
	default:
		return span{}, false
	}
	if !boundaryBefore(s, p) {
		return span{}, false
	}
	i := p + len("Bearer")
	tok := runEnd(s, i, isBlank)
	if tok == i {
		return span{}, false
	}
	return keyOfAtLeast(s, tok, tok, isTokenByte, 8)
}

// sensitiveKeySuffixes lists, by their last letter, the key endings
// whose values are secrets.
var sensitiveKeySuffixes = [...][]string{
	'd' - 'a': {"password", "passwd"},
	't' - 'a': {"secret"},
	'n' - 'a': {"token", "authorization"},
	'y' - 'a': {"api_key", "apikey", "api-key", "access_key", "accesskey", "private_key", "secret_key", "secretkey", "secret-key", "accountkey", "account_key"},
	'e' - 'a': {"secret_key_base"},
	'h' - 'a': {"auth"},
}

// sensitiveKey reports whether the key k, made of isKeyByte characters,
// ends in a sensitive suffix, in any case.
func sensitiveKey(k string) bool {
	if k == "" {
		return false
	}
	last := lower(k[len(k)-1])
	if last < 'a' || last > 'y' {
		return false
	}
	for _, suf := range sensitiveKeySuffixes[last-'a'] {
		if hasSuffixLower(k, suf) {
			// "auth" is a key of its own or a word after '_' or '-', as
			// in docker's "auth", never the end of a word like "oauth".
			return last != 'h' || len(k) == len(suf) || !isAlnum(k[len(k)-len(suf)-1])
		}
	}
	return false
}

// hasSuffixLower reports whether s ends in the lower-case ASCII text low,
// in any case.
func hasSuffixLower(s, low string) bool {
	return len(s) >= len(low) && equalLower(s[len(s)-len(low):], low)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// equalLower reports whether s equals the lower-case ASCII text low, in
// any case. Both are ASCII, so this is strings.EqualFold without the
// Unicode cases.
func equalLower(s, low string) bool {
	for i := range len(low) {
		if lower(s[i]) != low[i] {
			return false
		}
	}
	return true
}

func isUnquotedValueByte(c byte) bool { return strings.IndexByte(" \t\r\n,;&}])\"'<\\", c) < 0 }

func isSpace(c byte) bool { return c == ' ' }

// keyEnd walks back from the separator at p (and the ':' before it in
// ":=") over spaces and a closing quote (escaped or not) to where a key
// would end.
func keyEnd(s string, p int) (k int, quoted bool) {
	k = p
	if k > 0 && s[k] == '=' && s[k-1] == ':' {
		k--
	}
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	return closingKeyQuote(s, k)
}

// closingKeyQuote walks back from k over a quote that closes a key,
// escaped or not, and reports whether there was one.
func closingKeyQuote(s string, k int) (int, bool) {
	if k == 0 || s[k-1] != '"' && s[k-1] != '\'' {
		return k, false
	}
	k--
	if k > 0 && s[k-1] == '\\' {
		k--
	}
	return k, true
}

// sensitiveEnd reports whether the key that ends at k may be sensitive,
// from its last bytes: every sensitive key ends in d, t, n or y, or in
// "_base" or "auth". Many plain keys (name, type, path) end in e or h,
// so those two are checked further here, on the pre-scan's path.
func sensitiveEnd(s string, k int) bool {
	switch s[k-1] {
	case 'd', 't', 'n', 'y', 'D', 'T', 'N', 'Y':
		return true
	case 'e', 'E':
		return hasSuffixLower(s[:k], "_base")
	case 'h', 'H':
		return hasSuffixLower(s[:k], "auth")
	}
	return false
}

// pairAt matches the value of a sensitive key/value pair whose separator
// (':' or '=') is at p.
func pairAt(s string, p int) (span, bool) {
	if strings.HasPrefix(s[p+1:], "=") {
		// "==" and "===" compare; the ':' of ":=" leaves the pair to its
		// '='.
		return span{}, false
	}
	k, last, quotedKey, ok := pairKey(s, p)
	if !ok {
		return span{}, false
	}
	v, end, unquoted, ok := pairValue(s, p, last, quotedKey)
	if !ok {
		return span{}, false
	}
	if hasSuffixLower(s[k:last], "authorization") {
		v, end = authorizationCredential(s, v, end, unquoted)
	}
	if end == v || strings.HasPrefix(s[v:], Redacted) {
		return span{}, false
	}
	return span{v, end}, true
}

// pairKey finds the key before the separator at p. It returns where the
// key starts and ends and whether it was quoted, or false when no
// sensitive key ends there.
func pairKey(s string, p int) (k, last int, quoted, ok bool) {
	k, quoted = keyEnd(s, p)
	if k == 0 || !sensitiveEnd(s, k) {
		return 0, 0, false, false
	}
	last = k
	k = keyStart(s, last)
	if k == last || !sensitiveKey(s[k:last]) {
		return 0, 0, false, false
	}
	if k >= 3 && s[k-3:k] == "://" {
		// The user of a URL's user information, not a key: userinfoAt
		// takes its password.
		return 0, 0, false, false
	}
	return k, last, quoted, true
}

// keyStart walks back from last over the isKeyByte characters of a key.
func keyStart(s string, last int) int {
	k := last
	for k > 0 && isKeyByte(s[k-1]) {
		k--
	}
	return k
}

// pairValue finds the value after the separator at p of a key that ends
// at last: where it starts and ends, and whether it is unquoted. It
// returns false when what follows the separator is no value to redact.
// A value never runs past an unescaped '"': when the pair sits inside a
// JSON string, that quote ends the string, and what follows is structure.
func pairValue(s string, p, last int, quotedKey bool) (v, end int, unquoted, ok bool) {
	v, arrow := valueStart(s, p)
	if qv, end, quoted, ok := quotedValue(s, v, last, quotedKey); quoted {
		return qv, end, false, ok
	}
	switch {
	case quotedKey:
		return 0, 0, false, false // a JSON number, boolean or null
	case arrow:
		return 0, 0, false, false // a function, as in token => token.trim()
	}
	return v, runEnd(s, v, isUnquotedValueByte), true, true
}

// quotedValue finds the value that a quote at v opens, after a key that
// ends at last: where its text starts and ends. quoted is false when no
// quote is at v, and ok is false when the '"' there does not open the
// value.
func quotedValue(s string, v, last int, quotedKey bool) (start, end int, quoted, ok bool) {
	switch {
	case strings.HasPrefix(s[v:], `\"`):
		// An escaped quote: the pair is inside a JSON string, and so is
		// the value, up to the next escaped quote or the end of the string.
		return v + 2, quotedValueEnd(s, v+2, '"'), true, true
	case strings.HasPrefix(s[v:], `"`):
		if !opensValue(s, v, last, quotedKey) {
			return 0, 0, true, false
		}
		return v + 1, closingQuote(s, v+1), true, true
	case strings.HasPrefix(s[v:], "'"):
		return v + 1, quotedValueEnd(s, v+1, '\''), true, true
	}
	return 0, 0, false, false
}

// valueStart walks forward from the separator at p, over the '>' of "=>"
// and then spaces, to where a value would start. It also reports whether
// the separator was "=>", the arrow of PHP, Perl and Ruby hashes.
func valueStart(s string, p int) (v int, arrow bool) {
	after := p + 1
	arrow = s[p] == '=' && after < len(s) && s[after] == '>'
	if arrow {
		after++
	}
	return runEnd(s, after, isSpace), arrow
}

// opensValue reports whether the '"' at v opens the value of a key that
// ends at last. After a key in plain double quotes it does. After any
// other key it may instead close the JSON string the pair is in; the
// bytes after it tell, as only structure can follow a string's end.
func opensValue(s string, v, last int, quotedKey bool) bool {
	return quotedKey && s[last] == '"' || !endsString(s, v)
}

// authorizationCredential moves the start of an authorization value from
// v past its scheme, as in "Basic dXNl…" or "Token abc": the scheme stays,
// as "Bearer" does. An unquoted value then runs to the end of the
// credential rather than stopping at the blank after the scheme.
func authorizationCredential(s string, v, end int, unquoted bool) (int, int) {
	w := runEnd(s, v, isAlpha)
	if w <= v || w >= len(s) || !isBlank(s[w]) {
		return v, end
	}
	cred := runEnd(s, w, isBlank)
	if unquoted {
		end = runEnd(s, cred, isUnquotedValueByte)
	}
	if cred < end {
		v = cred
	}
	return v, end
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// quotedValueEnd returns where a value that opened with a quote ends: at
// the first closing quote (an escaped '"' when quote is '"', else quote
// itself) or unescaped '"', at or after i, or at len(s). Escape sequences
// are skipped whole, so the value never ends inside one.
func quotedValueEnd(s string, i int, quote byte) int {
	for i < len(s) {
		switch c := s[i]; {
		case c == '\\':
			if quote == '"' && strings.HasPrefix(s[i:], `\"`) {
				return i
			}
			i += 2
		case c == '"' || c == quote:
			return i
		default:
			i++
		}
	}
	return len(s)
}

// endsString reports whether the '"' at i could end a JSON string: only
// whitespace and then ',', '}', ']', ':' or the end of s follow it.
func endsString(s string, i int) bool {
	for i++; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\n':
		case ',', '}', ']', ':':
			return true
		default:
			return false
		}
	}
	return true
}

// closingQuote returns the index of the first unescaped '"' at or after i,
// or len(s).
func closingQuote(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
		case '"':
			return i
		default:
			i++
		}
	}
	return len(s)
}

// redaction applies the built-in secrets redactor, when on, and then a
// list of redactors in order. The built-in one is called directly rather
// than through a Redactor, as it runs on every field of every record.
type redaction struct {
	secrets bool
	others  []Redactor
	// lastScan remembers the last assessment or injected message the
	// built-in redactor scanned, with its result. Lookout injects the
	// assessment it records into call after call, so most model_request
	// records carry a text scanned before. Nil in a redaction that does not
	// remember.
	lastScan *scanMemo
}

// scanMemo is a text and what the built-in redactor made of it.
type scanMemo struct {
	mu      sync.Mutex
	in, out string
}

// secretsRemembered is the built-in redactor, when on, for a text that
// often repeats: the last text scanned is compared (at no cost when it is
// the same string, as an injected assessment is) before it is scanned
// again.
func (rs *redaction) secretsRemembered(s string) string {
	if !rs.secrets {
		return s
	}
	m := rs.lastScan
	if m == nil || len(s) < minSecretText {
		return redactSecrets(s)
	}
	m.mu.Lock()
	in, out := m.in, m.out
	m.mu.Unlock()
	if in == s {
		return out
	}
	out = redactSecrets(s)
	m.mu.Lock()
	m.in, m.out = s, out
	m.mu.Unlock()
	return out
}

// none reports whether rs leaves every text as it is.
func (rs *redaction) none() bool { return !rs.secrets && len(rs.others) == 0 }

// text redacts s. A text too short to hold a secret costs no call when
// only the built-in redactor runs.
func (rs *redaction) text(s string) string {
	if len(s) < minSecretText && len(rs.others) == 0 {
		return s
	}
	return rs.anyText(s)
}

// anyText is text for any s.
func (rs *redaction) anyText(s string) string {
	if rs.secrets {
		s = redactSecrets(s)
	}
	return rs.byOthers(s)
}

// byOthers applies the redactors of Options.Redactors to s, in order.
func (rs *redaction) byOthers(s string) string {
	for _, r := range rs.others {
		s = r.Redact(s)
	}
	return s
}

// payload returns p with every free-text field redacted. It never edits p:
// when something changes it returns a copy.
func (rs *redaction) payload(p Payload) Payload {
	switch p := p.(type) {
	case *RunStarted:
		return rs.runStarted(p)
	case *RunEnded:
		return rs.runEnded(p)
	case *ModelRequest:
		return rs.modelRequest(p)
	case *ModelResponse:
		return rs.modelResponse(p)
	case *Message:
		return rs.messagePayload(p)
	}
	return rs.eventPayload(p)
}

// eventPayload is payload for the tool, assessment, extension and unknown
// payloads.
func (rs *redaction) eventPayload(p Payload) Payload {
	switch p := p.(type) {
	case *ToolStarted:
		return rs.toolStarted(p)
	case *ToolEnded:
		return rs.toolEnded(p)
	case *AssessmentRecord:
		return rs.assessment(p)
	case *Extension:
		return rs.extension(p)
	case *Unknown:
		return rs.unknown(p)
	}
	return p
}

// The methods below each return their payload, or a redacted copy of it
// when one of its free-text fields changes.

func (rs *redaction) runStarted(p *RunStarted) *RunStarted {
	md := rs.metadata(p.Metadata)
	if md == nil {
		return p
	}
	c := *p
	c.Metadata = md
	return &c
}

func (rs *redaction) runEnded(p *RunEnded) *RunEnded {
	e := rs.text(p.Error)
	if e == p.Error {
		return p
	}
	c := *p
	c.Error = e
	return &c
}

func (rs *redaction) modelRequest(p *ModelRequest) *ModelRequest {
	defs := rs.tools(p.ToolDefinitions)
	injected := rs.injected(p.Injected)
	if defs == nil && injected == nil {
		return p
	}
	c := *p
	if defs != nil {
		c.ToolDefinitions = defs
	}
	if injected != nil {
		c.Injected = injected
	}
	return &c
}

// injected returns the injected messages with their content redacted, or
// nil when none changes.
func (rs *redaction) injected(in []InjectedMessage) []InjectedMessage {
	var out []InjectedMessage
	for i, m := range in {
		text := rs.byOthers(rs.secretsRemembered(m.Content))
		if text == m.Content {
			continue
		}
		if out == nil {
			out = slices.Clone(in)
		}
		out[i].Content = text
	}
	return out
}

func (rs *redaction) modelResponse(p *ModelResponse) *ModelResponse {
	m, e := rs.message(p.Message), rs.text(p.Error)
	if m == p.Message && e == p.Error {
		return p
	}
	c := *p
	c.Message, c.Error = m, e
	return &c
}

func (rs *redaction) messagePayload(p *Message) *Message {
	m := rs.message(p.Message)
	if m == p.Message {
		return p
	}
	c := *p
	c.Message = m
	return &c
}

func (rs *redaction) toolStarted(p *ToolStarted) *ToolStarted {
	a := rs.text(p.Arguments)
	if a == p.Arguments {
		return p
	}
	c := *p
	c.Arguments = a
	return &c
}

func (rs *redaction) toolEnded(p *ToolEnded) *ToolEnded {
	res, e := rs.text(p.Result), rs.text(p.Error)
	parts := rs.parts(p.Parts)
	if res == p.Result && e == p.Error && parts == nil {
		return p
	}
	c := *p
	c.Result, c.Error = res, e
	if parts != nil {
		c.Parts = parts
	}
	return &c
}

// parts returns a copy of a tool result's parts with their text redacted,
// or nil when no text changes.
func (rs *redaction) parts(parts []Part) []Part {
	var out []Part
	for i, part := range parts {
		if part.Type != PartText {
			continue
		}
		if t := rs.text(part.Text); t != part.Text {
			if out == nil {
				out = slices.Clone(parts)
			}
			out[i].Text = t
		}
	}
	return out
}

func (rs *redaction) assessment(p *AssessmentRecord) *AssessmentRecord {
	// The model is shown the same text, injected into its next call.
	md := rs.byOthers(rs.secretsRemembered(p.Markdown))
	if md == p.Markdown {
		return p
	}
	c := *p
	c.Markdown = md
	return &c
}

func (rs *redaction) extension(p *Extension) *Extension {
	b, ok := rs.json(p.Body)
	if !ok {
		return p
	}
	return &Extension{Name: p.Name, Body: b}
}

func (rs *redaction) unknown(p *Unknown) *Unknown {
	b, ok := rs.json(p.Body)
	if !ok {
		return p
	}
	return &Unknown{Name: p.Name, Body: b}
}

// tools returns a redacted copy of defs, or nil when nothing changes.
// Descriptions and parameter schemas are written by whoever built the
// tools, but they are free text all the same and may quote credentials.
func (rs *redaction) tools(defs []ToolDefinition) []ToolDefinition {
	var out []ToolDefinition
	for i, d := range defs {
		desc := rs.text(d.Description)
		params, changed := rs.json(d.Parameters)
		if desc == d.Description && !changed {
			continue
		}
		if out == nil {
			out = append([]ToolDefinition(nil), defs...)
		}
		out[i].Description = desc
		if changed {
			out[i].Parameters = params
		}
	}
	return out
}

// metadata returns a redacted copy of md, or nil when nothing changes.
func (rs *redaction) metadata(md map[string]string) map[string]string {
	var out map[string]string
	for k, v := range md {
		if r := rs.text(v); r != v {
			if out == nil {
				out = make(map[string]string, len(md))
				for k2, v2 := range md {
					out[k2] = v2
				}
			}
			out[k] = r
		}
	}
	return out
}

// json redacts a JSON body as text. If the result is no longer valid JSON
// it is stored as a JSON string, so the record still encodes.
func (rs *redaction) json(body json.RawMessage) (json.RawMessage, bool) {
	var s string
	if len(rs.others) == 0 {
		// Only the built-in redactor reads s, and it keeps no part of it
		// (a text it changes is a new string), so s can share body's
		// bytes rather than copy them.
		s = unsafe.String(unsafe.SliceData(body), len(body))
	} else {
		s = string(body)
	}
	r := rs.text(s)
	if r == s {
		return nil, false
	}
	if b := json.RawMessage(r); validJSON(b) {
		return b, true
	}
	return json.RawMessage(appendString(nil, r)), true
}

// message returns m, or a copy of m with its text redacted. Slices are
// copied before they are changed; the caller's message is never edited.
func (rs *redaction) message(m *schema.Message) *schema.Message {
	if m == nil {
		return nil
	}
	e := messageEdit{m: m}
	if s := rs.text(m.Content); s != m.Content {
		e.clone().Content = s
	}
	if s := rs.text(m.ReasoningContent); s != m.ReasoningContent {
		e.clone().ReasoningContent = s
	}
	if len(m.ToolCalls) > 0 {
		rs.toolCalls(&e)
	}
	if len(m.MultiContent)+len(m.UserInputMultiContent)+len(m.AssistantGenMultiContent) > 0 {
		rs.multiContent(&e)
		rs.userInputParts(&e)
		rs.assistantParts(&e)
	}
	return e.result()
}

// messageEdit is a copy-on-write redaction of the message m: the first
// change clones m into c, and each of c's slices is copied before its
// first element changes, so the caller's message is never edited.
type messageEdit struct {
	m, c *schema.Message
}

// clone returns the copy of the message, making it on first use.
func (e *messageEdit) clone() *schema.Message {
	if e.c == nil {
		cp := *e.m
		e.c = &cp
	}
	return e.c
}

// result returns the copy when something changed, and m when nothing did.
func (e *messageEdit) result() *schema.Message {
	if e.c == nil {
		return e.m
	}
	return e.c
}

// owned returns *dst after copying it when it still shares its backing
// array with orig, the caller's slice, so that writing to its elements
// leaves orig alone. Both are non-empty.
func owned[T any](dst *[]T, orig []T) []T {
	if &(*dst)[0] == &orig[0] {
		*dst = append([]T(nil), orig...)
	}
	return *dst
}

func (rs *redaction) toolCalls(e *messageEdit) {
	for i, tc := range e.m.ToolCalls {
		if s := rs.text(tc.Function.Arguments); s != tc.Function.Arguments {
			owned(&e.clone().ToolCalls, e.m.ToolCalls)[i].Function.Arguments = s
		}
	}
}

func (rs *redaction) multiContent(e *messageEdit) {
	parts := e.m.MultiContent
	for i, part := range parts {
		if s := rs.text(part.Text); s != part.Text {
			owned(&e.clone().MultiContent, parts)[i].Text = s
		}
	}
}

func (rs *redaction) userInputParts(e *messageEdit) {
	for i, part := range e.m.UserInputMultiContent {
		if s := rs.text(part.Text); s != part.Text {
			owned(&e.clone().UserInputMultiContent, e.m.UserInputMultiContent)[i].Text = s
		}
	}
}

func (rs *redaction) assistantParts(e *messageEdit) {
	for i, part := range e.m.AssistantGenMultiContent {
		text := rs.text(part.Text)
		reasoning := rs.reasoning(part.Reasoning)
		if text == part.Text && reasoning == nil {
			continue
		}
		parts := owned(&e.clone().AssistantGenMultiContent, e.m.AssistantGenMultiContent)
		parts[i].Text = text
		if reasoning != nil {
			parts[i].Reasoning = reasoning
		}
	}
}

// reasoning returns a redacted copy of r, or nil when r is nil or its
// text does not change.
func (rs *redaction) reasoning(r *schema.MessageOutputReasoning) *schema.MessageOutputReasoning {
	if r == nil {
		return nil
	}
	s := rs.text(r.Text)
	if s == r.Text {
		return nil
	}
	c := *r
	c.Text = s
	return &c
}
