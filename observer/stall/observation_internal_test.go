package stall

import (
	"hash/maphash"
	"math/rand/v2"
	"testing"
)

// TestObservationReusedIsAsNormalized: a result the same as one lately
// normalized takes that one's hash, which is the hash of its own
// normalized text, with the polling tools' rules or the results' as the
// call has them.
func TestObservationReusedIsAsNormalized(t *testing.T) {
	results := []string{"", "ok", "took 12ms at 2026-01-15", "took 13ms at 2026-01-16", "> echo 1\n> ", "see /tmp/a1/x.go"}
	errs := []string{"", "exit 1", "exit 2 after 3 tries"}
	st := (&Detector{}).newState()
	rng := rand.New(rand.NewPCG(3, 5))
	reused := 0
	for range 2000 {
		c := &stallCall{result: results[rng.IntN(len(results))], errMsg: errs[rng.IntN(len(errs))], exempt: rng.IntN(3) == 0}
		for _, r := range st.normalized {
			if r.done && r.exempt == c.exempt && r.result == c.result && r.errMsg == c.errMsg {
				reused++
				break
			}
		}
		if got, want := st.observation(c), normalizedHash(st, c); got != want {
			t.Fatalf("observation(%q, %q, exempt %v) = %x, want %x", c.result, c.errMsg, c.exempt, got, want)
		}
	}
	if reused == 0 {
		t.Fatal("no result was reused")
	}
}

// normalizedHash is the hash of c's result and error normalized, as
// observation computed it for every call before it reused results.
func normalizedHash(st *stallState, c *stallCall) uint64 {
	var text []byte
	if c.exempt {
		text = st.canon.AppendText(text, c.result)
		text = append(text, 0)
		text = st.canon.AppendText(text, c.errMsg)
	} else {
		text = st.results.Text(text, c.result)
		text = append(text, 0)
		text = st.results.Text(text, c.errMsg)
	}
	return maphash.Bytes(st.seed, text)
}
