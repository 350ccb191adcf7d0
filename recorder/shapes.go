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

// privateKeyAt matches the body of a PEM private key block, or of
// another that holds a secret (secretPEMLabel), whose
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
	if strings.HasPrefix(s[label:], openVPNKeyLabel) {
		i = runEnd(s, label+len(openVPNKeyLabel), isPEMLabelByte) // its version
	}
	if !secretPEMLabel(s[label:i]) || !strings.HasPrefix(s[i:], "-----") {
		return span{}, false
	}
	start := i + len("-----")
	end := pemBodyEnd(s, start)
	if end == start || s[start:end] == Redacted {
		return span{}, false
	}
	return span{start, end}, true
}

// secretPEMLabel reports whether a PEM block's label names a secret: a
// private key, a NATS key seed or an OpenVPN static key (tls-auth,
// tls-crypt), whose lines of hexadecimal are shared by both ends.
func secretPEMLabel(l string) bool {
	return strings.Contains(l, "PRIVATE KEY") || strings.HasSuffix(l, " SEED") || strings.HasPrefix(l, openVPNKeyLabel)
}

// openVPNKeyLabel starts the label of an OpenVPN static key, the one
// label of a secret written in both cases.
const openVPNKeyLabel = "OpenVPN Static key"

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
	if !strings.HasPrefix(s[p:], "://") || p+3 < len(s) && s[p+3] != 'h' && s[p+3] != 'd' {
		return span{}, false // every host of webhookHosts starts with h or d
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

// shortFlagAt matches curl's -u user:password (or -uuser:password),
// mysql's -pPASSWORD and the value of a command's password flag of
// passwordFlags, whose '-' is at p.
func shortFlagAt(s string, p int) (span, bool) {
	if len(s)-p < 4 {
		return span{}, false
	}
	switch s[p+1] {
	case 'u':
		return curlPasswordAt(s, p, p+2)
	case 'p':
		if s[p+2] != '-' && s[p+2] != ' ' && (onLine(s, p, "mysql") || onLine(s, p, "mariadb")) {
			return flagValueAt(s, p+2)
		}
	}
	if s[p+2] != ' ' {
		return passFlagAt(s, p)
	}
	for _, f := range passwordFlags {
		if f.flag == s[p+1] && onLine(s, p, f.cmd) {
			m, ok := flagValueAt(s, runEnd(s, p+2, isBlank))
			return m, ok && runEnd(s, m.start, isDigit) < m.end // not a port
		}
	}
	return span{}, false
}

// passFlagAt matches the value of a one-dash flag named for a password,
// as keytool's -storepass and -keypass are, whose '-' is at p.
func passFlagAt(s string, p int) (span, bool) {
	n := runEnd(s, p+1, isLowerLetter)
	if n >= len(s) || s[n] != ' ' || !strings.HasSuffix(s[p+1:n], "pass") {
		return span{}, false
	}
	return flagValueAt(s, runEnd(s, n, isBlank))
}

// passwordFlags are short flags that take a password or a token as the
// next argument, each in the commands whose line holds cmd: docker,
// podman, helm and az login -p, mongo's -p, redis-cli -a, sqlcmd -P and
// the ldap tools' -w.
var passwordFlags = [...]struct {
	flag byte
	cmd  string
}{{'p', " login "}, {'p', "mongo"}, {'a', "redis-cli"}, {'P', "sqlcmd"}, {'w', "ldap"}}

// curlPasswordAt matches the password of the user:password argument that
// follows a curl flag at p after blanks from i, or of lftp's -u
// user,password.
func curlPasswordAt(s string, p, i int) (span, bool) {
	sep := byte(':')
	if !onLine(s, p, "curl") {
		if !onLine(s, p, "lftp") && !onLine(s, p, "open ") {
			return span{}, false
		}
		sep = ','
	}
	v := runEnd(s, i, isBlank)
	if v < len(s) && (s[v] == '"' || s[v] == '\'') {
		v++
	}
	end := runEnd(s, v, isArgByte)
	colon := strings.IndexByte(s[v:end], sep)
	if colon < 0 || strings.HasPrefix(s[v+colon+1:], Redacted) {
		return span{}, false
	}
	if v+colon+1 == end || s[v+colon+1:end] == "X" {
		// An API key as the user, with no password or an X, as
		// HelloSign and Freshdesk take it.
		return span{v, v + colon}, looksRandom(s[v:v+colon]) && !strings.HasPrefix(s[v:], Redacted)
	}
	return span{v + colon + 1, end}, !isReference(s[v+colon+1 : end])
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
func isUserinfoByte(c byte) bool { return userinfoBytes[c] }

var userinfoBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isAlnum(byte(c)) || strings.IndexByte("-._~%!$&'()*+,;=:", byte(c)) >= 0
	}
	return t
}()

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

func isCallArgByte(c byte) bool { return isKeyByte(c) || c == '.' || c == '+' || c == '/' || c == '=' }
