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
