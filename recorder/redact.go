package recorder

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// Redacted replaces a secret in redacted text.
const Redacted = "[REDACTED]"

// Redactor rewrites free text before any sink sees it. The recorder calls
// it on every free-text field of a record: tool arguments and results,
// error text, message content, reasoning and tool-call arguments, message
// text parts, assessment markdown, run metadata values and extension
// bodies. It must return s itself when there is nothing to change, and be
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
//   - the value of key/value pairs whose key ends in password, passwd,
//     secret, token, api_key, apikey, api-key, access_key or private_key
//     (any case), written as key=value, key: value, "key": "value" or
//     with escaped quotes inside a JSON string. A quoted key needs a quoted
//     value, so JSON numbers, booleans and nulls are left alone and JSON
//     text stays valid.
//
// Text with none of the trigger characters is returned unchanged without
// allocating. The returned Redactor is safe for concurrent use.
func Secrets() Redactor { return RedactFunc(redactSecrets) }

type span struct{ start, end int }

// minSecretText is the length of the shortest text any shape matches: a
// five-letter key such as "token", a separator and one byte of value.
const minSecretText = 7

func redactSecrets(s string) string {
	if len(s) < minSecretText {
		return s
	}
	var buf [8]span
	spans := buf[:0]
	spans = findOpenAIKeys(s, spans)
	spans = findGitHubTokens(s, spans)
	spans = findAWSKeys(s, spans, "AKIA")
	spans = findAWSKeys(s, spans, "ASIA")
	spans = findBearer(s, spans, "Bearer")
	spans = findBearer(s, spans, "bearer")
	spans = findBearer(s, spans, "BEARER")
	spans = findPairs(s, spans, ':')
	spans = findPairs(s, spans, '=')
	if len(spans) == 0 {
		return s
	}
	return replaceSpans(s, spans)
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

// isKeyByte reports characters that make up API keys and identifiers.
func isKeyByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

// boundaryBefore reports whether position i starts a word.
func boundaryBefore(s string, i int) bool { return i == 0 || !isKeyByte(s[i-1]) }

// runEnd returns the end of the run of bytes starting at i that satisfy ok.
func runEnd(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func findOpenAIKeys(s string, spans []span) []span {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '-')
		if j < 0 {
			return spans
		}
		p := i + j
		i = p + 1
		if p < 2 || s[p-2:p] != "sk" || !boundaryBefore(s, p-2) {
			continue
		}
		end := runEnd(s, p+1, isKeyByte)
		if end-(p+1) >= 16 {
			spans = append(spans, span{p - 2, end})
			i = end
		}
	}
}

func findGitHubTokens(s string, spans []span) []span {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '_')
		if j < 0 {
			return spans
		}
		p := i + j
		i = p + 1
		switch {
		case p >= 3 && s[p-3:p-1] == "gh" && strings.IndexByte("pousr", s[p-1]) >= 0 && boundaryBefore(s, p-3):
			end := runEnd(s, p+1, isAlnum)
			if end-(p+1) >= 20 {
				spans = append(spans, span{p - 3, end})
				i = end
			}
		case p >= 6 && s[p-6:p] == "github" && strings.HasPrefix(s[p:], "_pat_") && boundaryBefore(s, p-6):
			end := runEnd(s, p+5, func(c byte) bool { return isAlnum(c) || c == '_' })
			if end-(p+5) >= 20 {
				spans = append(spans, span{p - 6, end})
				i = end
			}
		}
	}
}

func findAWSKeys(s string, spans []span, prefix string) []span {
	isUpperAlnum := func(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	for i := 0; ; {
		j := strings.Index(s[i:], prefix)
		if j < 0 {
			return spans
		}
		p := i + j
		i = p + 1
		end := p + 20
		if end > len(s) || !boundaryBefore(s, p) || runEnd(s, p+4, isUpperAlnum) < end || (end < len(s) && isAlnum(s[end])) {
			continue
		}
		spans = append(spans, span{p, end})
		i = end
	}
}

func isTokenByte(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-._~+/=", c) >= 0
}

// findBearer finds the token after word ("Bearer", "bearer" or "BEARER").
func findBearer(s string, spans []span, word string) []span {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return spans
		}
		p := i + j
		i = p + len(word)
		if !boundaryBefore(s, p) {
			continue
		}
		tok := runEnd(s, i, func(c byte) bool { return c == ' ' || c == '\t' })
		if tok == i {
			continue
		}
		end := runEnd(s, tok, isTokenByte)
		if end-tok >= 8 {
			spans = append(spans, span{tok, end})
			i = end
		}
	}
}

var sensitiveKeySuffixes = []string{"password", "passwd", "secret", "token", "api_key", "apikey", "api-key", "access_key", "private_key"}

func sensitiveKey(k string) bool {
	for _, suf := range sensitiveKeySuffixes {
		if len(k) >= len(suf) && strings.EqualFold(k[len(k)-len(suf):], suf) {
			return true
		}
	}
	return false
}

// findPairs finds values of sensitive key/value pairs separated by sep.
func findPairs(s string, spans []span, sep byte) []span {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], sep)
		if j < 0 {
			return spans
		}
		p := i + j
		i = p + 1
		// Walk back over spaces and a closing quote to the key.
		k := p
		for k > 0 && s[k-1] == ' ' {
			k--
		}
		quotedKey := false
		if k > 0 && (s[k-1] == '"' || s[k-1] == '\'') {
			quotedKey = true
			k--
			if k > 0 && s[k-1] == '\\' {
				k--
			}
		}
		// Every sensitive key ends in d, t, n or y: a cheap first filter.
		if k == 0 || strings.IndexByte("dtnyDTNY", s[k-1]) < 0 {
			continue
		}
		keyEnd := k
		for k > 0 && isKeyByte(s[k-1]) {
			k--
		}
		if k == keyEnd || !sensitiveKey(s[k:keyEnd]) {
			continue
		}
		// Walk forward over spaces and an opening quote to the value.
		v := runEnd(s, p+1, func(c byte) bool { return c == ' ' })
		var end int
		switch {
		case strings.HasPrefix(s[v:], `\"`):
			v += 2
			end = v + strings.Index(s[v:], `\"`)
			if end < v {
				end = len(s)
			}
		case v < len(s) && s[v] == '"':
			v++
			end = closingQuote(s, v)
		case v < len(s) && s[v] == '\'':
			v++
			end = v + strings.IndexByte(s[v:], '\'')
			if end < v {
				end = len(s)
			}
		case quotedKey:
			continue // a JSON number, boolean or null
		default:
			end = runEnd(s, v, func(c byte) bool { return strings.IndexByte(" \t\r\n,;&}])\"'<\\", c) < 0 })
		}
		if end == v || strings.HasPrefix(s[v:], Redacted) {
			continue
		}
		spans = append(spans, span{v, end})
		i = end
	}
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

// redaction applies a list of redactors in order.
type redaction []Redactor

func (rs redaction) text(s string) string {
	for _, r := range rs {
		s = r.Redact(s)
	}
	return s
}

// payload returns p with every free-text field redacted. It never edits p:
// when something changes it returns a copy.
func (rs redaction) payload(p Payload) Payload {
	switch p := p.(type) {
	case *RunStarted:
		if md := rs.metadata(p.Metadata); md != nil {
			c := *p
			c.Metadata = md
			return &c
		}
	case *RunEnded:
		if e := rs.text(p.Error); e != p.Error {
			c := *p
			c.Error = e
			return &c
		}
	case *ModelResponse:
		if m := rs.message(p.Message); m != p.Message {
			c := *p
			c.Message = m
			return &c
		}
	case *Message:
		if m := rs.message(p.Message); m != p.Message {
			return &Message{Message: m}
		}
	case *ToolStarted:
		if a := rs.text(p.Arguments); a != p.Arguments {
			c := *p
			c.Arguments = a
			return &c
		}
	case *ToolEnded:
		res, e := rs.text(p.Result), rs.text(p.Error)
		if res != p.Result || e != p.Error {
			c := *p
			c.Result, c.Error = res, e
			return &c
		}
	case *Assessment:
		if md := rs.text(p.Markdown); md != p.Markdown {
			c := *p
			c.Markdown = md
			return &c
		}
	case *Extension:
		if b, ok := rs.json(p.Body); ok {
			return &Extension{Name: p.Name, Body: b}
		}
	case *Unknown:
		if b, ok := rs.json(p.Body); ok {
			return &Unknown{Name: p.Name, Body: b}
		}
	}
	return p
}

// metadata returns a redacted copy of md, or nil when nothing changes.
func (rs redaction) metadata(md map[string]string) map[string]string {
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
func (rs redaction) json(body json.RawMessage) (json.RawMessage, bool) {
	s := string(body)
	r := rs.text(s)
	if r == s {
		return nil, false
	}
	if json.Valid([]byte(r)) {
		return json.RawMessage(r), true
	}
	return json.RawMessage(appendString(nil, r)), true
}

// message returns m, or a copy of m with its text redacted. Slices are
// copied before they are changed; the caller's message is never edited.
func (rs redaction) message(m *schema.Message) *schema.Message {
	if m == nil {
		return nil
	}
	var c *schema.Message
	clone := func() *schema.Message {
		if c == nil {
			cp := *m
			c = &cp
		}
		return c
	}
	if s := rs.text(m.Content); s != m.Content {
		clone().Content = s
	}
	if s := rs.text(m.ReasoningContent); s != m.ReasoningContent {
		clone().ReasoningContent = s
	}
	for i, tc := range m.ToolCalls {
		if s := rs.text(tc.Function.Arguments); s != tc.Function.Arguments {
			if c == nil || &c.ToolCalls[0] == &m.ToolCalls[0] {
				clone().ToolCalls = append([]schema.ToolCall(nil), m.ToolCalls...)
			}
			c.ToolCalls[i].Function.Arguments = s
		}
	}
	for i, part := range m.MultiContent {
		if s := rs.text(part.Text); s != part.Text {
			if c == nil || &c.MultiContent[0] == &m.MultiContent[0] {
				//lint:ignore SA1019 deprecated, but older models still fill it and its text must be redacted too
				clone().MultiContent = append([]schema.ChatMessagePart(nil), m.MultiContent...)
			}
			c.MultiContent[i].Text = s
		}
	}
	for i, part := range m.UserInputMultiContent {
		if s := rs.text(part.Text); s != part.Text {
			if c == nil || &c.UserInputMultiContent[0] == &m.UserInputMultiContent[0] {
				clone().UserInputMultiContent = append([]schema.MessageInputPart(nil), m.UserInputMultiContent...)
			}
			c.UserInputMultiContent[i].Text = s
		}
	}
	for i, part := range m.AssistantGenMultiContent {
		if s := rs.text(part.Text); s != part.Text {
			if c == nil || &c.AssistantGenMultiContent[0] == &m.AssistantGenMultiContent[0] {
				clone().AssistantGenMultiContent = append([]schema.MessageOutputPart(nil), m.AssistantGenMultiContent...)
			}
			c.AssistantGenMultiContent[i].Text = s
		}
	}
	if c == nil {
		return m
	}
	return c
}
