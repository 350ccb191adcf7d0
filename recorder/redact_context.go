package recorder

import (
	"math"
	"strings"
)

// contextRules find secrets that have no shape of their own from what
// surrounds them, each about keywords of its own, as the provider rules
// are found: a key that holds a sensitive word before more words
// (keyPartAt), the values commands set (commandSecretsAt), the value of
// a provider's own header (customHeaderAt), the key in a URL's path
// after a segment that names one (urlPathKeyAt), a random token near
// words that say a credential follows (nearCredentialWordAt), the value
// of a configuration directive (directiveValueAt), the text of an XML
// element named for a secret (xmlElementAt) and the private keys of a
// wallet's accounts (walletKeysAt). Each keyword costs the scan of clean
// text a look at each of its pairs of bytes (see newKeywordIndex), so
// they are few and chosen for pairs that prose and code seldom hold.
var contextRules = [...]secretRule{
	{id: "sensitive-key-part", near: keyPartAt, keywords: []string{
		"password_", "passwd_", "secret_", "token_", "apikey_", "api_key_", "auth_", "credential", "pwd_", "private_key_",
		"privatekey_",
	}},
	{id: "sensitive-key-part-camel", near: keyPartAt, exact: true, keywords: []string{
		// Not Token, as MaxTokens and TokenCount are everywhere in code
		// that counts a model's tokens, nor Secret, whose "ec" and "re"
		// are in every "record" a scan meets; Passwor, as passwor below.
		"Passwor", "Passwd", "ApiKey", "Credential", "PrivateKey",
	}},
	{id: "command-argument", near: commandSecretsAt, exact: true, keywords: []string{
		"config:set", "env:set", "--body", "add-authtoken", ":_authToken", "npmAuthToken",
	}},
	{id: "command-credential", near: commandCredentialAt, exact: true, keywords: []string{
		"login", "b2 ", "uplink ", "password-stdin", "ConvertTo-SecureString", "rabbitmqctl", "smbclient", "rpcclient", "sqlplus",
		"expdp", "impdp", "sqlldr",
	}},
	{id: "host-credential", near: hostCredentialAt, exact: true, keywords: []string{
		"BUNDLE_", "http-basic.", "pypi-token.",
	}},
	{id: "passwd-command", near: passwdCommandAt, keywords: []string{"passwd"}},
	{id: "env-name-value", near: envNameValueAt, exact: true, keywords: []string{
		// With the blank after the name, as prose and code seldom write
		// an environment variable's name (`OPENAI_API_KEY`, "API_KEY").
		"_TOKEN ", "_SECRET ", "_PASSWORD ", "_KEY ", "_PASS ", "_PWD ",
	}},
	{id: "paired-secret", near: pairedSecretAt, exact: true, keywords: pairedIDs[:]},
	{id: "custom-header", near: customHeaderAt, exact: true, keywords: headerKeywords[:]},
	{id: "url-path-key", near: urlPathKeyAt, exact: true, keywords: []string{
		// The segments that name a key, and the hosts that take one in
		// their path, by the parts of their names whose pairs of bytes
		// other URLs seldom hold.
		"/hooks", "/key/", "ankr.", "sumologic", "quiknode", ".getblock",
	}},
	{id: "sql-password", near: sqlPasswordAt, exact: true, keywords: []string{
		// In capitals, as SQL's keywords are written, whose pairs
		// ("SS", "SW") prose and code seldom hold.
		"IDENTIFIED BY", "PASSWORD",
	}},
	{id: "redis-auth", near: authCommandAt, exact: true, keywords: []string{"AUTH "}},
	{id: "near-credential-word-cased", near: nearCredentialWordAt, exact: true, keywords: []string{
		// Written as prose writes them, their pairs ("AP", "PI") are
		// rare in code.
		"API key", "API Key",
	}},
	{id: "near-credential-word", near: nearCredentialWordAt, keywords: []string{
		// "passwor" rather than "password", whose last pair, "rd", is in
		// every "record" and is the one the index would file it under;
		// not "api key", whose " k" starts every " key" and " keeps".
		"passwor", "passwd", "apikey", "credential",
	}},
	{id: "config-directive", near: directiveValueAt, keywords: []string{"passwor", "passwd"}},
	{id: "wallet-accounts", near: walletKeysAt, exact: true, keywords: []string{`["0x`, `[\"0x`, `[\\\"0x`, `['0x`}},
	{id: "xml-element", near: xmlElementAt, keywords: []string{"passwor", "passwd", "apikey", "credential"}},
	{id: "config-directive-cased", near: directiveValueAt, exact: true, keywords: []string{
		// As daemons write them, with the bytes around the word, whose
		// pairs prose and code seldom hold: mbsync's Pass at a line's
		// start (or after a JSON string's \n), snmpd's rocommunity
		// and strongSwan's PSK.
		"\nPass ", `\nPass `, "community ", "PSK ",
	}},
}

// keyPartWords are the words of a key after which its value is a secret,
// wherever they stand in the key, in lower case.
var keyPartWords = [...]string{
	"password", "passwd", "secret", "token", "apikey", "api_key", "api-key", "auth", "credentials", "credential",
	"creds", "pwd", "private_key", "privatekey",
}

// keyPartNotSecret are the last words of keys that hold a sensitive word
// but name something about a secret rather than the secret: its name,
// where it is, its kind, its limits or its lifetime.
var keyPartNotSecret = [...]string{
	"name", "names", "id", "ids", "arn", "url", "uri", "endpoint", "path", "file", "dir", "type", "policy",
	"length", "len", "count", "size", "min", "max", "ttl", "expiry", "expires", "expiration", "lifetime",
	"timeout", "hash", "field", "label", "prefix", "format", "method", "provider", "source", "ref", "env",
	"var", "domain", "region", "scope", "scopes", "mode", "kind", "enabled", "required", "manager", "store",
	"backend", "rotation", "created", "updated", "reset", "hint", "strength", "regex", "pattern", "index",
	"limit", "usage", "header", "seconds", "secs", "ms", "minutes", "hours", "days", "at", "version",
	"accessor", "location", "lookup", "used", "changed", "email", "user", "username", "login", "scheme", "issuer", "audience",
	"project",
}

// keyPartAt redacts the value of a pair whose key holds the sensitive
// word at s[at:end], with more of the key after it: DB_PASSWORD_PRIMARY,
// token_value, dbPasswordValue. A key that ends in the word is the
// pair matcher's. The word must stand as a word of the key (after '_',
// '-', '.' or a lower-case letter before its capital), and the key's
// last word must not say it names something else (keyPartNotSecret). The
// value must look random (looksSecret), as only its key tells it from
// an ordinary value.
func keyPartAt(s string, at, end int, spans []span) []span {
	last, ok := keyPartEnd(s, at, end)
	// A name is words; a random value under a key that says name
	// (Teleport's token_name) is the secret itself.
	named := !ok && last > 0 && hasSuffixLower(s[:last], "name")
	if !ok && !named {
		return spans
	}
	sep, quotedKey := keySeparator(s, last)
	if sep > last && !quotedKey && sep < len(s) && s[sep] != '=' && s[sep] != ':' {
		return setArgument(s, at, sep, spans)
	}
	if sep >= len(s) || s[sep] != '=' && s[sep] != ':' || strings.HasPrefix(s[sep+1:], "=") {
		return spans
	}
	if s[sep] == ':' && strings.HasPrefix(s[sep:], "://") {
		return spans
	}
	v, vend, unquoted, ok := pairValue(s, sep, sep, quotedKey)
	if !ok {
		return spans
	}
	val := s[v:vend]
	if unquoted && isCode(val) || !looksSecret(val) || named && !randomName(val) {
		return spans
	}
	return append(spans, span{v, vend})
}

// randomName reports whether v, given as a name, is random instead: 32
// hexadecimal digits or more, or a token as random as one near a
// credential word is (strongRandom) of 24 bytes or more.
func randomName(v string) bool {
	return len(v) >= 32 && runEnd(v, 0, isHex) == len(v) || len(v) >= 24 && strongRandom(v)
}

// keyPartEnd returns where the key whose sensitive word is s[at:end]
// ends, when the key's other part, after the word, says it holds a
// secret, as _key in api_key does.
func keyPartEnd(s string, at, end int) (int, bool) {
	w, ok := wordEnd(s, end)
	if !ok {
		return 0, false
	}
	if c := s[w-1]; c == '_' || c == '-' {
		w--
	}
	if w+1 < len(s) && lower(s[w]) == 's' && keyWordEnds(s, w+1) {
		w++ // a plural, as in credentials_json
	}
	if !keyWordStarts(s, at) || w >= len(s) || !keyWordEnds(s, w) {
		return 0, false
	}
	last := runEnd(s, w, isKeyPartByte)
	return last, last > w && keyPartSecret(s[w:last])
}

// keySeparator returns where the separator after a key that ends at last
// may be, past the key's closing quote and blanks, and whether the key
// was quoted.
func keySeparator(s string, last int) (sep int, quoted bool) {
	sep = last
	switch {
	case sep < len(s) && (s[sep] == '"' || s[sep] == '\''):
		sep, quoted = sep+1, true
	case strings.HasPrefix(s[sep:], `\"`):
		// A key in escaped quotes: the pair is inside a JSON string.
		sep, quoted = sep+2, true
	}
	return runEnd(s, sep, isBlank), quoted
}

// setArgument redacts the argument at v of a command that sets the key
// holding the sensitive word at at to it, as "aws configure set
// aws_secret_access_key VALUE" and "config set NAME VALUE" do: the key
// follows the word "set".
func setArgument(s string, at, v int, spans []span) []span {
	k := at
	for k > 0 && isKeyPartByte(s[k-1]) {
		k--
	}
	if !strings.HasSuffix(s[:k], " set ") {
		return spans
	}
	var buf [1]span
	if args := lineArgs(s, v, buf[:]); len(args) > 0 {
		return appendArgSecret(s, args[0], spans)
	}
	return spans
}

// wordEnd returns where the word of a keyword that ends at end ends: at
// end, or after the 'd' of a keyword cut short to "passwor". It reports
// false when "passwor" is not followed by its 'd'.
func wordEnd(s string, end int) (int, bool) {
	if lower(s[end-1]) != 'r' {
		return end, true
	}
	if end < len(s) && lower(s[end]) == 'd' {
		return end + 1, true
	}
	return end, false
}

func isKeyPartByte(c byte) bool { return isKeyByte(c) || c == '.' }

// keyWordStarts reports whether the key word at i starts a word of its
// key.
func keyWordStarts(s string, i int) bool {
	if i == 0 {
		return true
	}
	p, c := s[i-1], s[i]
	return !isKeyByte(p) || p == '_' || p == '-' || p == '.' || c >= 'A' && c <= 'Z' && (isLowerLetter(p) || p >= '0' && p <= '9')
}

// keyWordEnds reports whether a key word that ends at i, before more of
// its key, ends a word there: '_', '-', '.', a digit or a capital follows.
func keyWordEnds(s string, i int) bool {
	c := s[i]
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' && isLowerLetter(s[i-1])
}

// keyPartSecret reports whether rest, the part of a key after its
// sensitive word, leaves the value a secret: its last word is not one of
// keyPartNotSecret.
func keyPartSecret(rest string) bool {
	i := len(rest)
	for i > 0 {
		c := rest[i-1]
		if c == '_' || c == '-' || c == '.' {
			break
		}
		i--
		if c >= 'A' && c <= 'Z' && i+1 < len(rest) && isLowerLetter(rest[i+1]) {
			break // a camel-case word starts at its capital
		}
	}
	last := strings.ToLower(rest[i:])
	for _, w := range keyPartNotSecret {
		if last == w {
			return false
		}
	}
	return true
}

// looksSecret reports whether v, found by context alone, looks like a
// secret: random (looksRandom), with a digit or both cases of letters,
// and no placeholder.
func looksSecret(v string) bool {
	if !looksRandom(v) || isPlaceholder(v) || isTimestamp(v) {
		return false
	}
	digit, upper, lowerCase := false, false, false
	for i := range len(v) {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lowerCase = true
		}
	}
	return digit && (upper || lowerCase) || upper && lowerCase && len(v) >= 20
}

// isPlaceholder reports whether v stands in for a secret in examples
// and docs: one character repeated, as in ******** or xxxx, a value
// ending in EXAMPLE, or one that asks for the reader's own, as <api-key>
// does (its '<' escaped as \u003c in a JSON string that Go wrote).
func isPlaceholder(v string) bool {
	if len(v) >= 4 && strings.Trim(v, v[:1]) == "" || strings.HasSuffix(v, "EXAMPLE") || strings.Contains(v, "xxxxxx") || strings.Contains(v, "XXXXXX") {
		return true
	}
	low := strings.ToLower(v)
	for _, p := range [...]string{"your_", "your-", "<", `\u003c`, "changeme", "changeit", "placeholder", "redacted", "replace_", "replace-", "replaceme"} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	switch low {
	case "password", "passwd", "pass", "secret", "token":
		// The word itself, as in postgres://user:password@localhost.
		return true
	}
	return strings.HasSuffix(low, "_here") || strings.HasSuffix(low, "-here")
}

// lineArgs splits the rest of the line of s from index i on into its
// command-line arguments, at most len(buf), each without its quotes. What
// comes before i is left alone: a command inside a JSON string, as a tool
// call's arguments hold it, is split from its keyword on, not taken as
// one quoted argument.
func lineArgs(s string, i int, buf []span) []span {
	ls := i
	le := len(s)
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		le = i + j
	}
	args := buf[:0]
	for p := ls; p < le && len(args) < cap(args); {
		switch c := s[p]; {
		case c == '"' || c == '\'':
			end := p + 1 + strings.IndexByte(s[p+1:le], c)
			if end <= p {
				end = le
			}
			args = append(args, span{p + 1, end})
			p = end + 1
		case isArgByte(c):
			end := runEnd(s[:le], p, isArgByte)
			args = append(args, span{p, end})
			p = end
		default:
			p++
		}
	}
	return args
}

// commandSecretsAt redacts the tokens and passwords set by the command
// the keyword at s[at:end] names, on the keyword's line: the values set
// by config:set and env:set (heroku, dokku, netlify), the --body of gh
// secret set, and the token given to ngrok config
// add-authtoken or set as npm's _authToken or yarn's npmAuthToken.
func commandSecretsAt(s string, at, end int, spans []span) []span {
	if at > 0 && isAlnum(s[at-1]) {
		return spans
	}
	var buf [64]span
	args := lineArgs(s, at, buf[:])
	k := 0
	for k < len(args) && args[k].end < end {
		k++
	}
	if k == len(args) {
		return spans
	}
	switch s[at:end] {
	case "--body":
		// gh secret set NAME --body VALUE, and not the body of an issue.
		if !onLine(s, at, "secret") {
			return spans
		}
		if a := args[k]; a.end > end && s[end] == '=' {
			return appendArgSecret(s, span{end + 1, a.end}, spans)
		}
		fallthrough
	case "add-authtoken", ":_authToken", "npmAuthToken":
		// The token is the next argument, not the value of a pair
		// (_authToken=…), which the pair matcher reads.
		if args[k].end == end && k+1 < len(args) {
			return appendArgSecret(s, args[k+1], spans)
		}
		return spans
	}
	return setSecrets(s, args[k+1:], spans)
}

// appendArgSecret appends the argument a when it may be a secret: not a
// flag, a variable, a placeholder or punctuation alone (the ':' after a
// quoted key).
func appendArgSecret(s string, a span, spans []span) []span {
	v := s[a.start:a.end]
	if v == "" || v[0] == '-' || runEnd(v, 0, func(c byte) bool { return !isAlnum(c) }) == len(v) || isReference(v) ||
		isPlaceholder(v) || strings.HasPrefix(v, Redacted) {
		return spans
	}
	return append(spans, a)
}

// setSecrets appends the values set by a command that sets configuration
// or secrets: the value of NAME=value when it looksSecret or NAME is
// sensitive, and the argument after a sensitive NAME.
func setSecrets(s string, args []span, spans []span) []span {
	for i, a := range args {
		v := s[a.start:a.end]
		switch {
		case v == "" || v[0] == '-':
		case strings.IndexByte(v, '=') > 0:
			eq := strings.IndexByte(v, '=')
			if val := v[eq+1:]; looksSecret(val) || sensitiveName(v[:eq]) {
				spans = appendArgSecret(s, span{a.start + eq + 1, a.end}, spans)
			}
		case sensitiveName(v) && i+1 < len(args):
			spans = appendArgSecret(s, args[i+1], spans)
		}
	}
	return spans
}

// sensitiveName reports whether a name given to a command ends in a
// sensitive key suffix or holds one of keyPartWords as a word.
func sensitiveName(n string) bool {
	if sensitiveKeyEnd(n, len(n)) {
		return true
	}
	low := strings.ToLower(n)
	for _, w := range keyPartWords {
		if i := strings.Index(low, w); i >= 0 && keyWordStarts(n, i) {
			return true
		}
	}
	return false
}

// nearCredentialWordAt redacts a random token that stands on its own
// after a word that says a credential follows, as in "your API key:
// …", "the password is …" or a table whose header names a password: on
// the word's line or the two after it, within credentialReach bytes. The
// word stands alone, not as part of a key (db_password:) or a longer
// word (passwordless). The token must look far more random than a
// pair's value (strongRandom), as nothing but its neighbourhood tells it
// is a secret.
func nearCredentialWordAt(s string, at, end int, spans []span) []span {
	e, ok := credentialWordEnd(s, at, end)
	if !ok {
		return spans
	}
	limit := min(len(s), e+credentialReach)
	lines := 0
	for i := e; i < limit; {
		c := s[i]
		if c == '\\' && i+1 < limit {
			// An escape in a JSON string, \n a line's end.
			c, i = s[i+1], i+1
		}
		if c == '\n' {
			if lines++; lines > 2 {
				break
			}
		}
		if c == 'E' && strings.HasPrefix(s[i:], "ENC[") {
			// A value sops encrypted: its data, iv and tag are
			// ciphertext, not secrets.
			if j := strings.IndexByte(s[i:limit], ']'); j > 0 {
				i += j + 1
				continue
			}
		}
		if c == 'u' && s[i-1] == '\\' {
			// A \uXXXX escape: its hexadecimal digits start no token.
			i += 5
			continue
		}
		if !isCandidateByte(c) || s[i-1] == '\\' {
			i++
			continue
		}
		j := runEnd(s[:limit], i, isCandidateByte)
		j = runEnd(s[:limit], j, func(c byte) bool { return c == '=' })
		t := j
		for t > i && s[t-1] == '.' {
			t--
		}
		if s[i-1] != '/' && s[i-1] != '@' && strongRandom(s[i:t]) {
			// Not a part of a path, a URL or an address.
			spans = append(spans, span{i, t})
		}
		i = j
	}
	return spans
}

// credentialWordEnd returns where the credential word of the keyword at
// s[at:end] ends, with its plural's 's', when it stands alone: not after
// a byte of a key (but after a \uXXXX escape), and not before one or
// before a '.' that joins a name.
func credentialWordEnd(s string, at, end int) (int, bool) {
	if at > 0 && isKeyByte(s[at-1]) && !afterEscape(s, at) {
		return 0, false
	}
	e, ok := wordEnd(s, end)
	if !ok {
		return 0, false
	}
	if e < len(s) && s[e] == 's' {
		e++
	}
	if e < len(s) && (isKeyByte(s[e]) || s[e] == '.' && e+1 < len(s) && isAlnum(s[e+1])) {
		return 0, false
	}
	return e, true
}

// afterEscape reports whether a \uXXXX escape ends at i, as the \u003e
// of <password> does in a JSON string that Go wrote.
func afterEscape(s string, i int) bool {
	return i >= 6 && s[i-6] == '\\' && s[i-5] == 'u'
}

// credentialReach is how far after a credential word a token may stand.
const credentialReach = 240

func isCandidateByte(c byte) bool { return isAlnum(c) || strings.IndexByte("-_+/.~", c) >= 0 }

// strongRandom reports whether a token found near a credential word
// alone looks random enough to be a secret: 12 to 120 bytes, letters and
// digits, not hexadecimal only (a commit or a digest), no UUID, path,
// algorithm/id or prefixed id (msg_…, call_…), mixed case or long, and a
// Shannon entropy of 3.5 bits or more, or half a bit less than the most
// its length allows when that is less (a random string of 14 bytes
// seldom reaches 3.5).
func strongRandom(v string) bool {
	if len(v) < 12 || len(v) > 120 || v[0] == '/' || v[0] == '.' || v[0] == '-' || strings.Contains(v, "//") {
		return false
	}
	if runEnd(v, 0, isHex) == len(v) || isUUID(v) || prefixedID(v) || pathLike(v) || !looksSecret(v) {
		return false
	}
	upper, lowerCase, digit := false, false, false
	for i := range len(v) {
		c := v[i]
		upper = upper || c >= 'A' && c <= 'Z'
		lowerCase = lowerCase || c >= 'a' && c <= 'z'
		digit = digit || c >= '0' && c <= '9'
	}
	e := entropy(v)
	return e >= min(3.5, math.Log2(float64(len(v)))-0.5) && (upper && lowerCase && digit || len(v) >= 20 && digit && e >= 4)
}

// pathLike reports whether v starts as a path or a name with a slash
// does, as rsa4096/3AA5C34371567BD2 does: lower-case letters and digits
// and then '/'.
func pathLike(v string) bool {
	i := runEnd(v, 0, func(c byte) bool { return isLowerLetter(c) || isDigit(c) })
	return i > 0 && i < len(v) && v[i] == '/'
}

// prefixedID reports whether v starts with a short lower-case word and
// '_' or '-', as the ids of messages, calls, files and runs do.
func prefixedID(v string) bool {
	i := runEnd(v, 0, isLowerLetter)
	return i >= 2 && i <= 12 && i < len(v) && (v[i] == '_' || v[i] == '-')
}

// isTimestamp reports whether v starts with a date, 2026-10-02.
func isTimestamp(v string) bool {
	return len(v) >= 10 && v[4] == '-' && v[7] == '-' && runEnd(v, 0, isDigit) == 4 && runEnd(v, 5, isDigit) == 7 && runEnd(v, 8, isDigit) == 10
}

// directiveValueAt redacts the value of a directive of a daemon's or a
// device's configuration, a word that ends in a sensitive one and its
// value after blanks rather than a separator: msmtp's password VALUE,
// mbsync's Pass VALUE, Fluent Bit's http_Passwd VALUE, snmpd's
// rocommunity VALUE, strongSwan's : PSK "VALUE", fetchmail's with
// password "VALUE" and Cisco's password 0 VALUE (a digit, the kind of
// the value, may come first). The directive is the word the keyword at
// s[at:end] ends; its value must look random, and when unquoted be a
// token as random as one near a credential word is (strongRandom) and
// no qualified name, as only the word before it tells it from prose
// ("the password twice", "pass ed25519.PrivateKey") or from a field of
// code (masterSecret []byte).
func directiveValueAt(s string, at, end int, spans []span) []span {
	e, ok := wordEnd(s, runStart(s[:end], end, func(c byte) bool { return !isAlpha(c) }))
	if !ok || e >= len(s) || !isBlank(s[e]) {
		return spans
	}
	v := runEnd(s, e, isBlank)
	if v+1 < len(s) && isDigit(s[v]) && isBlank(s[v+1]) {
		v = runEnd(s, v+1, isBlank) // Cisco's 0 (plain text) or 7
	}
	var ve int
	quoted := true
	switch {
	case strings.HasPrefix(s[v:], `\"`):
		v += 2
		ve = quotedValueEnd(s, v, '"')
	case v < len(s) && (s[v] == '"' || s[v] == '\''):
		v++
		ve = quotedValueEnd(s, v, s[v-1])
	default:
		ve, quoted = runEnd(s, v, isArgByte), false
		for ve > v && s[ve-1] == ';' {
			ve--
		}
	}
	val := s[v:ve]
	if val == "" || isReference(val) || isPlaceholder(val) || strings.ContainsAny(val, " \t\n") || !looksRandom(val) ||
		!quoted && (runEnd(val, 0, isCandidateByte) < len(val) || qualifiedName(val) || !strongRandom(val)) {
		return spans
	}
	return appendArgSecret(s, span{v, ve}, spans)
}

// qualifiedName reports whether v holds a '.' before a letter, as a
// name qualified by its package (ed25519.PrivateKey) or a host does.
func qualifiedName(v string) bool {
	for i := 0; i+1 < len(v); i++ {
		if v[i] == '.' && isAlpha(v[i+1]) {
			return true
		}
	}
	return false
}

// xmlElementAt redacts the text of an XML element whose name holds the
// keyword at s[at:end] and ends in a sensitive word, as a .NET or Java
// application's configuration writes it: <ApiKey>…</ApiKey>,
// <db.password>…</db.password>, its brackets escaped (\u003c) in a JSON
// string that Go wrote too. A weak name (…Key) asks for a random text.
func xmlElementAt(s string, at, end int, spans []span) []span {
	lt, gt := "<", ">"
	open := runStart(s, at, isKeyPartByte)
	name := runEnd(s, end, isKeyPartByte)
	if open > 0 && s[open-1] == '\\' && strings.HasPrefix(s[open:], "u003c") {
		open, lt, gt = open+5, `\u003c`, `\u003e`
	}
	if !strings.HasSuffix(s[:open], lt) || !strings.HasPrefix(s[name:], gt) {
		return spans
	}
	v := name + len(gt)
	ve := v + strings.Index(s[v:], lt)
	strength := keyStrength(s, name)
	if ve <= v || !strings.HasPrefix(s[ve+len(lt):], "/"+s[open:name]+gt) || strength == keyPlain {
		return spans
	}
	val := s[v:ve]
	if isReference(val) || isPlaceholder(val) || strength == keyWeak && !looksRandom(val) {
		return spans
	}
	return appendArgSecret(s, span{v, ve}, spans)
}

// walletKeysAt redacts the private keys in the array whose "[" and first
// quote are at s[at:end], as Hardhat's and Truffle's configurations list
// a network's accounts: accounts: ["0x<64 hex digits>", …]. A hash of
// a block or a transaction has the same shape, so the array's key must
// name accounts or keys.
func walletKeysAt(s string, at, end int, spans []span) []span {
	sep := runStart(s, at, isBlank) - 1
	if sep < 1 || s[sep] != ':' && s[sep] != '=' {
		return spans
	}
	k, _ := keyEnd(s, sep)
	if k <= 0 || (s[k-1]|0x20 != 's' || !hasSuffixLower(s[:k], "accounts")) && keyStrength(s, k) == keyPlain {
		return spans
	}
	for i := end - 2; i+66 <= len(s) && s[i] == '0' && s[i+1] == 'x'; {
		if runEnd(s[:i+66], i+2, isHex) != i+66 || i+66 < len(s) && isAlnum(s[i+66]) {
			break
		}
		spans = append(spans, span{i, i + 66})
		// The next key of the array, after its closing quote and a ','.
		j := runEnd(s, runEnd(s, i+66, func(c byte) bool { return c == '"' || c == '\'' || c == '\\' }), func(c byte) bool { return c == ',' || isArgSpace(c) })
		i = runEnd(s, j, func(c byte) bool { return c == '"' || c == '\'' || c == '\\' })
		if i == j {
			break
		}
	}
	return spans
}
