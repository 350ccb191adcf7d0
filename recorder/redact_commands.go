package recorder

import (
	"slices"
	"strings"
)

// commandCredentialAt redacts the credentials that the command named by
// the keyword at s[at:end] takes as plain arguments, where nothing but
// their place on the line says they are secrets:
//
//   - "TOOL login VALUE" (cargo, wandb, vault): a random first argument;
//   - "b2 authorize-account KEY_ID KEY" (or account authorize): the
//     random arguments;
//   - "uplink access import NAME GRANT": the random access grant;
//   - "echo VALUE | … --password-stdin": the value echoed;
//   - ConvertTo-SecureString VALUE: the value;
//   - rabbitmqctl add_user (or change_password) USER PASSWORD;
//   - smbclient and rpcclient -U user%password;
//   - sqlplus, expdp, impdp and sqlldr user/password@database.
func commandCredentialAt(s string, at, end int, spans []span) []span {
	word := s[at:end]
	if at > 0 && isKeyByte(s[at-1]) && word != "password-stdin" || word[len(word)-1] != ' ' && end < len(s) && isKeyByte(s[end]) {
		return spans
	}
	if read, ok := commandCredentials[word]; ok {
		return read(s, at, end, spans)
	}
	return spans
}

// commandCredentials holds, for each keyword of commandCredentialAt, how
// its command's credential is read.
var commandCredentials = map[string]func(s string, at, end int, spans []span) []span{
	"login":                  loginToken,
	"b2 ":                    b2Keys,
	"uplink ":                importedAccess,
	"password-stdin":         echoedPassword,
	"ConvertTo-SecureString": secureString,
	"rabbitmqctl":            rabbitPassword,
	"smbclient":              userPercentPassword,
	"rpcclient":              userPercentPassword,
	"sqlplus":                oracleLogin,
	"expdp":                  oracleLogin,
	"impdp":                  oracleLogin,
	"sqlldr":                 oracleLogin,
}

// oracleLogin reads the user/password@database argument that Oracle's
// tools take (sqlplus scott/…@//db:1521/ORCL, expdp, impdp, sqlldr): the
// password, between the first '/' and the last '@'.
func oracleLogin(s string, _, end int, spans []span) []span {
	var buf [8]span
	for _, a := range lineArgs(s, end, buf[:]) {
		if m, ok := oracleCredential(s, a); ok {
			return appendArgSecret(s, m, spans)
		}
	}
	return spans
}

// oracleCredential returns the password of the argument a when it is
// written user/password@database, the user a plain name.
func oracleCredential(s string, a span) (span, bool) {
	v := s[a.start:a.end]
	slash := strings.IndexByte(v, '/')
	at := strings.LastIndexByte(v, '@')
	if slash <= 0 || at < slash+2 || at == len(v)-1 || runEnd(v, 0, func(c byte) bool { return isKeyByte(c) || c == '$' || c == '#' }) != slash {
		return span{}, false
	}
	return span{a.start + slash + 1, a.start + at}, true
}

// loginToken reads "TOOL login VALUE": a random first argument.
func loginToken(s string, at, end int, spans []span) []span {
	if at == 0 || !isBlank(s[at-1]) {
		return spans
	}
	var buf [1]span
	if args := lineArgs(s, end, buf[:]); len(args) > 0 && randomArg(s, args[0]) {
		spans = append(spans, args[0])
	}
	return spans
}

// importedAccess reads "uplink access import [flags] NAME GRANT"
// (Storj): the random argument after the name.
func importedAccess(s string, _, end int, spans []span) []span {
	if !strings.HasPrefix(s[end:], "access import ") {
		return spans
	}
	var buf [4]span
	args := lineArgs(s, end+len("access import"), buf[:])
	for i := 1; i < len(args); i++ {
		if randomArg(s, args[i]) && s[args[i-1].start] != '-' {
			return append(spans, args[i])
		}
	}
	return spans
}

// b2Keys reads "b2 authorize-account KEY_ID KEY" and "b2 account
// authorize KEY_ID KEY" (Backblaze): the random arguments after the
// command.
func b2Keys(s string, _, end int, spans []span) []span {
	var buf [4]span
	args := lineArgs(s, end, buf[:])
	cmd := 0
	switch {
	case len(args) > 0 && s[args[0].start:args[0].end] == "authorize-account":
		cmd = 1
	case len(args) > 1 && s[args[0].start:args[0].end] == "account" && s[args[1].start:args[1].end] == "authorize":
		cmd = 2
	default:
		return spans
	}
	for _, a := range args[cmd:] {
		if randomArg(s, a) {
			spans = append(spans, a)
		}
	}
	return spans
}

// echoedPassword reads "echo VALUE | … --password-stdin".
func echoedPassword(s string, at, _ int, spans []span) []span {
	var buf [32]span
	if v, ok := echoedValue(s, at, buf[:]); ok {
		return appendArgSecret(s, v, spans)
	}
	return spans
}

// secureString reads "ConvertTo-SecureString [-String] VALUE".
func secureString(s string, _, end int, spans []span) []span {
	var buf [2]span
	args := lineArgs(s, end, buf[:])
	if len(args) > 0 && s[args[0].start:args[0].end] == "-String" {
		args = args[1:]
	}
	if len(args) > 0 {
		return appendArgSecret(s, args[0], spans)
	}
	return spans
}

// rabbitPassword reads "rabbitmqctl add_user (or change_password) USER
// PASSWORD".
func rabbitPassword(s string, _, end int, spans []span) []span {
	var buf [32]span
	args := lineArgs(s, end, buf[:])
	for i, a := range args {
		if v := s[a.start:a.end]; (v == "add_user" || v == "change_password") && i+2 < len(args) {
			return appendArgSecret(s, args[i+2], spans)
		}
	}
	return spans
}

// userPercentPassword reads "-U user%password", as smbclient and
// rpcclient take it.
func userPercentPassword(s string, _, end int, spans []span) []span {
	var buf [32]span
	args := lineArgs(s, end, buf[:])
	for i, a := range args {
		if s[a.start:a.end] == "-U" && i+1 < len(args) {
			u := args[i+1]
			if pct := strings.IndexByte(s[u.start:u.end], '%'); pct >= 0 {
				spans = appendArgSecret(s, span{u.start + pct + 1, u.end}, spans)
			}
		}
	}
	return spans
}

// passwdCommandAt redacts the password given to the command whose name
// ends in the keyword "passwd" at s[at:end]: htpasswd's in batch mode,
// and the "user:password" fed to chpasswd by echo.
func passwdCommandAt(s string, at, end int, spans []span) []span {
	if at < 2 || at > 2 && isKeyByte(s[at-3]) || end < len(s) && isKeyByte(s[end]) {
		return spans
	}
	var buf [32]span
	switch s[at-2 : at] {
	case "ht":
		return htpasswdPassword(s, lineArgs(s, end, buf[:]), spans)
	case "ch":
		v, ok := echoedValue(s, at, buf[:])
		if c := strings.IndexByte(s[v.start:v.end], ':'); ok && c > 0 {
			return appendArgSecret(s, span{v.start + c + 1, v.end}, spans)
		}
	}
	return spans
}

// stdinReach is how far before a command that reads a password from its
// standard input the echo that feeds it may start.
const stdinReach = 256

// echoedValue returns the value that echo or printf pipes into the
// command at index at, on its line: the first of their arguments that
// is neither a flag nor a format. Inside a JSON string its quotes are
// escaped: the '\\' before a closing quote is no part of it.
func echoedValue(s string, at int, buf []span) (span, bool) {
	ls := max(0, at-stdinReach)
	ls += strings.LastIndexByte(s[ls:at], '\n') + 1
	e := strings.LastIndex(s[ls:at], "echo ")
	if p := strings.LastIndex(s[ls:at], "printf "); p > e {
		e = p
	}
	if e < 0 {
		return span{}, false
	}
	for _, b := range lineArgs(s[:at], ls+e+strings.IndexByte(s[ls+e:], ' '), buf) {
		v := s[b.start:b.end]
		if v == "|" {
			break
		}
		if strings.HasSuffix(v, `\`) {
			b.end--
			v = v[:len(v)-1]
		}
		if v != "" && v[0] != '-' && !strings.Contains(v, "%s") {
			return b, true
		}
	}
	return span{}, false
}

// randomArg reports whether the command-line argument a looks like a
// random credential: not a flag, a host name, an address, a path or a
// word.
func randomArg(s string, a span) bool {
	v := s[a.start:a.end]
	return v != "" && v[0] != '-' && !hostLike(v) && !strings.Contains(v, "@") && !pathValue(v) && looksSecret(v) &&
		!strings.HasPrefix(v, Redacted)
}

// hostLike reports whether v is written as a host name is: lower-case
// labels of letters, digits and '-', joined by '.', the last of letters.
func hostLike(v string) bool {
	dot := strings.LastIndexByte(v, '.')
	if dot <= 0 || dot == len(v)-1 || runEnd(v, dot+1, isLowerLetter) != len(v) {
		return false
	}
	return runEnd(v, 0, func(c byte) bool { return isLowerLetter(c) || isDigit(c) || c == '-' || c == '.' || c == ':' }) == len(v)
}

// htpasswdPassword appends the password given to htpasswd in batch mode
// (-b): its last argument, after the file and the user, or after the user
// alone with -n.
func htpasswdPassword(s string, args, spans []span) []span {
	flags, positional := "", 0
	var last span
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := s[a.start:a.end]
		if len(v) > 1 && v[0] == '-' && positional == 0 {
			flags += v[1:]
			if v == "-C" || v == "-r" {
				i++ // the bcrypt cost or the rounds
			}
			continue
		}
		if strings.IndexByte("|;&<>", v[0]) >= 0 || strings.HasPrefix(v, "2>") || strings.HasPrefix(s[a.start-1:], `\u00`) {
			// The command ends, or its output goes elsewhere ('>', '<'
			// and '&' escaped as JSON writes them in Go).
			break
		}
		positional++
		last = a
	}
	want := 3
	if strings.IndexByte(flags, 'n') >= 0 {
		want = 2
	}
	if strings.IndexByte(flags, 'b') < 0 || positional != want {
		return spans
	}
	return appendArgSecret(s, last, spans)
}

// commandFlags are short flags that take a password as the next
// argument in the command that cmd names, beyond those of passwordFlags:
// openssl enc -k, zip and unzip -P, ipmitool -P, ssh-keygen -N, the
// mosquitto clients' -P, altool's -p and codecov's -t.
var commandFlags = [...]struct {
	flag byte
	cmd  string
}{{'k', "openssl "}, {'P', "zip "}, {'P', "ipmitool "}, {'N', "ssh-keygen "}, {'P', "mosquitto_"}, {'p', "altool "}, {'t', "codecov"}}

// commandFlagReach is how far before its flag one of commandFlags may
// name its command.
const commandFlagReach = 160

// commandFlagAt matches the value of one of commandFlags whose '-' is at
// p, after a blank, and that of a -k that looks like a key.
func commandFlagAt(s string, p int) (span, bool) {
	if p < 1 || p+3 >= len(s) || s[p-1] != ' ' || s[p+2] != ' ' {
		return span{}, false
	}
	for _, f := range commandFlags {
		if f.flag != s[p+1] {
			continue
		}
		line := s[max(0, p-commandFlagReach):p]
		if strings.Contains(line[strings.LastIndexByte(line, '\n')+1:], f.cmd) {
			m, ok := flagValueAt(s, runEnd(s, p+2, isBlank))
			// Not a reference, as altool's @keychain:NAME and @env:VAR are.
			return m, ok && !isPlaceholder(s[m.start:m.end]) && s[m.start] != '@'
		}
	}
	if s[p+1] == 'k' && p >= 2 {
		// -k for a key, in any command (so not at the text's second
		// byte, which dashSecretHere skips), when its value is one, as
		// cloudsmith's API key is: curl's -k takes no value and sort's
		// a column.
		m, ok := flagValueAt(s, runEnd(s, p+2, isBlank))
		return m, ok && keyLike(s[m.start:m.end])
	}
	return span{}, false
}

// urlKeyCommands are commands that take a URL and then an access key and
// a secret key as plain arguments.
var urlKeyCommands = [...]string{"mc alias set ", "mc config host add "}

// urlKeySecretAt matches the secret key given to one of urlKeyCommands,
// from the "://" of its URL at p: the second argument after the URL. The
// bytes before the URL are read back over the URL's scheme and the
// alias's name only, so that a URL elsewhere costs a few compares.
func urlKeySecretAt(s string, p int) (span, bool) {
	u := p
	for u > 0 && isAlpha(s[u-1]) {
		u--
	}
	name := u - 1
	if name < 1 || s[name] != ' ' || !strings.HasPrefix(s[p:], "://") {
		return span{}, false
	}
	cmd := name
	for cmd > 0 && isArgByte(s[cmd-1]) {
		cmd--
	}
	if cmd == name || !strings.HasSuffix(s[:cmd], urlKeyCommands[0]) && !strings.HasSuffix(s[:cmd], urlKeyCommands[1]) {
		return span{}, false
	}
	var buf [2]span
	args := lineArgs(s, runEnd(s, p, isArgByte), buf[:])
	if len(args) < 2 {
		return span{}, false
	}
	if spans := appendArgSecret(s, args[1], buf[:0]); len(spans) > 0 {
		return spans[0], true
	}
	return span{}, false
}

// pairedSecretAt redacts the secret written right after its key id, the
// id at s[at:] starting with the keyword at s[at:end]: an AWS access key
// id and its secret key in a CSV row or two arguments, a Razorpay key id
// and secret as a tuple or two arguments. Between them may stand quotes
// and a ',' or a ':' and blanks; the secret must look random and be no
// other id.
func pairedSecretAt(s string, at, end int, spans []span) []span {
	if at > 0 && isKeyByte(s[at-1]) {
		return spans
	}
	id := runEnd(s, end, isKeyByte)
	if id-at < 16 {
		return spans
	}
	i := pastQuote(s, id)
	sep := runEnd(s, i, func(c byte) bool { return isBlank(c) || c == ',' || c == ':' })
	if sep == i || sep-i > 4 {
		return spans
	}
	v := pastQuote(s, sep)
	e := runEnd(s, v, isTokenByte)
	val := s[v:e]
	if len(val) < 16 || !looksSecret(val) || pathValue(val) || idPrefixed(val) {
		return spans
	}
	return append(spans, span{v, e})
}

// pastQuote returns i moved past a quote there, escaped or not.
func pastQuote(s string, i int) int {
	if i < len(s) && s[i] == '\\' {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	return i
}

// pairedIDs are the key ids pairedSecretAt reads a secret after.
var pairedIDs = [...]string{"AKIA", "ASIA", "LTAI", "rzp_live_", "rzp_test_"}

// idPrefixed reports whether v is itself one of pairedIDs, as the second
// of two ids in a list is.
func idPrefixed(v string) bool {
	return slices.ContainsFunc(pairedIDs[:], func(p string) bool { return strings.HasPrefix(v, p) })
}

// pathValue reports whether v is written as a relative path or a file
// name is: segments joined by '/', the last a name with an extension of
// letters (uploads/…/avatar.png, src/Button.tsx).
func pathValue(v string) bool {
	slash := strings.LastIndexByte(v, '/')
	if slash < 0 {
		return false
	}
	name := v[slash+1:]
	dot := strings.LastIndexByte(name, '.')
	return dot > 0 && dot < len(name)-1 && len(name)-dot <= 6 && runEnd(name, dot+1, isAlpha) == len(name)
}

// hostCredentialAt redacts the credential that a package manager stores
// for a host or a repository, which the keyword at s[at:end] starts:
// Bundler's BUNDLE_HOST__COM=USER:PASSWORD, and the http-basic.HOST USER
// PASSWORD and pypi-token.NAME TOKEN settings of composer config and
// poetry config.
func hostCredentialAt(s string, at, end int, spans []span) []span {
	if at > 0 && isKeyByte(s[at-1]) {
		return spans
	}
	if s[at] == 'B' {
		return bundlerHostCredential(s, end, spans)
	}
	// The setting's name runs on from the keyword: the host or the
	// repository, then the user and the password, or the token.
	var buf [3]span
	args := lineArgs(s, runEnd(s, end, isArgByte), buf[:])
	switch {
	case s[at] == 'h' && len(args) >= 2:
		return appendArgSecret(s, args[1], spans)
	case s[at] == 'p' && len(args) >= 1 && randomArg(s, args[0]):
		return append(spans, args[0])
	}
	return spans
}

// bundlerHostCredential reads Bundler's setting of a gem source's
// credentials, BUNDLE_GEMS__EXAMPLE__COM=USER:PASSWORD (a host's dots
// written "__"), whose name runs on from end: the password, or a token
// given alone.
func bundlerHostCredential(s string, end int, spans []span) []span {
	n := runEnd(s, end, func(c byte) bool { return isUpperAlnum(c) || c == '_' })
	if !strings.Contains(s[end:n], "__") || n >= len(s) || s[n] != '=' && s[n] != ':' {
		return spans
	}
	v := pastQuote(s, runEnd(s, n+1, isBlank))
	e := runEnd(s, v, isArgByte)
	if c := strings.IndexByte(s[v:e], ':'); c > 0 {
		return appendArgSecret(s, span{v + c + 1, e}, spans)
	}
	if randomArg(s, span{v, e}) {
		return append(spans, span{v, e})
	}
	return spans
}
