package stall

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// A result reports a failure when it holds a failure word in any case,
// found in one pass: the same answer as looking for each word in turn.
func TestReportsFailureFindsEachWordInAnyCase(t *testing.T) {
	naive := func(s string) bool {
		for _, w := range failureWords {
			if strings.Contains(strings.ToLower(s), w) {
				return true
			}
		}
		return false
	}
	for _, s := range []string{"", "ok", "Traceback (most recent", "file NOT FOUND", "no\\x20such", "no such file",
		"Permission Denied", "it failed", "ERRORS: 0", "unab", "cannot", "x" + strings.Repeat("e", 50) + "rror"} {
		if got, want := reportsFailure(s), naive(s); got != want {
			t.Errorf("reportsFailure(%q) = %v, want %v", s, got, want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	const letters = "abcdefghijklmnopqrstuvwxyz ERNOTFUDS"
	for range 20_000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = letters[r.IntN(len(letters))]
		}
		if got, want := reportsFailure(string(b)), naive(string(b)); got != want {
			t.Fatalf("reportsFailure(%q) = %v, want %v", b, got, want)
		}
	}
}
