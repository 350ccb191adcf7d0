package scan

import (
	"path"
	"strings"
	"testing"
)

// CleanTarget skips path.Clean for a path it would leave as it is, as
// most paths are; a leading ".." is left to it.
func TestIsCleanOnlyForPathsPathCleanLeaves(t *testing.T) {
	for _, p := range []string{
		"/", "a", "a/b", "/a/b", "a/b/", "/a/b/", "./a", "a/./b", "a/.", "../a", "a/../b", "a/..",
		"a//b", "//a", "..", ".", "/..", ".a/b", "a/.b", "a/..b", "a/b..", "...",
	} {
		if isClean(p) && path.Clean(p) != p {
			t.Errorf("isClean(%q), but path.Clean gives %q", p, path.Clean(p))
		}
	}
	for _, p := range []string{"/", "a", "a/b", "/a/b", ".a/b", "a/.b", "a/..b", "a/b..", "/home/user/out/report.csv"} {
		if !isClean(p) {
			t.Errorf("isClean(%q) is false", p)
		}
	}
}

// A JSON string ends at the first quote that no odd run of backslashes
// escapes.
func TestStringEndSkipsEscapedQuotes(t *testing.T) {
	for _, c := range []struct {
		s   string
		end int
		ok  bool
	}{
		{`"a"x`, 3, true},
		{`"a\"b"x`, 6, true},
		{`"a\\"x`, 5, true},
		{`"a\\\"b"x`, 8, true},
		{`"\\\\"x`, 6, true},
		{`"abc\`, 5, false},
		{`"abc`, 4, false},
	} {
		end, ok := stringEnd(c.s, 0)
		if end != c.end || ok != c.ok {
			t.Errorf("stringEnd(%q) = %d, %v; want %d, %v", c.s, end, ok, c.end, c.ok)
		}
	}
}

// A command in a JSON argument is read as the shell reads it: an escaped
// line break or tab ends a word, and escaped quotes are not part of it.
func TestCommandWordsEndAtEscapedLineBreaks(t *testing.T) {
	args := `{"keystrokes":"grep x drafts/intro.md\ncat \"notes/b.txt\"\tls C:\\tmp\\logs\n"}`
	got := NewTargetFinder(nil).Find(nil, args)
	want := []string{"drafts/intro.md", "notes/b.txt", "c:/tmp/logs"}
	if len(got) != len(want) {
		t.Fatalf("targets %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("targets %q, want %q", got, want)
		}
	}
}

// CleanTarget reads a target once to tell what it needs, and gives what
// trimming, replacing, cleaning and lower-casing in turn give.
func TestCleanTargetGivesWhatEachStepInTurnGives(t *testing.T) {
	stepwise := func(t string) string {
		t = strings.TrimSpace(t)
		if t == "" {
			return ""
		}
		t = strings.ReplaceAll(t, `\`, "/")
		if strings.Contains(t, "/") || strings.HasPrefix(t, ".") {
			t = path.Clean(t)
		} else {
			t = withoutPort(t)
		}
		return strings.ToLower(t)
	}
	pieces := []string{"/", `\`, ".", "..", "a", "B", "Ü", "é", " ", "\t", "\u00a0", ":", "8080", "host", "x.go", "İ", "ZaZ", "README.MD"}
	r := uint64(7)
	for range 20000 {
		var b strings.Builder
		for range 1 + r>>60 {
			r = r*6364136223846793005 + 1442695040888963407
			b.WriteString(pieces[r>>33%uint64(len(pieces))])
		}
		if s := b.String(); CleanTarget(s) != stepwise(s) {
			t.Fatalf("CleanTarget(%q) = %q, want %q", s, CleanTarget(s), stepwise(s))
		}
	}
}
