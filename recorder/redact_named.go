package recorder

import "strings"

// valueKey is the key of an entry's value in lists of named entries, as
// Kubernetes' env, ECS's environment, SSM's parameters and Terraform
// write them: {"name": "DB_PASSWORD", "value": "…"}. The tables that tell
// keys apart (penultimates, antepenultimates) know its last letters.
const valueKey = "value"

// valueKeyEnd reports whether the key that ends at k in s is valueKey,
// in any case, as a whole key.
func valueKeyEnd(s string, k int) bool {
	return k >= len(valueKey) && equalLower(s[k-len(valueKey):k], valueKey) && boundaryBefore(s, k-len(valueKey))
}

// namedReach is how far before an entry's value its name may stand.
const namedReach = 160

// namedValueAt matches the value of an entry whose separator (':' or
// '=') after valueKey is at p, when the entry's name, within namedReach
// bytes before it and in the same object, is a sensitive name
// (sensitiveName): DB_PASSWORD, api-token, /prod/db/password. A name
// that ends in a weak word asks for a random value.
func namedValueAt(s string, p int) (span, bool) {
	if strings.HasPrefix(s[p+1:], "=") {
		return span{}, false
	}
	k, quoted := keyEnd(s, p)
	if !valueKeyEnd(s, k) {
		return span{}, false
	}
	start := k - len(valueKey)
	name, ok := entryName(s, start)
	if !ok {
		return span{}, false
	}
	strength := keyStrength(name, len(name))
	if !sensitiveEntry(name, strength) {
		return span{}, false
	}
	v, end, unquoted, ok := pairValue(s, p, k, quoted)
	if !ok {
		return span{}, false
	}
	val := s[v:end]
	if end == v || strings.HasPrefix(s[v:], Redacted) || isReference(val) || isPlaceholder(val) || isLiteral(val) ||
		unquoted && (isCode(val) || isDottedName(val)) || !entryValueSecret(val, strength) {
		return span{}, false
	}
	return span{v, end}, true
}

// sensitiveEntry reports whether an entry named name, whose key strength
// is strength, holds a secret: its name ends in a sensitive word, or holds
// one before a last word that names no property of a secret
// (password_min_length, token_expiry do).
func sensitiveEntry(name string, strength int) bool {
	return strength != keyPlain || sensitiveName(name) && keyPartSecret(name) && !listTokenName(name)
}

// listTokenName reports whether name names a token of listTokens, as a
// form's csrf_token does.
func listTokenName(name string) bool {
	return hasSuffixLower(name, "token") && listToken(name, len(name)-len("token"))
}

// entryValueSecret reports whether the value of an entry whose name has
// the key strength strength is a secret: any value after a strong name,
// a random one after a weak name, and one that looks like a secret
// (looksSecret, no timestamp) after a name that only holds a sensitive
// word.
func entryValueSecret(v string, strength int) bool {
	switch strength {
	case keyStrong:
		return true
	case keyWeak:
		return looksRandom(v)
	}
	return looksSecret(v)
}

// entryName returns the name of the entry whose valueKey starts at i:
// the value of the last "name" or "key" key before it, within namedReach bytes
// and no '{' or '}' between them. A name that is a path
// (/prod/db/password) is given by its last part.
func entryName(s string, i int) (string, bool) {
	from := max(0, i-namedReach)
	for j := i - 4; j >= from; j-- {
		if s[j] == '{' || s[j] == '}' {
			return "", false
		}
		w := entryNameKey(s, j)
		if w == 0 || !boundaryBefore(s, j) {
			continue
		}
		v := pastQuote(s, j+w)
		v = runEnd(s, v, isBlank)
		if v >= len(s) || s[v] != ':' && s[v] != '=' {
			continue
		}
		q := runEnd(s, v+1, isBlank)
		v = pastQuote(s, q)
		if w == 3 && v == q {
			continue // a name given as key is quoted, not code
		}
		e := runEnd(s, v, func(c byte) bool { return isKeyPartByte(c) || c == '/' })
		if e >= i {
			return "", false
		}
		name := s[v:e]
		return name[strings.LastIndexByte(name, '/')+1:], e > v
	}
	return "", false
}

// entryNameKey returns the length of the key that names an entry, "name"
// or "key" (as .NET's <add key="…" value="…" /> writes it, always
// quoted), at index j of s, in any case, or 0.
func entryNameKey(s string, j int) int {
	switch {
	case equalLower(s[j:j+4], "name"):
		return 4
	case equalLower(s[j:j+3], "key"):
		return 3
	}
	return 0
}

// envNameValueAt redacts the value set to an environment-style name
// (upper-case words joined by '_') that ends in the sensitive word of
// the keyword at s[at:end] and a blank, where a command writes the name and the value
// as two arguments: ENV API_TOKEN … in a Dockerfile, set -x, setx,
// doppler secrets set, gh secret set NAME -b …. Nothing but the name
// tells, so the value must look random (looksSecret).
func envNameValueAt(s string, at, end int, spans []span) []span {
	n := at
	for n > 0 && (isUpperAlnum(s[n-1]) || s[n-1] == '_') {
		n--
	}
	if n == at || n > 0 && !isArgSpace(s[n-1]) {
		return spans
	}
	var buf [2]span
	args := lineArgs(s, end, buf[:])
	if len(args) == 2 {
		if f := s[args[0].start:args[0].end]; f == "-b" || f == "--body" {
			args = args[1:]
		}
	}
	if len(args) > 0 && randomArg(s, args[0]) {
		return append(spans, args[0])
	}
	return spans
}

// namedFlagValueAt matches the value of a --value flag, whose second '-'
// is at p and name ends at n, when a --name flag before it on its line
// names a sensitive entry, as in az keyvault secret set --name
// db-password --value … or aws ssm put-parameter --name /prod/api/key
// --value ….
func namedFlagValueAt(s string, p, n int) (span, bool) {
	line := s[max(0, p-namedReach):p]
	line = line[strings.LastIndexByte(line, '\n')+1:]
	i := strings.LastIndex(line, "--name ")
	if i < 0 {
		return span{}, false
	}
	var buf [1]span
	args := lineArgs(line, i+len("--name "), buf[:])
	if len(args) == 0 {
		return span{}, false
	}
	name := line[args[0].start:args[0].end]
	name = name[strings.LastIndexByte(name, '/')+1:]
	strength := keyStrength(name, len(name))
	if !sensitiveEntry(name, strength) {
		return span{}, false
	}
	m, ok := flagValueAt(s, runEnd(s, n, isBlank))
	if !ok {
		return span{}, false
	}
	v := s[m.start:m.end]
	return m, !isPlaceholder(v) && entryValueSecret(v, strength)
}
