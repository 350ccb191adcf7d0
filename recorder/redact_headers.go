package recorder

import "strings"

// headerKeywords start an HTTP header whose name begins with "X-", as a
// line of a request or response, a curl -H argument or a key of a JSON
// map of headers writes it. A provider's own header may carry its key
// under a name that says nothing of one, as X-Honeycomb-Team does.
var headerKeywords = [...]string{"\nX-", "\nx-", "\"X-", "\"x-", "'X-", "'x-", "> X-", "> x-"}

// headerNotSecret are the last words of header names whose values are
// ids, traces, digests or settings rather than keys, though random.
var headerNotSecret = [...]string{
	"id", "ids", "trace", "traceid", "span", "spanid", "request", "requestid", "correlation", "ray", "etag", "hash",
	"digest", "checksum", "nonce", "signature", "sig", "version", "date", "time", "timestamp", "type", "encoding",
	"length", "cache", "status", "region", "host", "origin", "context", "parent", "sampled", "session", "challenge",
}

// customHeaderAt redacts the value of the header whose name starts two
// bytes before end, after the keyword at s[at:end], when the name ends in
// no word that says its value is something else (headerNotSecret) and
// the value is one token as random as a key (strongRandom) with no '='
// inside it. A name that ends in a sensitive word is the pair matcher's.
func customHeaderAt(s string, at, end int, spans []span) []span {
	name := end - 2
	n := runEnd(s, name, isKeyByte)
	if n >= len(s) || keyStrength(s, n) != keyPlain || !headerNameSecret(s[name:n]) {
		return spans
	}
	i := n
	quoted := s[at] == '"' && s[n] == '"' || strings.HasPrefix(s[n:], `\"`)
	if quoted {
		i = pastQuote(s, n)
	}
	if i >= len(s) || s[i] != ':' {
		return spans
	}
	v := runEnd(s, i+1, isBlank)
	if quoted {
		v = pastQuote(s, v)
	}
	e := runEnd(s, v, isTokenByte)
	if e < len(s) && !headerValueEnd(s[e]) {
		return spans
	}
	val := s[v:e]
	if eq := strings.IndexByte(val, '='); eq >= 0 && strings.Trim(val[eq:], "=") != "" || !strongRandom(val) {
		return spans
	}
	return append(spans, span{v, e})
}

// headerNameSecret reports whether the value of a header named name may
// be a key: its last word, less a number after it (x-amz-id-2), is not
// one of headerNotSecret.
func headerNameSecret(name string) bool {
	name = strings.TrimRight(name, "0123456789-_")
	w := name[strings.LastIndexAny(name, "-_")+1:]
	for _, not := range headerNotSecret {
		if len(w) == len(not) && equalLower(w, not) {
			return false
		}
	}
	return true
}

// headerValueEnd reports whether c may follow a header's value: the end
// of its line or of its quoted string, or a ';' or ',' before more.
func headerValueEnd(c byte) bool {
	return c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '\\' || c == ';' || c == ',' || c == ' '
}

// headerFirst reports whether s starts with an X- header's name, which
// no keyword's byte comes before.
func headerFirst(s string) bool { return len(s) > 2 && s[1] == '-' && s[0]|0x20 == 'x' }

// firstHeaderSpans appends what customHeaderAt finds in the header that
// starts s, if one does.
func firstHeaderSpans(s string, spans []span) []span {
	if headerFirst(s) {
		return customHeaderAt(s, 0, 2, spans)
	}
	return spans
}
