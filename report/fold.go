package report

import (
	"slices"
	"unicode/utf8"
)

// folder shows the page's texts. Measuring, it notes the length of each
// text, as the page writes it escaped, and shows it empty, so that the
// page's markup can be measured; writing, it cuts every text longer than
// the page allows.
type folder struct {
	measure bool
	costs   []int // measuring: the length of each text
	// Writing: a text of more than limit+foldNoteBytes bytes is cut to
	// limit; one no longer than that is shown whole, as folding would
	// save less than its note costs.
	limit int
}

// fold shows t, which may be nil, as the page may.
func (f *folder) fold(t *text) {
	if t == nil {
		return
	}
	if f.measure {
		f.costs = append(f.costs, escapedLen(t.S))
		t.S = ""
		return
	}
	if escapedLen(t.S) <= f.limit+foldNoteBytes {
		return
	}
	cut := prefixWithin(t.S, f.limit)
	t.More, t.S = len(t.S)-cut, t.S[:cut]
}

// folding returns the folder that writes the page: each text may show up
// to maxEach bytes, and when the texts f measured would together still
// show more than total, the longest are cut to one common length, the
// largest that fits (never below minTextBytes), so short texts stay whole
// and the page stays small. It returns how many texts it cuts.
func (f *folder) folding(maxEach, total int) (*folder, int) {
	// A text cut to limit shows limit bytes and a note: it costs at most
	// limit+foldNoteBytes, which is what the texts share.
	limit := max(capFor(f.costs, maxEach+foldNoteBytes, total)-foldNoteBytes, minTextBytes)
	n := 0
	for _, c := range f.costs {
		if c > limit+foldNoteBytes {
			n++
		}
	}
	return &folder{limit: limit}, n
}

// entry folds each text of e.
func (f *folder) entry(e *entry) {
	eachText(e, f.fold)
}

// eachText calls fn with each text e shows.
func eachText(e *entry, fn func(*text)) {
	fn(e.Text)
	if e.Model != nil {
		fn(e.Model.Reply)
	}
	if g := e.Group; g != nil {
		for _, c := range g.Calls {
			fn(c.Args)
			fn(c.Result)
			fn(c.Error)
		}
		for _, x := range g.Extras {
			eachText(x, fn)
		}
	}
}

// foldNoteBytes bounds what the note on a folded text adds:
// "<i>+N bytes</i>" for N up to 64 MiB, the longest line a trajectory
// may have.
const foldNoteBytes = 24

// capFor returns the largest length c, at most maxEach, such that the
// lengths cut to c add up to total or less.
func capFor(lengths []int, maxEach, total int) int {
	lens := make([]int, len(lengths))
	sum := 0
	for i, l := range lengths {
		lens[i] = min(l, maxEach)
		sum += lens[i]
	}
	if sum <= total {
		return maxEach
	}
	if total <= 0 {
		return 0
	}
	slices.Sort(lens)
	// Walk up the sorted lengths: the texts shorter than the cap stay
	// whole, and the rest share what is left equally.
	whole := 0
	for i, l := range lens {
		c := (total - whole) / (len(lens) - i)
		if c < l {
			return c
		}
		whole += l
	}
	return maxEach
}

// escapedLen is the length of s as escapeText writes it.
func escapedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		n += escapeGrowth(s[i])
	}
	return n
}

// prefixWithin returns the length of the longest prefix of s that is at
// most limit bytes once escaped and does not split a rune.
func prefixWithin(s string, limit int) int {
	n, i := 0, 0
	for i < len(s) {
		_, size := utf8.DecodeRuneInString(s[i:]) // 1 for a byte that is not UTF-8
		cost := size
		if size == 1 {
			cost += escapeGrowth(s[i])
		}
		if n+cost > limit {
			break
		}
		n += cost
		i += size
	}
	return i
}
