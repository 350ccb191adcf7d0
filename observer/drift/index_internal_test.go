package drift

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lookout-go/lookout/observer"
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

// Matching a target takes a few lookups whatever the number of entries:
// against ten thousand entries it takes about as long as against ten,
// where matching each entry in turn would take a thousand times longer.
func TestScopeIndexMatchesInTimeIndependentOfItsSize(t *testing.T) {
	timeCovers := func(entries int) time.Duration {
		var x scopeIndex
		for i := range entries {
			x.add(fmt.Sprintf("/srv/data/set%d", i))
			x.add(fmt.Sprintf("lib/mod%d", i))
		}
		targets := []string{"/home/user/project/src/main.go", "/srv/data/other/file.txt", "vendor/lib/x/y.go"}
		best := time.Duration(1 << 62)
		for range 5 {
			start := time.Now()
			for range 2000 {
				for _, tg := range targets {
					x.covers(tg)
				}
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	small, large := timeCovers(10), timeCovers(10_000)
	if large > 10*small {
		t.Errorf("matching against 10,000 entries took %v, against 10 %v", large, small)
	}
}

// The prompt is read for the scope once the window holds enough calls to
// judge it: a run too short for that never reads it.
func TestDriftReadsThePromptOnceItCanJudge(t *testing.T) {
	st := New().newState()
	st.taskSeen, st.taskPrompt, st.stale = true, "Fix services/billing/invoice.go.", true
	for i := range int64(DefaultDerivedMinCalls) {
		if st.promptRead {
			t.Fatalf("the prompt was read after %d calls", i)
		}
		st.add(&observer.ToolCallRecord{CallIndex: i + 1, ToolName: "read_file", Arguments: fmt.Sprintf(`{"path":"web/p%d.tsx"}`, i), Success: true})
		st.check(&observer.Context{CallIndex: i + 1})
	}
	if !st.promptRead || len(st.scope) == 0 {
		t.Fatalf("the scope was not built after %d calls: %q", DefaultDerivedMinCalls, st.scope)
	}
}

// A relative path is resolved under the working directory of its call,
// the same path again under a new one after the agent changes directory.
func TestRelativePathsFollowTheWorkingDirectory(t *testing.T) {
	st := &driftState{finder: scan.NewTargetFinder(nil)}
	resolved := func(dir string) string {
		st.changeDir(dir)
		st.targets = st.finder.Find(st.targets[:0], `{"path":"notes/x.txt"}`)
		st.resolve()
		return st.targets[0]
	}
	for _, c := range []struct{ dir, want string }{
		{"/srv/a", "/srv/a/notes/x.txt"}, {"/srv/a", "/srv/a/notes/x.txt"},
		{"/srv/b", "/srv/b/notes/x.txt"}, {"../c", "/srv/c/notes/x.txt"},
	} {
		if got := resolved(c.dir); got != c.want {
			t.Errorf("after cd %s: %q, want %q", c.dir, got, c.want)
		}
	}
}
