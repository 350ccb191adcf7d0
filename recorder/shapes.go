package recorder

import "strings"

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
	m, ok := keyOfAtLeast(s, tok, tok, isTokenByte, 8)
	if ok && m.end-tok < 16 && runEnd(s, tok, isLowerLetter) == m.end {
		// A word, as in "Bearer authentication", is no token.
		return span{}, false
	}
	return m, ok
}

func isLowerLetter(c byte) bool { return c >= 'a' && c <= 'z' }

// keySuffix is a key ending whose value is a secret. A weak one, such as
// "key" or "sig", ends many keys whose values are not, so its value is
// redacted only when it looks random (looksRandom).
type keySuffix struct {
	suf  string
	weak bool
}

// sensitiveKeySuffixes lists, by their last letter, the key endings
// whose values are secrets.
var sensitiveKeySuffixes = [...][]keySuffix{
	'd' - 'a': {{"password", false}, {"passwd", false}, {"pwd", true}, {"sessionid", true}},
	't' - 'a': {{"secret", false}, {"salt", true}},
	'n' - 'a': {{"token", false}, {"authorization", false}},
	'y' - 'a': {{"api_key", false}, {"apikey", false}, {"api-key", false}, {"access_key", false}, {"accesskey", false}, {"private_key", false}, {"secret_key", false}, {"secretkey", false}, {"secret-key", false}, {"accountkey", false}, {"account_key", false}, {"key", true}},
	'e' - 'a': {{"secret_key_base", false}, {"signature", true}, {"passphrase", true}, {"cookie", true}},
	'h' - 'a': {{"auth", false}},
	'g' - 'a': {{"sig", true}},
	's' - 'a': {{"credentials", true}, {"creds", true}, {"pass", true}},
	'l' - 'a': {{"credential", true}},
	'a' - 'a': {{"key-data", true}, {"key_data", true}, {"keydata", true}},
}

// penultimates holds, by the last letter of the sensitive key suffixes,
// a bit for each letter one of them has before it.
var penultimates = func() (t [len(sensitiveKeySuffixes)]uint32) {
	for i, sufs := range sensitiveKeySuffixes {
		for _, suf := range sufs {
			t[i] |= 1 << (suf.suf[len(suf.suf)-2] - 'a')
		}
	}
	return t
}()

// Key strengths: no secret, a secret when it looks random, a secret.
const (
	keyPlain = iota
	keyWeak
	keyStrong
)

// sensitiveKey reports whether the key k, made of isKeyByte characters,
// ends in a strong sensitive suffix, in any case.
func sensitiveKey(k string) bool { return keyStrength(k, len(k)) == keyStrong }

// sensitiveKeyEnd reports whether the key of isKeyByte characters that
// ends at k in s ends in a sensitive suffix, in any case.
func sensitiveKeyEnd(s string, k int) bool { return keyStrength(s, k) != keyPlain }

// keyStrength tells whether the key of isKeyByte characters that ends at
// k in s ends in a sensitive suffix, in any case, and how strong. Every
// suffix is made of such characters, so it needs no walk back to the
// key's start. The bytes before the suffix tell most keys that share its
// last letter from it, so a mismatch costs a few instructions.
func keyStrength(s string, k int) int {
	if k < 2 {
		return keyPlain
	}
	last := lower(s[k-1])
	if last < 'a' || last > 'y' || penultimates[last-'a']&(1<<(lower(s[k-2])-'a')) == 0 {
		return keyPlain
	}
	for _, suf := range sensitiveKeySuffixes[last-'a'] {
		if !hasSuffixLower(s[:k], suf.suf) {
			continue
		}
		j := k - len(suf.suf)
		switch {
		case last == 'h' && j > 0 && isAlnum(s[j-1]):
			// "auth" is a key of its own or a word after '_' or '-', as
			// in docker's "auth", never the end of a word like "oauth".
			return keyPlain
		case last == 'n' && suf.suf == "token" && listToken(s, j):
			return keyPlain
		case suf.weak:
			return keyWeak
		}
		return keyStrong
	}
	return keyPlain
}

// listTokens are the words before "token" in keys of tokens that page
// through lists or guard forms rather than grant access.
var listTokens = [...]string{"page", "next", "skip", "sync", "continuation", "csrf", "xsrf", "cancellation"}

// listToken reports whether the key whose "token" starts at j names a
// token of listTokens.
func listToken(s string, j int) bool {
	if j > 0 && (s[j-1] == '_' || s[j-1] == '-') {
		j--
	}
	for _, w := range listTokens {
		if hasSuffixLower(s[:j], w) {
			return true
		}
	}
	return false
}

// looksRandom reports whether v, the value of a weak sensitive key, looks
// like a secret rather than a word, a name, an id or a reference: twelve
// bytes or more, not only letters and '_', '.' or '-', no UUID, no path
// or URL, no blank, and varied enough (a Shannon entropy of 3 bits or
// more, as a random string of ten different characters has).
func looksRandom(v string) bool {
	if len(v) < 12 || isReference(v) || strings.ContainsAny(v, " \t") || strings.Contains(v, "://") || v[0] == '/' || v[0] == '~' || v[0] == '.' {
		return false
	}
	if runEnd(v, 0, isIdentPathByte) == len(v) && strings.IndexFunc(v, func(r rune) bool { return r >= '0' && r <= '9' }) < 0 {
		return false
	}
	if isUUID(v) {
		return false
	}
	return entropy(v) >= 3
}

func isIdentPathByte(c byte) bool { return isAlpha(c) || c == '_' || c == '.' || c == '-' }

// isUUID reports whether v is a UUID in its usual text form.
func isUUID(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := range len(v) {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if v[i] != '-' {
				return false
			}
		} else if !isHex(v[i]) {
			return false
		}
	}
	return true
}

// isReference reports whether a value names a secret rather than holds
// one: a variable ($NAME, ${NAME}, $(command)), a template ({{ … }}, ${{
// … }}), or, unquoted, code (a call, an index or a dotted name).
func isReference(v string) bool {
	return strings.HasPrefix(v, "$") || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "%") && strings.HasSuffix(v, "%") && len(v) > 2
}

// isCode reports whether an unquoted value is code rather than a secret:
// a call or an index (it holds '(' or '['), as in os.environ["TOKEN"].
func isCode(v string) bool {
	return strings.ContainsAny(v, "([")
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
	if k > 1 && s[k-1] == ']' && (s[k-2] == '"' || s[k-2] == '\'') {
		// An index by a quoted key: config["SECRET_KEY"] = "…".
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
	val := s[v:end]
	if end == v || strings.HasPrefix(val, Redacted) || isReference(val) || unquoted && isCode(val) {
		return span{}, false
	}
	if keyStrength(s, last) == keyWeak && !looksRandom(val) {
		return span{}, false
	}
	return span{v, end}, true
}

// pairKey finds the key before the separator at p. It returns where the
// key starts and ends and whether it was quoted, or false when no
// sensitive key ends there.
func pairKey(s string, p int) (k, last int, quoted, ok bool) {
	last, quoted = keyEnd(s, p)
	if !sensitiveKeyEnd(s, last) {
		return 0, 0, false, false
	}
	k = keyStart(s, last)
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
