package report

import (
	"slices"
	"unicode/utf8"
)

// fold cuts every text longer than the page allows and returns how many
// were cut. Lengths are counted as the page writes them, escaped. Each
// text may show up to maxEach bytes; when the texts together would
// still show more than total, the longest are cut to one common length,
// the largest that fits (never below minTextBytes), so short texts stay
// whole and the page stays small.
func fold(texts []*text, maxEach, total int) int {
	costs := make([]int, len(texts))
	for i, t := range texts {
		costs[i] = escapedLen(t.S)
	}
	// A text cut to limit shows limit bytes and a note: it costs at most
	// limit+foldNoteBytes, which is what the texts share. One no longer
	// than that is shown whole.
	limit := max(capFor(costs, maxEach+foldNoteBytes, total)-foldNoteBytes, minTextBytes)
	n := 0
	for i, t := range texts {
		if costs[i] <= limit+foldNoteBytes {
			continue // folding would save less than its note costs
		}
		cut := prefixWithin(t.S, limit)
		t.More = len(t.S) - cut
		t.S = t.S[:cut]
		n++
	}
	return n
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
