package scan

import (
	"strings"
	"testing"
)

func TestRuleSetMarksTheBytesEachRuleCanStartWith(t *testing.T) {
	match := func(string) int { return 0 }
	var rules []Rule
	for k := range 70 {
		var starts string
		switch k % 4 {
		case 0:
			starts = Digits
		case 1:
			starts = "" // any byte
		case 2:
			starts = `/\~.` + Letters
		case 3:
			starts = string([]byte{0, 0x80, 0xff, byte(k)})
		}
		rules = append(rules, Rule{Name: "r", Starts: starts, Match: match})
	}
	rules = append(rules, Rule{Name: "no match"})
	rs := newRuleSet(rules)
	if len(rs.rules) != 70 {
		t.Fatalf("%d rules kept, want the 70 that match", len(rs.rules))
	}
	for b := range 256 {
		var want uint64
		for k, r := range rules[:70] {
			switch {
			case k >= 64:
				// Rules past the 64th share the last bit, set for every
				// byte: they are tried at every word start.
				want |= 1 << 63
			case r.Starts == "" || strings.IndexByte(r.Starts, byte(b)) >= 0:
				want |= 1 << k
			}
		}
		if rs.starts[b] != want {
			t.Errorf("byte %#x: starts %064b, want %064b", b, rs.starts[b], want)
		}
	}
}

// A rule set skips the words too short or too long for a matcher's
// matches to start with, or followed by a byte they cannot have next, and
// finds what it would find trying every word.
func TestShortWordsAreSkippedWithoutChangingTheResult(t *testing.T) {
	rules := append(MessageRules(),
		Rule{Name: "uuid", Starts: HexDigits, Match: MatchUUID},
		Rule{Name: "epoch", Starts: "1", Match: MatchEpoch},
		Rule{Name: "long", Starts: Letters + Digits, Match: MatchLongID},
		Rule{Name: "tmp", Starts: "/" + Letters, Match: MatchTempDir})
	filtered := newRuleSet(rules)
	if filtered.runs[0]&(1<<1) != 0 || filtered.runs[8]&(1<<1) == 0 {
		t.Fatal("the uuid rule is tried on words shorter than 8 bytes")
	}
	every := filtered
	for n := range every.runs {
		every.runs[n] = ^uint64(0)
	}
	for b := range every.follows {
		every.follows[b] = ^uint64(0)
	}
	pieces := []string{
		"0f8fad5b-d9cb-469f-a165-70867728950e", "1767225600", "1767225600123", "a1b2c3d4e5f6a7b8c9d0",
		"deadbeef", "deadbee", "abc", "12", "x", "_", "/tmp/tmp8x2k/", `C:\\Users\\me\\AppData\\Local\\Temp\\x1\\`, "C:", "2026-01-15T14:03:07Z", "é",
		"10.0.0.7:5432", "1.2.3.4", "14:03:07", "9:05:01", "12345:", "17672256001", "https://a.example/x", "git+ssh://h/r",
		"src/main.go", "a.b/c.txt", "x~y/z.md", "C:\\x", "d:", "%", "@", "+", "日本/x.go", " ", "-", ".", ":", "\n", `"`,
	}
	r := uint64(1)
	for range 5000 {
		var b strings.Builder
		for range 12 {
			r = r*6364136223846793005 + 1442695040888963407
			b.WriteString(pieces[r>>33%uint64(len(pieces))])
		}
		s := b.String()
		if got, want := string(filtered.apply(nil, s)), string(every.apply(nil, s)); got != want {
			t.Fatalf("%q: %q, trying every word gives %q", s, got, want)
		}
	}
}

// A volatile key is dropped however it is spelled; an object of one member
// is written as it is.
func TestVolatileKeysAreDroppedInAnySpelling(t *testing.T) {
	c := &Canon{Compiled: CompileRules([]string{"request_id", "timestamp"}, nil)}
	for args, want := range map[string]string{
		`{"_Request-ID":"x","a":1}`: `{"a":1}`,
		`{"TimeStamp":1,"b":[2]}`:   `{"b":[2]}`,
		`{"path":"x.go"}`:           `{"path":"x.go"}`,
		`{"requests":1,"Timer":2}`:  `{"Timer":2,"requests":1}`,
		`{"request_id":"x"}`:        `{}`,
	} {
		if got := string(c.Canonical(args)); got != want {
			t.Errorf("Canonical(%s) = %s, want %s", args, got, want)
		}
	}
}
