package recorder

import (
	"strings"
	"unicode/utf8"
)

// keySuffix is a key ending whose value is a secret. A weak one, such as
// "key" or "sig", ends many keys whose values are not, so its value is
// redacted only when it looks random (looksRandom).
type keySuffix struct {
	suf  string
	weak bool
}

// sensitiveKeySuffixes lists, by their last letter, the key endings
// whose values are secrets.
var sensitiveKeySuffixes = func() (t [26][]keySuffix) {
	for _, k := range []keySuffix{
		{"password", false}, {"passwd", false}, {"secret", false}, {"token", false}, {"authorization", false},
		{"api_key", false}, {"apikey", false}, {"api-key", false}, {"access_key", false}, {"accesskey", false},
		{"private_key", false}, {"secret_key", false}, {"secretkey", false}, {"secret-key", false},
		{"accountkey", false}, {"account_key", false}, {"secret_key_base", false}, {"auth", false},
		{"pwd", true}, {"sessionid", true}, {"salt", true}, {"key", true}, {"signature", true}, {"passphrase", true},
		{"cookie", true}, {"sig", true}, {"credentials", true}, {"creds", true}, {"pass", true}, {"credential", true},
		{"key-data", true}, {"key_data", true}, {"keydata", true},
		// A provider's key for one of its modes, as in stripe_live.
		{"_live", true}, {"_test", true}, {"_prod", true}, {"_sandbox", true},
		// A key named for what it does rather than what it is: a
		// webhook's hmac, a vault's master, an authenticator's totp or
		// the seed of its codes (TOTP_SEED), an app's certificate (one in
		// base64, MII…, is public; pairAt tells).
		{"hmac", true}, {"master", true}, {"totp", true}, {"_seed", true}, {"certificate", true},
		// Other words for a password or a credential: a passcode, a pass
		// phrase, sssd's authtok, ldap's bindpw, a pre-shared key,
		// a personal access token (GITHUB_PAT), an application id that
		// is a key (OpenWeatherMap's and Wolfram's appid) and the
		// credential a scheme names (bearer, oauth).
		{"passcode", false}, {"pass_phrase", false}, {"pass-phrase", false}, {"authtok", false}, {"bindpw", false},
		{"psk", true}, {"_pat", true}, {"-pat", true}, {"appid", true}, {"bearer", true},
		{"_oauth", true}, {"-oauth", true},
		// The word for a password, a secret, a key and a token in
		// other languages written in Latin letters; foreignKeyWords
		// holds those that end in other letters.
		{"passwort", false}, {"kennwort", false}, {"mot_de_passe", false}, {"motdepasse", false}, {"contrasena", false},
		{"contrasenya", false}, {"senha", false}, {"wachtwoord", false}, {"haslo", false}, {"heslo", false},
		{"sifre", false}, {"şifre", false}, {"losenord", false}, {"lösenord", false}, {"passord", false},
		{"adgangskode", false}, {"salasana", false}, {"jelszo", false}, {"kata_sandi", false}, {"katasandi", false},
		{"clave", true}, {"clave_api", true}, {"secreta", true}, {"segreta", true},
		{"parola_chiave", false}, {"parolachiave", false}, {"mat_khau", false}, {"matkhau", false}, {"lozinka", false},
		{"geslo", false}, {"slaptazodis", false}, {"kata_laluan", false}, {"segredo", false},
		{"chiave", true}, {"chave", true}, {"chiave_api", true}, {"chave_api", true}, {"cle_api", true}, {"jeton", true},
		// A wallet's recovery words (mnemonicPhrase).
		{"mnemonic", true}, {"seed_phrase", true}, {"seedphrase", true}, {"recovery_phrase", true},
	} {
		last := k.suf[len(k.suf)-1] - 'a'
		t[last] = append(t[last], k)
	}
	return t
}()

// penultimates holds, by the last letter of the sensitive key suffixes,
// a bit for each letter one of them has before it.
var penultimates = func() (t [len(sensitiveKeySuffixes)]uint32) {
	for i, sufs := range sensitiveKeySuffixes {
		for _, suf := range sufs {
			t[i] |= 1 << (suf.suf[len(suf.suf)-2] - 'a')
		}
	}
	t['e'-'a'] |= 1 << ('u' - 'a') // valueKey
	t['r'-'a'] |= 1 << ('e' - 'a') // userKey
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
	if k < 3 {
		return keyPlain // every suffix is longer
	}
	last := lower(s[k-1])
	if last < 'a' || last > 'y' || penultimates[last-'a']&(1<<(lower(s[k-2])-'a')) == 0 ||
		antepenultimates[last&31][s[k-2]&31]&letterBits[s[k-3]] == 0 {
		if s[k-1] >= utf8.RuneSelf || s[k-2] >= utf8.RuneSelf {
			return foreignKeyStrength(s, k)
		}
		return keyPlain
	}
	for _, suf := range sensitiveKeySuffixes[last-'a'] {
		if !hasSuffixLower(s[:k], suf.suf) {
			continue
		}
		j := k - len(suf.suf)
		switch {
		case suf.suf == "auth" && j > 0 && isAlnum(s[j-1]):
			// "auth" is a key of its own or a word after '_' or '-', as
			// in docker's "auth", never the end of a word like "oauth".
			continue
		case last == 'n' && suf.suf == "token" && listToken(s, j):
			return keyPlain
		case suf.suf == "key" && plainKeyKind(s, j):
			return keyPlain
		case suf.suf == "hmac" && s[k-1] == 'C' && boundaryBefore(s, j):
			// HMAC alone in capitals names the algorithm, as a label of
			// its output does (Computed HMAC: …), not a key.
			return keyPlain
		case suf.weak:
			return keyWeak
		}
		return keyStrong
	}
	return keyPlain
}

// foreignKeyWords are the words for a password, a secret key or a token
// in other languages that end in a letter outside ASCII, or whose letter
// before their last is one, in UTF-8: the tables of the sensitive
// suffixes hold ASCII letters only.
var foreignKeyWords = [...]string{
	"пароль", "パスワード", "密码", "密碼", "口令", "비밀번호", "contraseña", "hasło", "jelszó", "κωδικός", "סיסמה",
	"كلمة_المرور", "كلمة_السر", "كلمة_مرور", "رمز_عبور", "گذرواژه", "पासवर्ड", "รหัสผ่าน", "парола", "mật_khẩu",
	"mậtkhẩu", "密钥", "密鑰", "令牌", "トークン", "シークレット", "토큰", "токен", "секрет",
}

// foreignKeyStrength is keyStrength for a key that ends in a byte
// outside ASCII or whose last letter follows one: strong when it ends in
// one of foreignKeyWords.
func foreignKeyStrength(s string, k int) int {
	for _, w := range foreignKeyWords {
		if strings.HasSuffix(s[:k], w) {
			return keyStrong
		}
	}
	return keyPlain
}

// plainKeyKinds are the words before "key" in keys of keys that are not
// secrets: a cache's, a table's or an object's key, a public one.
var plainKeyKinds = [...]string{
	"cache", "primary", "foreign", "sort", "partition", "range", "hash", "row", "composite", "unique", "object",
	"idempotency", "dedup", "dedupe", "lookup", "map", "group", "shard", "public", "publishable",
}

// plainKeyKind reports whether the key whose "key" starts at j names a
// key of plainKeyKinds by the word before it (cache_key, sortKey, "Cache
// key"), or is public (NEXT_PUBLIC_…_KEY).
func plainKeyKind(s string, j int) bool {
	i := j
	if i > 0 && (s[i-1] == '_' || s[i-1] == '-' || s[i-1] == ' ') {
		i--
	}
	w := i
	if w > 0 && s[w-1] >= 'A' && s[w-1] <= 'Z' {
		w = runStart(s, i, isUpperLetter)
	} else {
		w = runStart(s, i, isLowerLetter)
		if w > 0 && s[w-1] >= 'A' && s[w-1] <= 'Z' {
			w--
		}
	}
	word := s[w:i]
	for _, k := range plainKeyKinds {
		if len(word) == len(k) && equalLower(word, k) {
			return true
		}
	}
	return indexLower(s[keyStart(s, j):j], "public") >= 0
}

// runStart returns where the run of bytes that ok reports and that ends
// at i starts.
func runStart(s string, i int, ok func(byte) bool) int {
	for i > 0 && ok(s[i-1]) {
		i--
	}
	return i
}

func isUpperLetter(c byte) bool { return c >= 'A' && c <= 'Z' }

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
// bytes or more, not only letters and '_', '.', '-' or '/', as names and
// refs such as origin/main are (unless sixteen letters or more change
// case as random ones do), no UUID, no path (a key in base64 may start
// with '/') or URL, no blank, no template ({{) or literal of a type
// (typeLiteral), and varied enough (a Shannon entropy of 3 bits or
// more, as a random string of ten different characters has).
func looksRandom(v string) bool {
	if len(v) < 12 || isReference(v) || strings.ContainsAny(v, " \t") || strings.Contains(v, "://") || v[0] == '/' && !base64Key(v) ||
		v[0] == '~' || v[0] == '.' || strings.Contains(v, "{{") || typeLiteral(v) {
		return false
	}
	if runEnd(v, 0, isIdentPathByte) == len(v) && strings.IndexFunc(v, func(r rune) bool { return r >= '0' && r <= '9' }) < 0 &&
		(len(v) < 16 || !randomCase(v)) {
		return false
	}
	if isUUID(v) || pathValue(v) || namedDigest(v) || colonID(v) || dottedNumber(v) {
		return false
	}
	return entropy(v) >= 3
}

// typeLiteral reports whether v starts as a literal of a type does in
// code, a name of six letters or more and '{', as
// signingKeyCache{size: 64} does.
func typeLiteral(v string) bool {
	i := runEnd(v, 0, func(c byte) bool { return isAlpha(c) || c == '_' })
	return i >= 6 && i < len(v) && v[i] == '{'
}

// dottedNumber reports whether v, less a name and '=' before it, is
// numbers joined by '.' after at most three letters, as a version, an
// address or an analytics cookie (_ga=GA1.2.…) is.
func dottedNumber(v string) bool {
	if eq := strings.IndexByte(v, '='); eq > 0 && runEnd(v, 0, isKeyByte) == eq {
		v = v[eq+1:]
	}
	letters := runEnd(v, 0, isAlpha)
	return letters <= 3 && strings.Count(v, ".") >= 2 && runEnd(v, letters, func(c byte) bool { return isDigit(c) || c == '.' }) == len(v)
}

// colonID reports whether v is an id whose parts ':' joins after a
// number, as a Firebase app id (1:1234567890:web:…) is.
func colonID(v string) bool {
	i := runEnd(v, 0, isDigit)
	return i > 0 && i < len(v) && v[i] == ':' && strings.Count(v, ":") >= 2
}

// base64Key reports whether v, which may start with '/' as a path does,
// is a key in base64 instead: 32 bytes or more of base64, padded with
// '=' or holding a '+'.
func base64Key(v string) bool {
	return len(v) >= 32 && runEnd(v, 0, isBase64Byte) == len(v) && (v[len(v)-1] == '=' || strings.IndexByte(v, '+') >= 0)
}

func isBase64Byte(c byte) bool { return isAlnum(c) || c == '+' || c == '/' || c == '=' }

func isIdentPathByte(c byte) bool { return isAlpha(c) || c == '_' || c == '.' || c == '-' || c == '/' }

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
// one: a variable ($NAME, ${NAME}, $(command), but not a key that starts
// with '$'), a template ({{ … }}, ${{ … }}), or, unquoted, code (a call,
// an index or a dotted name).
func isReference(v string) bool {
	return strings.HasPrefix(v, "$") && !dollarKey(v) || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "%") && strings.HasSuffix(v, "%") && len(v) > 2 ||
		yamlTag(v) || formatField(v)
}

// dollarKey reports whether v, which starts with '$', is a key that
// starts with that byte rather than a variable ($aact_…): 32 bytes or
// more of base64 or of a token's bytes, with a '+' or a '/' at which a
// variable's name would have stopped, in both cases and with digits, and
// as random as base64 is.
func dollarKey(v string) bool {
	return len(v) >= 32 && runEnd(v, 1, func(c byte) bool { return isBase64Byte(c) || c == '_' || c == '-' }) == len(v) &&
		strings.ContainsAny(v, "+/") && looksSecret(v[1:]) && entropy(v) >= 4
}

// formatField reports whether v is a field of a format string, as
// Python's f"{key}" and .NET's "{Password}" write them: '{', a name and
// the '}' (which may have ended the value before it).
func formatField(v string) bool {
	if len(v) < 2 || v[0] != '{' {
		return false
	}
	n := runEnd(v, 1, func(c byte) bool { return isKeyByte(c) || c == '.' })
	return n > 1 && (n == len(v) || n == len(v)-1 && v[n] == '}')
}

// yamlTag reports whether v is a YAML tag, '!' and a name of letters, as
// in "client_secret: !vault |" or "password: !secret db_password": what
// follows it holds or names the value.
func yamlTag(v string) bool {
	return len(v) > 1 && v[0] == '!' && runEnd(v, 1, isAlpha) == len(v)
}

// isCode reports whether an unquoted value is code rather than a secret:
// a call or an index (it holds '(' or '['), as in os.environ["TOKEN"].
func isCode(v string) bool {
	return strings.ContainsAny(v, "([")
}

// isLiteral reports whether v is a boolean or an empty value, as in
// always-auth=true, rather than a secret.
func isLiteral(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "null", "nil", "none":
		return true
	}
	return false
}

// isDottedName reports whether an unquoted value is a dotted name in
// code or configuration, as process.env.TOKEN or var.db_password are:
// words of letters and '_' joined by '.', three of them or one with a
// '_'.
func isDottedName(v string) bool {
	return strings.Contains(v, ".") && strings.Count(v, ".") >= 2-strings.Count(v, "_") && runEnd(v, 0, func(c byte) bool { return isAlpha(c) || c == '_' || c == '.' }) == len(v) &&
		v[0] != '.' && v[len(v)-1] != '.' && !strings.Contains(v, "..")
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
// ":=") over spaces, a type annotation before " = " and a string
// (typeAnnotation) and a closing quote (escaped or not) to where a key
// would end.
func keyEnd(s string, p int) (k int, quoted bool) {
	k = p
	if k > 0 && s[k] == '=' && s[k-1] == ':' {
		k--
	}
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	if k < p && s[p] == '=' && p+2 < len(s) && s[p+1] == ' ' && (s[p+2] == '"' || s[p+2] == '\'' || s[p+2] == '\\') {
		// " = " and a string, as a declaration with a type gives a
		// secret.
		k = typeAnnotation(s, k)
	}
	if k > 1 && s[k-1] == ']' && (s[k-2] == '"' || s[k-2] == '\'') {
		// An index by a quoted key: config["SECRET_KEY"] = "…".
		k--
	}
	return closingKeyQuote(s, k)
}

// typeAnnotation walks back from k, where the type of a declaration
// would end before its " =", over the type and the ':' that gives a name
// that type, as in Rust's const API_KEY: &str = "…", Kotlin's val
// secret: String = "…" or Python's token: str = "…", to where the name
// ends. It returns k when no annotation ends there.
func typeAnnotation(s string, k int) int {
	t := k
	for t > 0 && isTypeByte(s[t-1]) {
		t--
	}
	if t == k {
		return k
	}
	c := t
	for c > 0 && s[c-1] == ' ' {
		c--
	}
	if c < 2 || s[c-1] != ':' || !isKeyByte(s[c-2]) {
		return k
	}
	return c - 1
}

// isTypeByte reports whether c may be part of a type as declarations
// annotate names with it: &str, Option<String>, String?, []byte, and the
// '\\' of an escape in a JSON string (\u0026str).
func isTypeByte(c byte) bool {
	return isKeyByte(c) || c == '&' || c == '<' || c == '>' || c == '?' || c == '[' || c == ']' || c == '.' || c == '\\'
}

// closingKeyQuote walks back from k over a quote that closes a key,
// escaped or not (once, or again in a JSON string inside another), and
// reports whether there was one.
func closingKeyQuote(s string, k int) (int, bool) {
	if k == 0 || s[k-1] != '"' && s[k-1] != '\'' {
		return k, false
	}
	k--
	for k > 0 && s[k-1] == '\\' {
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
		switch {
		case last > 0 && s[last-1]|0x20 == 'e' && valueKeyEnd(s, last):
			return namedValueAt(s, p)
		case last > 0 && s[last-1]|0x20 == 'r' && userKeyEnd(s, last):
			return userTokenAt(s, p, last, quotedKey)
		}
		return span{}, false
	}
	v, end, unquoted, ok := pairValue(s, p, last, quotedKey)
	if !ok {
		return hostValuesAt(s, p, last)
	}
	if hasSuffixLower(s[k:last], "authorization") {
		v, end = authorizationCredential(s, v, end, unquoted)
	}
	val := s[v:end]
	if end == v || strings.HasPrefix(s[v:], Redacted) || isReference(strings.TrimLeft(val, `\`)) || isPlaceholder(val) || isLiteral(val) || unquoted && (isCode(val) || isDottedName(val)) {
		return span{}, false
	}
	if namesKey(val) || keyStrength(s, last) == keyWeak && !weakValueSecret(s[k:last], val) || publicForKey(s[k:last], val) {
		return span{}, false
	}
	return span{v, end}, true
}

// publicForKey reports whether val, the value of the sensitive key, is
// no secret by what it is for that key: a token's setting made of words
// (lowerWords), or a certificate in base64, whose DER starts MII.
func publicForKey(key, val string) bool {
	return hasSuffixLower(key, "token") && lowerWords(val) || hasSuffixLower(key, "certificate") && strings.HasPrefix(val, "MII")
}

// rowValueAt matches the value of a row of the table a command prints,
// a label that ends in a sensitive word, two blanks or more and the
// value alone on the rest of its line, as "Access Token     00D…" and
// "token     s.…" are, when the value looks like a secret (looksSecret;
// after a weak word, strongRandom, as a revision after master is not)
// and starts with a letter or digit, as a type does not (*tls.Config).
// The label starts its line, or a JSON string or a line in one, after
// spaces at most: a field of a Go struct, aligned so, follows a tab. The
// pre-scan reads bytes two at a time: the blanks found are the two at
// an even index that start the run or follow its first, and p is
// either.
func rowValueAt(s string, p int) (span, bool) {
	q := p &^ 1
	if q < 2 || q+1 >= len(s) || s[q] != ' ' || s[q+1] != ' ' {
		return span{}, false
	}
	l := q
	if s[l-1] == ' ' {
		l--
	}
	if !isKeyByte(s[l-1]) || !mayFollowSensitiveKey(s, l) {
		return span{}, false
	}
	strength := keyStrength(s, l)
	if strength == keyPlain || !rowLabel(s, l) {
		return span{}, false
	}
	v := runEnd(s, q, isBlank)
	e := runEnd(s, v, isArgByte)
	if end := runEnd(s, e, isBlank); end < len(s) && strings.IndexByte("\n\r\\\"", s[end]) < 0 {
		return span{}, false // more columns, or prose
	}
	val := s[v:e]
	if e == v || !isAlnum(val[0]) || !looksSecret(val) || strength == keyWeak && !strongRandom(val) || strings.HasPrefix(val, Redacted) {
		return span{}, false
	}
	return span{v, e}, true
}

// rowLabel reports whether the label of a table's row that ends at l
// starts its line: words joined by single blanks, at most rowLabelLen
// bytes, after the line's start and spaces, a newline escaped in a JSON
// string or the string's opening quote.
func rowLabel(s string, l int) bool {
	k := l
	for k > 0 && l-k <= rowLabelLen && (isKeyByte(s[k-1]) || s[k-1] == ' ' && k >= 2 && isKeyByte(s[k-2])) {
		k--
	}
	if k > 0 && s[k-1] == '\\' {
		k++ // the label's walk took the n of an escape
	}
	k = runStart(s, k, isSpace)
	return l-k <= rowLabelLen+2 && (k == 0 || s[k-1] == '\n' || s[k-1] == '"' || k >= 2 && s[k-2] == '\\' && s[k-1] == 'n')
}

// rowLabelLen is the length of the longest label rowValueAt reads.
const rowLabelLen = 40

// weakValueSecret reports whether v, the value of the weak key k, is a
// secret: random, a UUID the key names as one, or a recovery phrase.
func weakValueSecret(k, v string) bool {
	return looksRandom(v) || secretUUID(k, v) || mnemonicPhrase(v)
}

// secretUUID reports whether v, the value of the weak key k, is a UUID
// that key names as a secret: a UUID is an id in general, but one given
// as a key (SQSP_KEY, license_key), a passphrase or a session is the
// secret itself; not one given as an application's id (appid).
func secretUUID(k, v string) bool {
	return isUUID(v) && !hasSuffixLower(k, "id")
}

// mnemonicPhrase reports whether v is a wallet's recovery phrase as
// BIP-39 writes it: 12, 15, 18, 21 or 24 words of three to eight
// lower-case letters, one blank apart.
func mnemonicPhrase(v string) bool {
	words := 0
	for i := 0; i < len(v); {
		w := runEnd(v, i, isLowerLetter)
		if w-i < 3 || w-i > 8 || w < len(v) && (v[w] != ' ' || w+1 == len(v)) {
			return false
		}
		words++
		i = w + 1
	}
	return words >= 12 && words <= 24 && words%3 == 0
}

// lowerWords reports whether v is a few short words of lower-case
// letters joined by '-', as the "no-check" of X-Atlassian-Token is: a
// setting, not a token, which is never made of words.
func lowerWords(v string) bool {
	dash := strings.IndexByte(v, '-')
	return len(v) < 16 && dash > 0 && dash < len(v)-1 && runEnd(v, 0, func(c byte) bool { return isLowerLetter(c) || c == '-' }) == len(v)
}

// userKey is the key of a user, whose value a few providers make a
// random token (Pushover's user key) rather than a name. The tables that
// tell keys apart (penultimates, antepenultimates) know its last
// letters.
const userKey = "user"

// entryKeyEnd reports whether the key that ends at k in s is valueKey or
// userKey, whose values pairAt reads though they end in no sensitive
// suffix.
func entryKeyEnd(s string, k int) bool {
	if k == 0 {
		return false
	}
	switch s[k-1] | 0x20 {
	case 'e':
		return valueKeyEnd(s, k)
	case 'r':
		return userKeyEnd(s, k)
	}
	return false
}

// userKeyEnd reports whether the key that ends at k in s is userKey, in
// any case, as a whole key.
func userKeyEnd(s string, k int) bool {
	return k >= len(userKey) && equalLower(s[k-len(userKey):k], userKey) && boundaryBefore(s, k-len(userKey))
}

// userTokenAt matches the value of a user key, whose separator is at p
// and whose key ends at last, when it is a token rather than a name: 24
// letters, digits, '_' or '-' or more, and as random as a token near a credential word must be
// (strongRandom), which a name, an address, an id in hexadecimal or a
// UUID is not.
func userTokenAt(s string, p, last int, quotedKey bool) (span, bool) {
	if strings.HasPrefix(s[p+1:], "=") {
		return span{}, false
	}
	if k := last - len(userKey); k >= 3 && s[k-3:k] == "://" {
		return span{}, false // the user of a URL's user information
	}
	v, end, _, ok := pairValue(s, p, last, quotedKey)
	if !ok || end-v < 24 || runEnd(s[:end], v, isKeyByte) != end || !strongRandom(s[v:end]) {
		return span{}, false
	}
	return span{v, end}, true
}

// hostValuesAt matches the values of the object after a sensitive key,
// whose separator is at p and which ends at last, when the object's keys
// are host names, as Composer's auth.json writes its tokens:
// {"bearer": {"repo.example.org": "…"}}. One span runs from the first
// secret value to the end of the last, so that one marker stands for all
// of them; a value after a weak key must look random.
func hostValuesAt(s string, p, last int) (span, bool) {
	i := runEnd(s, p+1, isBlank)
	if i >= len(s) || s[i] != '{' {
		return span{}, false
	}
	weak := keyStrength(s, last) == keyWeak
	m := span{-1, -1}
	for n := 0; n < hostValuesReach; n++ {
		k, ok := openingQuote(s, runEnd(s, i+1, func(c byte) bool { return isArgSpace(c) || c == ',' }))
		if !ok {
			break
		}
		ke := quotedValueEnd(s, k, '"')
		if !hostLike(s[k:ke]) {
			break
		}
		sep := runEnd(s, pastQuote(s, ke), isBlank)
		if sep >= len(s) || s[sep] != ':' {
			break
		}
		v, ok := openingQuote(s, runEnd(s, sep+1, isBlank))
		if !ok {
			break
		}
		end := quotedValueEnd(s, v, '"')
		if val := s[v:end]; val != "" && !isReference(val) && !isPlaceholder(val) && (!weak || looksRandom(val)) {
			if m.start < 0 {
				m.start = v
			}
			m.end = end
		}
		i = pastQuote(s, end) - 1
	}
	return m, m.start >= 0
}

// openingQuote returns where the text of the string that a '"' at i
// opens starts, the quote escaped or not, or false when none is there.
func openingQuote(s string, i int) (int, bool) {
	if strings.HasPrefix(s[i:], `\"`) {
		return i + 2, true
	}
	return i + 1, i < len(s) && s[i] == '"'
}

// hostValuesReach is how many entries of an object hostValuesAt reads.
const hostValuesReach = 8

// pairKey finds the key before the separator at p. It returns where the
// key starts and ends and whether it was quoted, or false when no
// sensitive key ends there (with where a key would end, when no
// sensitive suffix does).
func pairKey(s string, p int) (k, last int, quoted, ok bool) {
	last, quoted = keyEnd(s, p)
	if !sensitiveKeyEnd(s, last) {
		return 0, last, false, false
	}
	k = keyStart(s, last)
	if k >= 3 && s[k-3:k] == "://" {
		// The user of a URL's user information, not a key: userinfoAt
		// takes its password.
		return 0, 0, false, false
	}
	if !quoted && k > 0 && s[k-1] == ':' && s[p] == ':' {
		// A part of a name whose parts ':' joins, as an ARN's
		// "secret:prod/db/password" is, not a key.
		return 0, 0, false, false
	}
	if k >= 2 && s[k-2:k] == "${" && s[p] == ':' && p+1 < len(s) && (s[p+1] == '?' || s[p+1] == '+') {
		// A shell's ${TOKEN:?message} or ${TOKEN:+word}: a message to
		// print or a word to use, not the variable's value.
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
	v = pastLiteralPrefix(s, v)
	if qv, end, quoted, ok := quotedValue(s, v, last, quotedKey); quoted {
		return qv, end, false, ok
	}
	switch {
	case quotedKey:
		return 0, 0, false, false // a JSON number, boolean or null
	case arrow:
		return 0, 0, false, false // a function, as in token => token.trim()
	case v > p+1 && v < len(s) && s[v] == '#':
		return 0, 0, false, false // a comment after a blank, as in KEY=  # set in CI
	}
	return v, unquotedEnd(s, v), true, true
}

// unquotedEnd returns where an unquoted value that starts at v ends: at
// the first byte that ends most values, or past it for a password full
// of punctuation (punctuatedEnd), or at the line's end for recovery
// words written plainly (mnemonicPhrase).
func unquotedEnd(s string, v int) int {
	end := runEnd(s, v, isUnquotedValueByte)
	if end < len(s) && s[end] == ' ' {
		if words := strings.TrimRight(s[v:lineEndAt(s, v)], " \r"); mnemonicPhrase(words) {
			return v + len(words)
		}
	}
	return punctuatedEnd(s, v, end)
}

// punctuatedEnd returns where an unquoted value that starts at v ends
// when a byte that ends most values ('&', ',', ';', '<', ')' …) stopped
// it at end inside a word: a password may hold them, and then the whole
// word, up to a blank or a quote, is the value when it is made as a
// password is, of letters in both cases, digits and punctuation, with
// no '=' (a query's &next=…), and is neither code (compositeCode) nor a
// URL (a Markdown link's ](https://…)). The value
// stays as it was when they only close what it is in ("…),").
func punctuatedEnd(s string, v, end int) int {
	if end >= len(s) || !valuePunctuation[s[end]] {
		return end
	}
	w := runEnd(s, end, isArgByte)
	for w > end && strings.IndexByte(",;)}]", s[w-1]) >= 0 {
		w--
	}
	if word := s[v:w]; runEnd(word, end-v, func(c byte) bool { return !isAlnum(c) }) == len(word) || !punctuatedPassword(word) ||
		compositeCode(word) || strings.Contains(word, "://") {
		return end
	}
	return w
}

// compositeCode reports whether w starts as code that builds or calls
// something does, as &pkg.Config{…} or *New(…) do: a name of two bytes
// or more after an operator, then a bracket.
func compositeCode(w string) bool {
	i := runEnd(w, 0, func(c byte) bool { return c == '&' || c == '*' || c == '!' })
	j := runEnd(w, i, isCodeByte)
	return j-i >= 2 && j < len(w) && (w[j] == '(' || w[j] == '[' || w[j] == '{')
}

// isCodeByte reports the bytes of a name in code: a dotted name, a
// Ruby symbol, a PHP variable.
func isCodeByte(c byte) bool { return isKeyByte(c) || c == '.' || c == ':' || c == '$' }

// punctuatedPassword reports whether w holds letters in both cases,
// digits and punctuation, and no '=' nor a key and ':' after a ',', ';'
// or '&' (ctrlKey:!1,altKey:…), as a generated password does and code, a
// query or a list seldom does.
func punctuatedPassword(w string) bool {
	var upper, lowerCase, digit bool
	for i := range len(w) {
		switch c := w[i]; {
		case c == '=':
			return false
		case c == ',' || c == ';' || c == '&':
			if k := runEnd(w, i+1, isKeyByte); k-i > 2 && k < len(w) && w[k] == ':' {
				return false
			}
		case isDigit(c):
			digit = true
		case isUpperLetter(c):
			upper = true
		case isLowerLetter(c):
			lowerCase = true
		}
	}
	return upper && lowerCase && digit
}

// valuePunctuation holds true for the bytes other than blanks, quotes
// and '\\' that end an unquoted value (isUnquotedValueByte).
var valuePunctuation = [256]bool{',': true, ';': true, '&': true, ']': true, ')': true, '<': true}

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
	case strings.HasPrefix(s[v:], `\\\"`):
		// A quote escaped twice: the pair is inside a JSON string inside
		// another, as a notebook's source is in a tool's arguments; the
		// value ends at the next such quote.
		e := strings.Index(s[v+4:], `\\\"`)
		if e < 0 {
			return 0, 0, true, false
		}
		return v + 4, v + 4 + e, true, true
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

// literalPrefixes are the prefixes, in lower case, that languages write
// before a string literal's opening quote: Python's bytes, raw and
// format strings (b"…", rb"…", f"…"), C#'s verbatim and interpolated
// ones (@"…", $"…"), C++'s (u8"…", L"…", R"(…)"), SQL Server's N'…',
// PostgreSQL's E'…' and a shell's $'…'.
var literalPrefixes = [...]string{
	"b", "r", "u", "f", "rb", "br", "fr", "rf", "ur", "u8", "u8r", "l", "lr", "n", "e", "@", "$", "@$", "$@",
}

// pastLiteralPrefix returns where the quote after a string literal's
// prefix that starts at i stands, so that the literal's text, not its
// prefix, is read as the value; or i when no prefix and quote (escaped
// or not) are there.
func pastLiteralPrefix(s string, i int) int {
	if i < len(s) && literalPrefixBytes[s[i]] {
		return prefixedQuote(s, i)
	}
	return i // most often a quote: told inline
}

// prefixedQuote is pastLiteralPrefix once a byte of a prefix is at i.
func prefixedQuote(s string, i int) int {
	// A prefix is one to three bytes: the quote after it is looked for
	// before the prefix is.
	for n := i; n < len(s) && n <= i+3; n++ {
		switch c := s[n]; {
		case c == '"' || c == '\'' || c == '\\' && n+1 < len(s) && (s[n+1] == '"' || s[n+1] == '\\'):
			if n > i && (i == 0 || !isKeyByte(s[i-1])) && literalPrefix(s[i:n]) {
				return n
			}
			return i
		case !isLiteralPrefixByte(c):
			return i
		}
	}
	return i
}

// literalPrefix reports whether p is one of literalPrefixes, in any case.
func literalPrefix(p string) bool {
	for _, l := range literalPrefixes {
		if len(l) == len(p) && equalLower(p, l) {
			return true
		}
	}
	return false
}

func isLiteralPrefixByte(c byte) bool { return literalPrefixBytes[c] }

// quoteBytes holds true for the bytes that open a string literal, and for
// the '\\' of a quote escaped in a JSON string.
var quoteBytes = [256]bool{'"': true, '\'': true, '\\': true}

// literalPrefixBytes holds true for the bytes of literalPrefixes.
var literalPrefixBytes = func() (t [256]bool) {
	for _, p := range literalPrefixes {
		for _, c := range []byte(p) {
			for _, c := range cases(c) {
				t[c] = true
			}
		}
	}
	return t
}()

// valueStart walks forward from the separator at p, over the '>' of "=>"
// (or its escape \u003e) and then spaces, to where a value would start.
// It also reports whether the separator was "=>", the arrow of PHP, Perl
// and Ruby hashes.
func valueStart(s string, p int) (v int, arrow bool) {
	after := p + 1
	switch {
	case s[p] != '=':
	case after < len(s) && s[after] == '>':
		after, arrow = after+1, true
	case strings.HasPrefix(s[after:], `\u003e`):
		// The '>' escaped, as Go writes it in a JSON string.
		after, arrow = after+6, true
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
	w := runEnd(s, v, isSchemeByte)
	if w <= v || w >= len(s) || !isBlank(s[w]) {
		return v, end
	}
	cred := runEnd(s, w, isBlank)
	if unquoted {
		end = runEnd(s, cred, isUnquotedValueByte)
		if end == cred {
			// A scheme and no credential, as in "Bearer <token>".
			return end, end
		}
	}
	if cred < end {
		v = cred
	}
	return v, end
}

// isSchemeByte reports the bytes of an authorization scheme: letters, and
// '-' as in Zoho-oauthtoken or Klaviyo-API-Key.
func isSchemeByte(c byte) bool { return isAlpha(c) || c == '-' }

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

// namesKey reports whether v, a value of letters, '_' and '-' only, or a
// constant's name in capitals, digits, '_' and '.', is itself a
// sensitive key, as the key a Kubernetes secretKeyRef names ("secretKey:
// password"), rather than a secret.
func namesKey(v string) bool {
	if runEnd(v, 0, func(c byte) bool { return isAlpha(c) || c == '_' || c == '-' }) == len(v) {
		return keyStrength(v, len(v)) != keyPlain
	}
	// A constant of code, C.NL80211_…_AP_PSK: words, digits and '.'.
	return isUpperLetter(v[0]) && strings.IndexByte(v, '_') > 0 && runEnd(v, 0, func(c byte) bool { return isUpperAlnum(c) || c == '_' || c == '.' }) == len(v) &&
		keyStrength(v, len(v)) != keyPlain
}

// namedDigest reports whether v is a name that ends in a digest, as a
// cache key is (node-cache-Linux-x64-npm-<sha256>, v1-deps-<sha1>): two
// or more words joined by '-' or '_' (a word may hold a '.', as a
// version does), the first of three letters or more or a version, none
// of four hexadecimal digits or more (as a UUID's groups are) nor a
// key's own words (signkey-prod-<hex> is a key), and then seven or more
// hexadecimal digits.
func namedDigest(v string) bool {
	i := strings.LastIndexAny(v, "-_")
	if i < 0 || len(v)-i-1 < 7 || runEnd(v, i+1, isHex) != len(v) {
		return false
	}
	head := v[:i]
	if !strings.ContainsAny(head, "-_") || runEnd(head, 0, isLowerLetter) < 3 && !versionPrefix(head) || runEnd(head, 0, isKeyPartByte) != len(head) ||
		strings.Contains(head, "key") || sensitiveName(head) {
		return false
	}
	for _, w := range strings.FieldsFunc(head, func(r rune) bool { return r == '-' || r == '_' }) {
		if len(w) >= 4 && runEnd(w, 0, isHex) == len(w) {
			return false
		}
	}
	return true
}

// versionPrefix reports whether v starts with a version, 'v' and digits,
// and then '-' or '_', as a cache key's v1-deps-… does.
func versionPrefix(v string) bool {
	d := runEnd(v, 1, isDigit)
	return len(v) > 2 && v[0] == 'v' && d > 1 && d < len(v) && (v[d] == '-' || v[d] == '_')
}
