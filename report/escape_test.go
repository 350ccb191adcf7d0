package report

import (
	"bufio"
	"html"
	"strings"
	"testing"
	"unicode/utf8"
)

func escaped(s string, esc func(*bufio.Writer, string)) string {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	esc(w, s)
	w.Flush()
	return b.String()
}

// FuzzEscape checks that escaped text holds no markup and reads back as
// the text, NUL aside, which HTML forbids and the page shows as U+FFFD.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", `</pre><script>alert("x")</script>`, "a & b", "\x00", `"'`, "&amp;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.ReplaceAll(s, "\x00", "\uFFFD")
		text := escaped(s, escapeText)
		if strings.ContainsAny(text, "<>") {
			t.Errorf("escapeText(%q) = %q holds a tag character", s, text)
		}
		if got := html.UnescapeString(text); got != want {
			t.Errorf("escapeText(%q) reads back as %q", s, got)
		}
		if len(text) != escapedLen(s) {
			t.Errorf("escapedLen(%q) = %d, but the escaped text is %d bytes", s, escapedLen(s), len(text))
		}
		attr := escaped(s, escapeAttr)
		if strings.ContainsAny(attr, `<>"'`) {
			t.Errorf("escapeAttr(%q) = %q holds a quote or tag character", s, attr)
		}
		if got := html.UnescapeString(attr); got != want {
			t.Errorf("escapeAttr(%q) reads back as %q", s, got)
		}
	})
}

// FuzzPrefixWithin checks that a cut text fits its limit once escaped and
// ends on a rune boundary, and that one more rune would not fit.
func FuzzPrefixWithin(f *testing.F) {
	f.Add("héllo <world> & more", 7)
	f.Add("ééé", 1)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < 0 || limit > len(s)*6 {
			return
		}
		n := prefixWithin(s, limit)
		if n < 0 || n > len(s) {
			t.Fatalf("prefixWithin(%q, %d) = %d", s, limit, n)
		}
		if escapedLen(s[:n]) > limit {
			t.Errorf("prefixWithin(%q, %d) = %d: %d bytes escaped", s, limit, n, escapedLen(s[:n]))
		}
		if utf8.ValidString(s) && !utf8.ValidString(s[:n]) {
			t.Errorf("prefixWithin(%q, %d) = %d cuts a rune", s, limit, n)
		}
		if n < len(s) {
			_, size := utf8.DecodeRuneInString(s[n:])
			if escapedLen(s[:n+size]) <= limit {
				t.Errorf("prefixWithin(%q, %d) = %d, but the next rune fits too", s, limit, n)
			}
		}
	})
}

func TestCapForSharesTheBudget(t *testing.T) {
	for _, c := range []struct {
		name           string
		lengths        []int
		maxEach, total int
		want           int
	}{
		{"all fit: the cap is maxEach", []int{10, 20}, 100, 1000, 100},
		{"the short stay whole, the long share the rest", []int{100, 1000, 1000}, 5000, 1100, 500},
		{"all cut alike", []int{1000, 1000}, 5000, 100, 50},
		{"no room", []int{1000}, 5000, -5, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := capFor(c.lengths, c.maxEach, c.total); got != c.want {
				t.Errorf("capFor(%v, %d, %d) = %d, want %d", c.lengths, c.maxEach, c.total, got, c.want)
			}
		})
	}
}
