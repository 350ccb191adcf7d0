package scan_test

import (
	"strings"
	"testing"

	"github.com/lookout-go/lookout/observer/internal/scan"
)

// A word set finds its words, with their values, and no other word: not
// one that shares a member's length and first and last bytes, nor one of
// the longest lengths, which share a filter.
func TestAWordSetFindsItsWordsOnly(t *testing.T) {
	long := strings.Repeat("x", 30)
	set := scan.NewWordSet(map[string]int{"cmd": 1, "keystrokes": 2, "a": 3, long: 4})
	for w, want := range map[string]int{"cmd": 1, "keystrokes": 2, "a": 3, long: 4} {
		if got, ok := set.Get([]byte(w)); !ok || got != want {
			t.Errorf("Get(%q) = %d, %v; want %d, true", w, got, ok, want)
		}
	}
	for _, w := range []string{"", "cad", "cm", "cmdd", "b", "A", "Cmd", long + "x", long[:24], "keystrokez"} {
		if set.Has([]byte(w)) {
			t.Errorf("Has(%q) = true", w)
		}
	}
}
