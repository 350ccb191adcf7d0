package recorder

import "strings"

// urlSecretAt matches the secret of a URL's user information whose '@'
// is at p: its password (userinfoAt), or a user that is itself a random
// token, as in https://TOKEN@host/. A password may hold an unescaped
// '@': the user information then runs to the last '@' before the host,
// as clients read it.
func urlSecretAt(s string, p int) (span, bool) {
	m, ok := userinfoAt(s, p)
	if ok && isPlaceholder(s[m.start:m.end]) {
		return span{}, false
	}
	if ok {
		for q := runEnd(s, p+1, isUserinfoByte); q < len(s) && s[q] == '@'; q = runEnd(s, q+1, isUserinfoByte) {
			m.end = q
		}
		return m, true
	}
	a := userinfoStart(s, p)
	if a < 4 || s[a-3:a] != "://" || !isAlnum(s[a-4]) || p-a < 20 {
		return span{}, false
	}
	if user := s[a:p]; looksSecret(user) && !hostLike(user) && !strings.HasPrefix(user, Redacted) {
		return span{a, p}, true
	}
	return span{}, false
}

// colonOrURLKeyAt matches what colonSecretAt does at the ':' at p, the
// key in the path of a provider's endpoint (endpointKeyAt), and the
// secret key given after a URL to one of urlKeyCommands.
func colonOrURLKeyAt(s string, p int) (span, bool) {
	if m, ok := colonSecretAt(s, p); ok {
		return m, ok
	}
	if m, ok := endpointKeyAt(s, p); ok {
		return m, ok
	}
	if !webURLAfterBlank(s, p) {
		return span{}, false
	}
	return urlKeySecretAt(s, p)
}

// webURLAfterBlank reports whether the ':' at p ends the scheme of an
// http or https URL that follows a blank, as a command's argument does.
func webURLAfterBlank(s string, p int) bool {
	return p >= 5 && s[p-1] == 'p' && s[p-5] == ' ' || p >= 6 && s[p-1] == 's' && s[p-6] == ' '
}

// flagSecretAt matches what dashSecretAt does at the '-' at p, and, by
// the byte before it, a LaunchDarkly key (sdk-… or mob-… and a UUID), the
// value of a long flag whose name ends in a weak sensitive word
// (--account-key, --signing-key) when the value looks random, and the
// value of a command's password flag of commandFlags.
func flagSecretAt(s string, p int) (span, bool) {
	if m, ok := dashSecretAt(s, p); ok || p == 0 || !moreDashPrev[s[p-1]] {
		return keyAsUser(s, m, ok)
	}
	return moreDashSecretAt(s, p)
}

// keyAsUser turns the match m of a password that is an x after a ':',
// as in curl's -u user:x, into the user before it: an API key given as
// the user with an x for the password, as BambooHR and Freshdesk take
// it, when it looks random. Any other match is returned as it is.
func keyAsUser(s string, m span, ok bool) (span, bool) {
	if !ok || m.end != m.start+1 || s[m.start] != 'x' || m.start == 0 || s[m.start-1] != ':' {
		return m, ok
	}
	c := m.start - 1
	u := c
	for u > 0 && isArgByte(s[u-1]) {
		u--
	}
	return span{u, c}, looksRandom(s[u:c]) && !strings.HasPrefix(s[u:], Redacted)
}

// moreDashPrev holds true for the bytes before the '-' of what
// moreDashSecretAt matches.
var moreDashPrev = [256]bool{'k': true, 'b': true, '-': true, ' ': true}

// moreDashSecretAt is what flagSecretAt matches beyond dashSecretAt.
func moreDashSecretAt(s string, p int) (span, bool) {
	if p < 1 {
		return span{}, false
	}
	switch s[p-1] {
	case 'k', 'b':
		if p >= 3 && (s[p-2] == 'd' || s[p-2] == 'o') {
			return launchDarklyKeyAt(s, p)
		}
	case '-':
		if m, ok := escapedCurlUserAt(s, p); ok {
			return m, ok
		}
		if p >= 2 && s[p-2] == '"' {
			return argvFlagAt(s, p)
		}
		return weakFlagAt(s, p)
	case ' ':
		if p+3 < len(s) && s[p+2] == ' ' {
			if m, ok := escapedCurlUserAt(s, p); ok {
				return m, ok
			}
			return commandFlagAt(s, p)
		}
		return oneDashFlagAt(s, p)
	}
	return span{}, false
}

// argvFlagAt matches the value of a long flag named for a secret, whose
// second '-' is at p, in a command written as a JSON array of arguments,
// as a tool call passes one: ["deploy", "--secret", "…"]. The flag and
// the value are the array's strings, their quotes escaped or not; the
// value of a weak word (--key) must look random.
func argvFlagAt(s string, p int) (span, bool) {
	if p+1 >= len(s) || !isAlpha(s[p+1]) {
		return span{}, false
	}
	n := runEnd(s, p+1, isKeyByte)
	strength := keyStrength(s, n)
	if strength == keyPlain {
		return span{}, false
	}
	escaped := p >= 3 && s[p-3] == '\\'
	i := n
	if escaped {
		i++
	}
	if i >= len(s) || s[i] != '"' {
		return span{}, false
	}
	i = runEnd(s, i+1, isBlank)
	if i >= len(s) || s[i] != ',' {
		return span{}, false
	}
	v := runEnd(s, i+1, isArgSpace)
	if escaped {
		if !strings.HasPrefix(s[v:], `\"`) {
			return span{}, false
		}
		v++
	}
	if v >= len(s) || s[v] != '"' {
		return span{}, false
	}
	v++
	end := quotedValueEnd(s, v, '"')
	val := s[v:end]
	if val == "" || val[0] == '-' || isReference(val) || isPlaceholder(val) || strings.HasPrefix(val, Redacted) ||
		strength == keyWeak && !looksRandom(val) {
		return span{}, false
	}
	// An array's string, not an object's key: a ',' or the ']' follows.
	if after := runEnd(s, pastQuote(s, end), isArgSpace); after < len(s) && s[after] != ',' && s[after] != ']' {
		return span{}, false
	}
	return span{v, end}, true
}

// oneDashFlagAt matches the value of a flag of one '-' and four letters
// or more, whose '-' is at p after a blank that follows a command (so
// not at the text's second byte, which dashSecretHere skips), named for
// a secret, as erl's -setcookie is, when the value looks random.
func oneDashFlagAt(s string, p int) (span, bool) {
	if p < 2 {
		return span{}, false
	}
	n := runEnd(s, p+1, isLowerLetter)
	if n-p-1 < 4 || n >= len(s) || s[n] != ' ' || keyStrength(s, n) == keyPlain {
		return span{}, false
	}
	m, ok := flagValueAt(s, runEnd(s, n, isBlank))
	if !ok {
		return span{}, false
	}
	v := s[m.start:m.end]
	return m, looksRandom(v) && !isPlaceholder(v)
}

// escapedCurlUserAt matches the password of curl's -u or --user
// "user:password", whose '-' (the second of --user) is at p, in a
// command inside a JSON string, whose quotes are escaped (twice in a
// JSON string inside another).
func escapedCurlUserAt(s string, p int) (span, bool) {
	var n int
	switch {
	case s[p-1] == ' ' && s[p+1] == 'u':
		n = p + 2
	case s[p-1] == '-' && strings.HasPrefix(s[p+1:], "user "):
		n = p + len("-user ")
	default:
		return span{}, false
	}
	v := runEnd(s, n, isBlank)
	q := runEnd(s, v, func(c byte) bool { return c == '\\' })
	if q == v || q >= len(s) || s[q] != '"' {
		return span{}, false
	}
	m, ok := curlPasswordAt(s, p, q)
	return keyAsUser(s, m, ok)
}

// launchDarklyKeyAt matches a LaunchDarkly SDK or mobile key, sdk- or
// mob- and a UUID, whose '-' is at p.
func launchDarklyKeyAt(s string, p int) (span, bool) {
	if p < 3 || s[p-3:p] != "sdk" && s[p-3:p] != "mob" || !boundaryBefore(s, p-3) || len(s)-p < 37 {
		return span{}, false
	}
	end := p + 37
	if !isUUID(s[p+1:end]) || end < len(s) && isKeyByte(s[end]) {
		return span{}, false
	}
	return span{p - 3, end}, true
}

// weakFlagAt matches the value of a long flag whose second '-' is at p
// and whose name ends in a weak sensitive word, when the value looks
// random or is a UUID (cypress run --key, a record key).
func weakFlagAt(s string, p int) (span, bool) {
	if p < 2 || s[p-1] != '-' || !isArgSpace(s[p-2]) {
		return span{}, false
	}
	n := runEnd(s, p+1, isKeyByte)
	if n >= len(s) || s[n] != ' ' {
		return span{}, false
	}
	if s[p+1:n] == valueKey {
		return namedFlagValueAt(s, p, n)
	}
	if keyStrength(s, n) != keyWeak {
		return span{}, false
	}
	m, ok := flagValueAt(s, runEnd(s, n, isBlank))
	if !ok {
		return span{}, false
	}
	v := s[m.start:m.end]
	return m, (looksRandom(v) || isUUID(v)) && !isPlaceholder(v)
}

// callSecretAt matches what callArgsSecretAt does at the '(' at p, and the
// value a call sets a sensitive name to, as in
// Header.Set("X-Api-Key", "…"), setProperty("db.password", "…") or
// setItem('token', '…'): two quoted arguments, the first a name ending
// in a sensitive word. A weak word (key, sig) asks for a random value,
// a strong one a value that is not a word or a phrase, as in
// slog.Warn("login failed", "token", "expired"); an authorization keeps
// its scheme. Both read the first argument as a quoted run of the bytes
// of callArgBytes, up to its quote, a ':' (as in an Ably key) or an '@'
// (as in a login's address): one pass over it tells most calls, which
// pass a message, from either. A blank may follow the '(', as in
// define( 'AUTH_KEY', '…' ).
func callSecretAt(s string, p int) (span, bool) {
	i := p + 1
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i+1 < len(s) && s[i] == 'b' && quoteBytes[s[i+1]] {
		// Bytes, as in b64encode(b"…"): a key in Python is often
		// passed as bytes.
		i++
	}
	esc := quoteEscape(s, i)
	i += esc
	if i >= len(s) || s[i] != '"' && s[i] != '\'' {
		return span{}, false
	}
	q, b := s[i], i+1
	n, name := b, true
	for n < len(s) && callArgBytes[s[n]] != 0 {
		name = name && callArgBytes[s[n]] == 1
		n++
	}
	close, ok := firstArgClose(s, n, q, esc)
	if !ok {
		return span{}, false
	}
	if name && n > b && s[close] == q {
		if m, ok := namedCallArg(s, n, close, q, esc); ok {
			return m, ok
		}
	}
	if n-b < minKeyArg && s[close] == q && !quotedArgAfter(s, close+1) {
		// One short argument, as in t.Run("name", …): no key.
		return span{}, false
	}
	return callArgsSecretAt(s, p)
}

// firstArgClose returns where the quote q that closes a call's first
// argument, whose bytes of callArgBytes end at n, stands, escaped by esc
// backslashes as the opening one is, or n when the argument goes on past
// a ':' (as an Ably key's name does),
// an '@' (as a login's address does) or a ',' (as an LDAP bind's DN
// does), which callArgsSecretAt reads; false when none follows.
func firstArgClose(s string, n int, q byte, esc int) (int, bool) {
	if n < len(s) && (s[n] == ':' || s[n] == '@' || s[n] == ',') {
		return n, true
	}
	close := n
	if esc > 0 {
		if quoteEscape(s, close) != esc {
			return 0, false
		}
		close += esc
	}
	return close, close < len(s) && s[close] == q
}

// quotedArgAfter reports whether another quoted argument follows a call's
// argument that ends at i: a ',' and a quote, escaped or not.
func quotedArgAfter(s string, i int) bool {
	i = runEnd(s, i, isSpace)
	if i >= len(s) || s[i] != ',' {
		return false
	}
	i = runEnd(s, i+1, isSpace)
	return i < len(s) && (s[i] == '"' || s[i] == '\\' || s[i] == '\'')
}

// callArgBytes holds 1 for each byte of a name (isKeyPartByte), 2 for the
// other bytes of a call's random argument (isCallArgByte), 0 for others.
var callArgBytes = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case isKeyPartByte(byte(c)):
			t[c] = 1
		case isCallArgByte(byte(c)):
			t[c] = 2
		}
	}
	return t
}()

// namedCallArg matches the quoted value after a call's first argument, a
// name that ends at n and whose quote q closes at close (callSecretAt).
func namedCallArg(s string, n, close int, q byte, esc int) (span, bool) {
	strength := keyStrength(s, n)
	if strength == keyPlain {
		return span{}, false
	}
	v := runEnd(s, close+1, isSpace)
	if v >= len(s) || s[v] != ',' {
		return span{}, false
	}
	v = runEnd(s, v+1, isSpace)
	if esc > 0 && quoteEscape(s, v) == esc {
		v += esc
	}
	if v >= len(s) || s[v] != q {
		return span{}, false
	}
	v++
	end := quotedValueEnd(s, v, q)
	if hasSuffixLower(s[:n], "authorization") {
		v, end = authorizationCredential(s, v, end, false)
	}
	val := s[v:end]
	if val == "" || isReference(val) || isPlaceholder(val) || isLiteral(val) || namesKey(val) || strings.HasPrefix(val, Redacted) ||
		strength == keyWeak && !looksRandom(val) || wordOrPhrase(val) {
		return span{}, false
	}
	return span{v, end}, true
}

// wordOrPhrase reports whether v, made of letters and blanks only, is a
// word or a phrase rather than random letters: it holds a blank, or is
// short, or changes case less often than every third letter (random
// letters of both cases change about every other one).
func wordOrPhrase(v string) bool {
	if runEnd(v, 0, func(c byte) bool { return isAlpha(c) || c == ' ' }) != len(v) {
		return false
	}
	return len(v) < 12 || strings.IndexByte(v, ' ') >= 0 || !randomCase(v)
}

// randomCase reports whether the letters of v change case at least every
// third byte, as random letters of both cases do (about every other one)
// and words and camel-case names do not.
func randomCase(v string) bool {
	switches := 0
	for i := 1; i < len(v); i++ {
		if isUpperLetter(v[i]) != isUpperLetter(v[i-1]) {
			switches++
		}
	}
	return 3*switches >= len(v)
}

// endpointKeys are the providers whose endpoints take a key in their
// URLs' path: the host's last labels, the path before the key, and the
// key's least length.
var endpointKeys = [...]struct {
	host, path string
	min        int
}{
	{".infura.io", "/v3/", 32},
	{".alchemy.com", "/v2/", 32},
	{".loggly.com", "/inputs/", 36},
	{".loggly.com", "/bulk/", 36},
}

// endpointKeyAt matches the key in the path of the URL whose "://" starts
// at p when its host is one of endpointKeys', as in
// https://mainnet.infura.io/v3/KEY.
func endpointKeyAt(s string, p int) (span, bool) {
	if !strings.HasPrefix(s[p:], "://") {
		return span{}, false
	}
	return endpointKeyIn(s, p+3, runEnd(s, p+3, isUserinfoByte))
}

// endpointKeyIn matches what endpointKeyAt does in a URL whose host
// starts at h and whose authority ends at e, at the '/' of its path.
func endpointKeyIn(s string, h, e int) (span, bool) {
	if e+2 > len(s) || s[e] != '/' {
		return span{}, false
	}
	if c := s[e+1]; c != 'v' && c != 'i' && c != 'b' {
		return span{}, false // every path of endpointKeys starts so
	}
	host := s[h:e]
	for _, k := range endpointKeys {
		if strings.HasSuffix(host, k.host) && strings.HasPrefix(s[e:], k.path) {
			v := e + len(k.path)
			if end := runEnd(s, v, isKeyByte); end-v >= k.min {
				return span{v, end}, true
			}
		}
	}
	return span{}, false
}

// urlPathKeyAt redacts the path segment after the segment at s[at:end]
// ("/hooks/" or "/key/") of a URL, which names the key that follows it,
// as Mattermost's and IFTTT's webhook URLs do: sixteen bytes
// or more that look like a secret (looksSecret), not an id of digits,
// with its base64 padding. After a host that takes a key in its path
// (Ankr's and QuickNode's RPC endpoints, Sumo Logic's collectors), the
// key is the first segment long enough to be one (urlPathKeyLen), after
// those that name a chain or an API's version.
// The segment must be part of a URL, one whose "://" stands before it
// within urlPathReach bytes and no blank or quote.
func urlPathKeyAt(s string, at, end int, spans []span) []span {
	from := max(0, at-urlPathReach)
	u := strings.LastIndex(s[from:at], "://")
	if u < 0 || strings.ContainsAny(s[from+u:at], " \t\n\"'") {
		return spans
	}
	host := s[at] != '/'
	if host {
		// The keyword is part of the host's name: the path starts after
		// the rest of it.
		if strings.IndexByte(s[from+u+3:at], '/') >= 0 {
			return spans
		}
		end = runEnd(s, end, isKeyPartByte)
		if end >= len(s) || s[end] != '/' {
			return spans
		}
		end++
	}
	if s[end-1] != '/' {
		if end >= len(s) || s[end] != '/' {
			return spans
		}
		end++ // the keyword "/hooks" leaves out its '/'
	}
	e := runEnd(s, end, isKeyByte)
	for n := 0; host && n < 4 && e-end < urlPathKeyLen && e < len(s) && s[e] == '/'; n++ {
		end = e + 1
		e = runEnd(s, end, isKeyByte)
	}
	if e-end < 16 || !looksSecret(s[end:e]) || strings.HasPrefix(s[end:], Redacted) {
		return spans
	}
	return append(spans, span{end, runEnd(s, e, func(c byte) bool { return c == '=' })})
}

// urlPathReach is how far before a path segment a URL's "://" may stand.
const urlPathReach = 200

// urlPathKeyLen is the length of the shortest key urlPathKeyAt takes in
// the path of a host that takes one there.
const urlPathKeyLen = 24
