package report

import (
	"slices"
	"unicode/utf8"
)

// fold cuts every text longer than the page allows and returns how many
// were cut. Each text may show up to maxEach bytes; when the texts
// together would still show more than total, the longest are cut to one
// common length, the largest that fits (never below minTextBytes), so
// short texts stay whole and the page stays small.
func fold(texts []*text, maxEach, total int) int {
	limit := max(capFor(texts, maxEach, total), minTextBytes)
	n := 0
	for _, t := range texts {
		if len(t.S) <= limit {
			continue
		}
		cut := limit
		for cut > 0 && !utf8.RuneStart(t.S[cut]) {
			cut--
		}
		t.More = len(t.S) - cut
		t.S = t.S[:cut]
		n++
	}
	return n
}

// capFor returns the largest length c, at most maxEach, such that the
// texts cut to c add up to total bytes or less.
func capFor(texts []*text, maxEach, total int) int {
	lens := make([]int, len(texts))
	for i, t := range texts {
		lens[i] = min(len(t.S), maxEach)
	}
	slices.Sort(lens)
	sum := 0
	for _, l := range lens {
		sum += l
	}
	if sum <= total {
		return maxEach
	}
	// Walk up the sorted lengths: the texts shorter than the cap stay
	// whole, and the rest share what is left equally.
	whole := 0
	for i, l := range lens {
		rest := len(lens) - i
		c := (total - whole) / rest
		if c < l {
			return c
		}
		whole += l
	}
	return maxEach
}
