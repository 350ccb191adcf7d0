package observer

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/lookout-go/lookout/observer/internal/scan"
)

// Rule recognises one kind of volatile value inside text, such as a UUID or
// a timestamp, so that two calls that differ only in it compare equal. The
// matched text is replaced by "<Name>".
//
// A Rule is a plain value; it is safe for concurrent use when Match is.
type Rule struct {
	// Name is written in place of what the rule matches, as "<Name>".
	Name string
	// Starts lists the bytes a match can begin with; empty means any byte.
	// It lets the scanner skip most positions without calling Match.
	Starts string
	// Match returns the length of the volatile value at the start of s, or
	// 0 when there is none. It is tried only where a word starts: at the
	// start of the text or after a byte that is not a letter or digit. A
	// match that ends in the middle of a word is ignored.
	Match func(s string) int
}

// PatternRule returns a rule that matches the regular expression pattern at
// the start of a word. It is the easy way to extend a [Normalizer] or an
// error-cascade detector; hand-written Match functions are faster.
func PatternRule(name, pattern string) (Rule, error) {
	re, err := regexp.Compile(`^(?:` + pattern + `)`)
	if err != nil {
		return Rule{}, fmt.Errorf("%w: rule %q: %v", ErrInvalidConfig, name, err)
	}
	return Rule{Name: name, Match: func(s string) int {
		loc := re.FindStringIndex(s)
		if loc == nil {
			return 0
		}
		return loc[1]
	}}, nil
}

// DefaultVolatileKeys returns the JSON keys whose values [Normalizer]
// ignores by default: request_id, trace_id, span_id, correlation_id,
// idempotency_key, nonce, timestamp, ts, created_at, updated_at, sent_at
// and cache_buster. Keys are compared case-insensitively with '_' and '-'
// removed, so requestId and Request-ID match request_id. The slice is
// new on each call: append to it to extend the defaults.
func DefaultVolatileKeys() []string {
	return []string{
		"request_id", "trace_id", "span_id", "correlation_id", "idempotency_key",
		"nonce", "timestamp", "ts", "created_at", "updated_at", "sent_at", "cache_buster",
	}
}

// DefaultRules returns the rules [Normalizer] applies by default to string
// values in arguments and to tool results, in the order they are tried:
//
//   - uuid: 8-4-4-4-12 hexadecimal UUIDs;
//   - time: ISO 8601 dates with an optional time and zone
//     (2026-01-15, 2026-01-15T14:03:07.123Z), and times of day with
//     seconds (14:03:07);
//   - epoch: Unix times in seconds or milliseconds (10 or 13 digits
//     starting with 1);
//   - tmp: a temporary directory (/tmp/, /var/tmp/, /dev/shm/,
//     /var/folders/…/T/, …\Temp\) and the random-looking directory
//     after it, one that contains a digit or starts with "tmp", so
//     /tmp/tmp8x2k/out.json becomes <tmp>/out.json;
//   - id: words of 16 or more letters and digits with at least 4 digits,
//     such as request ids and hashes.
//
// Numbers in general are kept: page=2 and page=3 are different calls. The
// slice is new on each call: append to it to extend the defaults.
func DefaultRules() []Rule {
	return []Rule{
		{Name: "uuid", Starts: scan.HexDigits, Match: scan.MatchUUID},
		{Name: "time", Starts: scan.Digits, Match: scan.MatchTime},
		{Name: "epoch", Starts: "1", Match: scan.MatchEpoch},
		{Name: "tmp", Starts: "/" + scan.Letters, Match: scan.MatchTempDir},
		{Name: "id", Starts: scan.Letters + scan.Digits, Match: scan.MatchLongID},
	}
}

// MessageRules returns the rules that make tool results and error
// messages with one cause compare equal, in the order they are tried. The
// error-cascade detector groups failures with them, and the stall
// detector compares results and errors with them:
//
//   - url: absolute URLs (https://api.example.com/v1/x);
//   - uuid and time: as in [DefaultRules];
//   - addr: IPv4 addresses with an optional port (10.0.0.7:5432);
//   - path: words starting with /, ~/, ./, ../ or a drive (C:\), and
//     words with a slash whose last part has an extension (src/main.go);
//   - id: hexadecimal words of 8 or more characters with letters and
//     digits, and words of 16 or more letters and digits with at least 4
//     digits;
//   - n: numbers (42, 3.14, 1,024, 0x1f), with a unit of up to three
//     letters (30s, 512MB), so counters, pids and attempt numbers do not
//     make two messages differ.
//
// The slice is new on each call: append to it to extend the defaults.
func MessageRules() []Rule {
	rules := scan.MessageRules()
	out := make([]Rule, len(rules))
	for i, r := range rules {
		out[i] = Rule(r)
	}
	return out
}

// Normalizer turns tool arguments and results into a canonical form, so
// that calls which differ only in volatile values compare equal. Arguments
// that are JSON are compared as JSON: whitespace and the order of object
// keys do not matter, members whose key is volatile are dropped wherever
// they appear, and each string value has the rules applied. Arguments that
// are not valid JSON (for instance because they were truncated) and tool
// results are compared as text with the rules applied. The rules read the
// first 1 KiB of a text, or of an argument's strings together, and keep
// the rest as it is: a long script or output costs no more to normalize
// than its start.
//
// The zero value uses [DefaultVolatileKeys] and [DefaultRules]. A
// Normalizer is safe for concurrent use as long as its fields are not
// changed while it is in use.
type Normalizer struct {
	// VolatileKeys lists the JSON object keys whose values are ignored. Nil
	// means [DefaultVolatileKeys]; an empty, non-nil slice means none.
	VolatileKeys []string
	// Rules rewrites volatile values inside strings. Nil means
	// [DefaultRules]; an empty, non-nil slice means none.
	Rules []Rule
}

// Normalize returns the canonical form of tool arguments: for JSON, the
// value re-encoded compactly with object keys sorted, volatile members
// dropped and rules applied to strings; otherwise the trimmed text with
// the rules applied, prefixed with "~".
func (n *Normalizer) Normalize(args string) string {
	return string(n.canon().Canonical(args))
}

// NormalizeText returns text with the rules applied, as tool results are
// compared.
func (n *Normalizer) NormalizeText(text string) string {
	return string(n.canon().Text(nil, text))
}

// Compile prepares n for repeated use by one owner, such as an
// [Incremental] observer's state.
func (n *Normalizer) Compile() *Compiled { return &Compiled{c: n.canon()} }

// canon compiles n with reusable buffers.
func (n *Normalizer) canon() *scan.Canon {
	if n == nil || n.VolatileKeys == nil && n.Rules == nil {
		return &scan.Canon{Compiled: defaultCompiled()}
	}
	keys, rules := DefaultVolatileKeys(), DefaultRules()
	if n.VolatileKeys != nil {
		keys = n.VolatileKeys
	}
	if n.Rules != nil {
		rules = n.Rules
	}
	return &scan.Canon{Compiled: scan.CompileRules(keys, rulesOf(rules))}
}

// Compiled is a [Normalizer] prepared for repeated use, with buffers it
// reuses from call to call. It is not safe for concurrent use: give each
// owner its own.
type Compiled struct{ c *scan.Canon }

// Arguments returns the canonical form of tool arguments, as
// [Normalizer.Normalize] does, in a buffer that is valid until the next
// use of c.
func (c *Compiled) Arguments(args string) []byte { return c.c.Canonical(args) }

// AppendText appends text with the rules applied, as
// [Normalizer.NormalizeText] returns it.
func (c *Compiled) AppendText(dst []byte, text string) []byte { return c.c.Text(dst, text) }

// rulesOf copies rules for compiling.
func rulesOf(rules []Rule) []scan.Rule {
	out := make([]scan.Rule, len(rules))
	for i, r := range rules {
		out[i] = scan.Rule(r)
	}
	return out
}

// defaultCompiled is the zero Normalizer compiled, once per process: every
// run's pipeline and detectors use it, and compiling the default rules
// costs more than the rest of starting a run.
var defaultCompiled = sync.OnceValue(func() *scan.Compiled {
	return scan.CompileRules(DefaultVolatileKeys(), rulesOf(DefaultRules()))
})
