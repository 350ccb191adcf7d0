package secretcorpus

import (
	"embed"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

//go:embed secrets.txt nearmisses.txt
var files embed.FS

// Seed is the seed the corpus's random parts are drawn from.
const Seed = 33

// Secret is a text that holds secrets.
type Secret struct {
	Provider, Shape string
	// Text is the text, with its secrets in it.
	Text string
	// Secrets are the secrets in Text, each of which must not survive
	// redaction.
	Secrets []string
	// Pieces are the random parts of the secrets twelve characters long
	// or more, none of which may survive redaction either.
	Pieces []string
}

// Secrets returns the corpus's texts with secrets.
func Secrets() []Secret {
	s, err := ParseSecrets(mustRead("secrets.txt"), Seed)
	if err != nil {
		panic(err)
	}
	return s
}

// NearMisses returns the corpus's texts that hold no secret.
func NearMisses() []string {
	s, err := ParseNearMisses(mustRead("nearmisses.txt"), Seed)
	if err != nil {
		panic(err)
	}
	return s
}

func mustRead(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// ParseSecrets reads texts with secrets written as in secrets.txt, one a
// line, "provider | shape | text", drawing their random parts from seed.
func ParseSecrets(src string, seed uint64) ([]Secret, error) {
	g := newGen(seed)
	var out []Secret
	for n, line := range lines(src) {
		provider, rest, ok1 := strings.Cut(line, " | ")
		shape, text, ok2 := strings.Cut(rest, " | ")
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("line %d: want provider | shape | text", n)
		}
		s, err := g.secret(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		s.Provider, s.Shape = provider, shape
		out = append(out, s)
	}
	return out, nil
}

// ParseNearMisses reads texts without secrets written as in
// nearmisses.txt, one a line, drawing their random parts from seed.
func ParseNearMisses(src string, seed uint64) ([]string, error) {
	g := newGen(seed)
	var out []string
	for n, line := range lines(src) {
		s, err := g.secret(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if len(s.Secrets) > 0 {
			return nil, fmt.Errorf("line %d: a near-miss with a secret", n)
		}
		out = append(out, s.Text)
	}
	return out, nil
}

// lines returns the lines of src that are neither blank nor comments.
func lines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimRight(l, "\r"); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// kinds are the characters each kind of random part is drawn from.
var kinds = map[string]string{
	"a":   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	"L":   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
	"s":   "abcdefghijklmnopqrstuvwxyz",
	"l":   "abcdefghijklmnopqrstuvwxyz0123456789",
	"u":   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	"U":   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	"h":   "0123456789abcdef",
	"H":   "0123456789ABCDEF",
	"d":   "0123456789",
	"b":   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
	"w":   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
	"u32": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
	"c":   "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", // bech32
}

type gen struct{ rng *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, 1))} }

func (g *gen) draw(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.rng.IntN(len(alphabet))]
	}
	return string(b)
}

func (g *gen) uuid() string {
	h := kinds["h"]
	return g.draw(h, 8) + "-" + g.draw(h, 4) + "-4" + g.draw(h, 3) + "-" + g.draw("89ab", 1) + g.draw(h, 3) + "-" + g.draw(h, 12)
}

// secret expands the template t: its escapes, its random parts and its
// marks around secrets.
func (g *gen) secret(t string) (Secret, error) {
	var text, cur strings.Builder
	var s Secret
	in := false
	for i := 0; i < len(t); {
		switch {
		case strings.HasPrefix(t[i:], "«"):
			if in {
				return s, fmt.Errorf("nested «")
			}
			in = true
			cur.Reset()
			i += len("«")
		case strings.HasPrefix(t[i:], "»"):
			if !in {
				return s, fmt.Errorf("» without «")
			}
			in = false
			s.Secrets = append(s.Secrets, cur.String())
			i += len("»")
		case t[i] == '\\' && i+1 < len(t):
			c := map[byte]string{'n': "\n", 't': "\t", '\\': `\`}[t[i+1]]
			if c == "" {
				c = t[i : i+2]
			}
			text.WriteString(c)
			cur.WriteString(c)
			i += 2
		case t[i] == '{' && g.isPart(t[i:]):
			end := strings.IndexByte(t[i:], '}')
			part := g.part(t[i+1 : i+end])
			text.WriteString(part)
			cur.WriteString(part)
			if in && len(part) >= 12 {
				s.Pieces = append(s.Pieces, part)
			}
			i += end + 1
		default:
			text.WriteByte(t[i])
			cur.WriteByte(t[i])
			i++
		}
	}
	if in {
		return s, fmt.Errorf("« without »")
	}
	s.Text = text.String()
	return s, nil
}

// isPart reports whether t starts with a random part, {uuid} or
// {KIND:N}.
func (g *gen) isPart(t string) bool {
	end := strings.IndexByte(t, '}')
	if end < 0 {
		return false
	}
	spec := t[1:end]
	if spec == "uuid" {
		return true
	}
	kind, n, ok := strings.Cut(spec, ":")
	_, known := kinds[kind]
	_, err := strconv.Atoi(n)
	return ok && known && err == nil
}

func (g *gen) part(spec string) string {
	if spec == "uuid" {
		return g.uuid()
	}
	kind, n, _ := strings.Cut(spec, ":")
	count, _ := strconv.Atoi(n)
	return g.draw(kinds[kind], count)
}
