package drift

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/observer/internal/scan"
)

// The index answers as matching the target with scan.InScope against each
// entry does, for entries and targets made of the same few parts.
func TestScopeIndexAgreesWithMatchingEachEntry(t *testing.T) {
	parts := []string{"home", "user", "out", "services", "billing", "orders", "orders.csv", "x.go", "api.stripe.com", "stripe.com", "a.b", "docs"}
	r := rand.New(rand.NewPCG(1, 2))
	path := func() string {
		n := 1 + r.IntN(4)
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteByte('/')
		}
		for i := range n {
			if i > 0 {
				b.WriteByte('/')
			}
			b.WriteString(parts[r.IntN(len(parts))])
		}
		return b.String()
	}
	for range 2000 {
		var x scopeIndex
		var entries []string
		for range 1 + r.IntN(4) {
			e := path()
			if r.IntN(10) == 0 {
				e = "/"
			}
			entries = append(entries, e)
			x.add(e)
		}
		for range 20 {
			target := path()
			want := slices.ContainsFunc(entries, func(e string) bool { return scan.InScope(e, target) })
			if got := x.covers(target); got != want {
				t.Fatalf("entries %q, target %q: covers says %v, InScope %v", entries, target, got, want)
			}
		}
		x.reset()
		if x.covers(entries[0]) {
			t.Fatalf("an empty index covers %q", entries[0])
		}
	}
}
