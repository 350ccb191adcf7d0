package recorder

import (
	"math"
	"strings"
)

// callArgsReach is how many quoted arguments of a call callArgsSecretAt
// reads.
const callArgsReach = 4

// callArgsSecretAt matches the secrets among the quoted positional
// arguments of the call whose '(' is at p, as SDKs take them: a key or
// token passed to a call whose name says it takes one (TodoistAPI("…"),
// rollbar.init("…", "production"), plivo.RestClient(id, "…")); the
// argument after an application or account id (algoliasearch("APPID",
// "…")); the password of a login call or of an auth tuple
// (client.login(user, "…"), auth=("neo4j", "…")); and, in any call, an
// argument of 24 bytes or more as random as base64 is (randomCallArg).
// The match runs from the first secret argument to the end of the last,
// so that one marker stands for all of them. A call that decodes its
// argument (Buffer.from, b64decode) or names an encoding ("base64")
// passes data, and one whose name says public a public key, not a
// secret.
func callArgsSecretAt(s string, p int) (span, bool) {
	var buf [callArgsReach]span
	args := quotedCallArgs(s, p, buf[:0])
	// Most calls pass short words, names or phrases: told before the
	// callee's name is read.
	long, second := false, false
	for i, a := range args {
		v := s[a.start:a.end]
		if encodingName(v) {
			return span{}, false
		}
		if len(v) >= minPassword && strings.IndexByte(v, ' ') < 0 {
			long = long || len(v) >= minKeyArg
			second = second || i == 1
		}
	}
	if !long && !second {
		return span{}, false
	}
	kind := calleeKind(s, p)
	if kind == calleeNoKey || !long && kind != calleePassword {
		return span{}, false
	}
	first := s[args[0].start:args[0].end]
	m := span{-1, -1}
	for i, a := range args {
		v := s[a.start:a.end]
		// A random argument right after a key passed to a call that
		// takes one is its passphrase, as exchanges' clients take a
		// key, a secret and then a passphrase, random letters too.
		passphrase := kind == calleeCredential && m.end >= 0 && i > 0 && m.end == args[i-1].end &&
			(looksSecret(v) || len(v) >= 12 && runEnd(v, 0, isAlpha) == len(v) && randomCase(v))
		if !passphrase && !callArgSecret(v, i, kind, first) {
			continue
		}
		if m.start < 0 {
			m.start = a.start
		}
		m.end = a.end
	}
	return m, m.start >= 0
}

// callArgSecret reports whether v, the i-th quoted argument of a call of
// the given callee kind whose first argument is first, is a secret.
func callArgSecret(v string, i int, kind int, first string) bool {
	password := kind == calleePassword && i == 1
	if len(v) < minPassword || !password && len(v) < minKeyArg || strings.ContainsAny(v, " \t") || isReference(v) ||
		isPlaceholder(v) || isLiteral(v) || strings.HasPrefix(v, Redacted) || publicKey(v) {
		return false
	}
	switch {
	case password:
		return true
	case kind == calleeCredential || i == 1 && appID(first):
		return keyLike(v)
	}
	return len(v) >= 24 && randomCallArg(v)
}

// publicKeyPrefixes start the keys that providers make public, to be
// shipped in web pages and apps: Stripe's publishable keys and
// PostHog's project keys.
var publicKeyPrefixes = [...]string{"pk_live_", "pk_test_", "phc_"}

// publicKey reports whether v starts as a public key of
// publicKeyPrefixes does.
func publicKey(v string) bool {
	for _, p := range publicKeyPrefixes {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// minPassword is the length of the shortest password a login call or
// auth tuple is taken to pass, and minKeyArg that of the shortest key
// any other call is.
const (
	minPassword = 6
	minKeyArg   = 16
)

// Callee kinds, from the name of the called function (calleeKind).
const (
	calleePlain      = iota
	calleeCredential // takes a key or token: Client, TodoistAPI, init, configure
	calleePassword   // takes a user and a password: login, an auth=(…) tuple
	calleeNoKey      // decodes its argument (Buffer.from, b64decode) or takes a public key
)

// credentialCallees are words that, in the last part of a called
// function's name, in lower case, say it takes a key or a token: a
// client, an SDK's setup, and the services that take a key to build
// one, as a geocoder (OpenCageGeocode, Geocoder) and a chain's
// provider (EtherscanProvider) do.
var credentialCallees = [...]string{
	"client", "api", "key", "secret", "token", "auth", "credential", "init", "configure", "connect", "sdk", "geocod",
	"provider",
}

// passwordCallees are the last parts of the names of functions that take
// a user and then a password, in lower case: logins, and the simple binds
// of LDAP clients, which take a DN and its password.
var passwordCallees = [...]string{
	"login", "signin", "sign_in", "authenticate", "basic_auth", "basicauth", "setbasicauth", "simple_bind", "bind_s",
}

// decodingCallees are the last parts of the names of functions that
// decode data, in lower case.
var decodingCallees = [...]string{"from", "fromhex", "atob", "b64decode", "decode", "unhexlify", "a2b_base64", "decodestring", "parse"}

// tupleKeys are the keys whose value is a (user, password) tuple, as in
// requests' auth=("user", "…").
var tupleKeys = [...]string{"auth", "basic_auth", "http_auth", "credentials"}

// calleeKind returns the kind of the function called at the '(' at p,
// from the last part of its name (calleeName), or calleePassword for a
// tuple given as auth=.
func calleeKind(s string, p int) int {
	n := p
	for n > 0 && s[n-1] == ' ' {
		n--
	}
	if n > 0 && s[n-1] == '=' {
		k := n - 1
		for k > 0 && s[k-1] == ' ' {
			k--
		}
		key := s[keyStart(s, k):k]
		for _, t := range tupleKeys {
			if len(key) == len(t) && equalLower(key, t) {
				return calleePassword
			}
		}
		return calleePlain
	}
	name := calleeName(s, n)
	if indexLower(name, "public") >= 0 {
		return calleeNoKey // as in setPublicKey("…")
	}
	for _, w := range passwordCallees {
		if hasSuffixLower(name, w) {
			return calleePassword
		}
	}
	for _, w := range decodingCallees {
		if len(name) == len(w) && equalLower(name, w) {
			return calleeNoKey
		}
	}
	for _, w := range credentialCallees {
		if indexLower(name, w) >= 0 {
			return calleeCredential
		}
	}
	return calleePlain
}

// calleeName returns the last part of the name of the function whose
// name ends at n, or, for Ruby's Foo::Client.new, the part before new.
func calleeName(s string, n int) string {
	k := max(keyStart(s, n), n-40)
	if s[k:n] == "new" && k > 0 && (s[k-1] == '.' || s[k-1] == ':') {
		e := k - 1
		if s[e] == ':' && e > 0 && s[e-1] == ':' {
			e--
		}
		return s[max(keyStart(s, e), e-40):e]
	}
	return s[k:n]
}

// quotedCallArgs appends the quoted arguments of the call whose '(' is at
// p, up to the first argument that is not a quoted string (a keyword
// argument, a variable) or the call's ')', at most cap(args). Quotes may
// be escaped, as in a JSON string, once or again in a JSON string inside
// another; an argument runs to the quote that closes it on its line.
func quotedCallArgs(s string, p int, args []span) []span {
	i := p + 1
	for len(args) < cap(args) {
		i = pastLiteralPrefix(s, runEnd(s, i, isBlank))
		esc := quoteEscape(s, i)
		i += esc
		if i >= len(s) || s[i] != '"' && s[i] != '\'' {
			return args
		}
		q := s[i]
		b := i + 1
		e := b
		for e < len(s) && s[e] != q && s[e] != '\n' && (s[e] != '\\' || esc > 0 && unicodeEscape(s, e)) {
			e++
		}
		c := e
		if esc > 0 {
			if quoteEscape(s, c) != esc {
				return args
			}
			c += esc
		}
		if c >= len(s) || s[c] != q {
			return args
		}
		args = append(args, span{b, e})
		i = runEnd(s, c+1, isBlank)
		if i >= len(s) || s[i] != ',' {
			return args
		}
		i++
	}
	return args
}

// unicodeEscape reports whether a \uXXXX escape starts at i, as a JSON
// string that Go wrote holds for '&', '<' and '>', its backslash escaped
// again or not (two backslashes at most, so that a long run of them
// costs no more than a short one).
func unicodeEscape(s string, i int) bool {
	if i+1 < len(s) && s[i+1] == '\\' {
		i++
	}
	return i+6 <= len(s) && s[i+1] == 'u' && runEnd(s[:i+6], i+2, isHex) == i+6
}

// quoteEscape returns how many backslashes escape a quote at i: none, one
// in a JSON string, three in a JSON string inside another; 0 when no
// quote follows them.
func quoteEscape(s string, i int) int {
	if i >= len(s) || s[i] != '\\' {
		return 0 // most calls' arguments: told without a loop
	}
	e := i + 1
	for e < len(s) && s[e] == '\\' {
		e++
	}
	if e >= len(s) || s[e] != '"' && s[e] != '\'' {
		return 0
	}
	return e - i
}

// encodingName reports whether a call's argument names an encoding, as
// the "base64" of Buffer.from(data, "base64") does.
func encodingName(v string) bool {
	for _, e := range encodings {
		if len(v) == len(e) && equalLower(v, e) {
			return true
		}
	}
	return false
}

// encodings are the names of encodings that calls that decode take.
var encodings = [...]string{"base64", "base64url", "hex", "utf8", "utf-8", "binary", "latin1", "ascii"}

// appID reports whether v, a call's first argument, is an application or
// account id, as Algolia's and Plivo's are: six to thirty-two capital
// letters and digits, with both.
func appID(v string) bool {
	if len(v) < 6 || len(v) > 32 || runEnd(v, 0, isUpperAlnum) != len(v) {
		return false
	}
	return strings.ContainsAny(v, "0123456789") && strings.IndexFunc(v, func(r rune) bool { return r >= 'A' && r <= 'Z' }) >= 0
}

// keyLike reports whether v, an argument given where a key or token is
// expected, is one: sixteen bytes or more without blanks, not a URL, a
// path, a file or host name (with its port), a UUID, a date, a digest
// named by its algorithm (sha256:…) or an account's address on a chain
// (0x and 40 hexadecimal digits; a private key has 64), and either
// holding a run of 32 hexadecimal digits (as many keys are) or random:
// letters of both cases and digits, or twenty bytes or more with
// digits, and varied.
func keyLike(v string) bool {
	if len(v) < 16 || len(v) > 400 || strings.ContainsAny(v, " \t") || strings.Contains(v, "://") ||
		strings.IndexByte("/.~#", v[0]) >= 0 || isUUID(v) || isTimestamp(v) || fileLike(v) || hostPort(v) || digestNamed(v) ||
		len(v) == 42 && v[:2] == "0x" && hexRun(v[2:]) == 40 {
		return false
	}
	if hexRun(v) >= 32 {
		return true
	}
	return randomCallArg(v) || strongRandom(v)
}

// randomCallArg reports whether v is as random as a call's argument must
// be to be taken for a secret by that alone: a digit (or letters that
// change case at random, randomLetters) and a Shannon
// entropy of 4.3 bits or more (randomEntropy), as random base64 has and
// words, hexadecimal and identifiers have not, and the bytes of a token. After a name and a ':', as in an Ably
// key, the part after the ':' counts alone.
func randomCallArg(v string) bool {
	if i := strings.IndexByte(v, ':'); i >= 0 {
		if runEnd(v, 0, isKeyPartByte) != i {
			return false
		}
		v = v[i+1:]
	}
	return len(v) >= 16 && runEnd(v, 0, isCallArgByte) == len(v) && (strings.ContainsAny(v, "0123456789") || randomLetters(v)) &&
		entropy(v) >= randomEntropy(len(v))
}

// randomLetters reports whether v, which holds no digit, is as random as
// a key without one, as some of Mandrill's are: a short lower-case
// prefix and '-' or '_' (prefixedID), then twenty letters or more that
// change case as random ones do. Without the prefix, such letters are
// more often a name in camel case.
func randomLetters(v string) bool {
	if !prefixedID(v) {
		return false
	}
	rest := v[runEnd(v, 0, isLowerLetter)+1:]
	return len(rest) >= 20 && runEnd(rest, 0, isAlpha) == len(rest) && randomCase(rest)
}

// randomEntropy is the Shannon entropy a call's argument of n bytes must
// have to be taken for random: 4.3 bits, or half a bit less than the
// most that n bytes can have when that is less, as a random string of
// 24 bytes seldom reaches 4.3 bits.
func randomEntropy(n int) float64 { return min(4.3, math.Log2(float64(n))-0.5) }

// hexRun returns the length of the longest run of hexadecimal digits in
// v.
func hexRun(v string) int {
	best := 0
	for i := 0; i < len(v); {
		e := runEnd(v, i, isHex)
		best = max(best, e-i)
		i = e + 1
	}
	return best
}

// fileLike reports whether v ends as a file or host name does: a '.'
// and then one to five lower-case letters (.png, .json, .com).
func fileLike(v string) bool {
	i := strings.LastIndexByte(v, '.')
	return i >= 0 && len(v)-i-1 >= 1 && len(v)-i-1 <= 5 && runEnd(v, i+1, isLowerLetter) == len(v)
}

// hostPort reports whether v is a host name and a port, as
// db.example.com:5432 is.
func hostPort(v string) bool {
	i := strings.LastIndexByte(v, ':')
	return i > 0 && i+1 < len(v) && runEnd(v, i+1, isDigit) == len(v) && hostLike(v[:i])
}

// digestNamed reports whether v is a digest after the name of its
// algorithm, as sha256:… and sha512-… are.
func digestNamed(v string) bool {
	for _, a := range [...]string{"sha1", "sha256", "sha384", "sha512", "md5", "blake2b", "blake3"} {
		if len(v) > len(a) && equalLower(v[:len(a)], a) && (v[len(a)] == ':' || v[len(a)] == '-') {
			return true
		}
	}
	return false
}
