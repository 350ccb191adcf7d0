package summary

import (
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"
)

// ellipsis marks text that was cut.
const ellipsis = "…"

// cut returns s cut to at most n bytes at a UTF-8 boundary, with ellipsis
// appended when it was cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return runePrefix(s, n) + ellipsis
}

// runePrefix returns the longest start of s of at most n bytes that ends
// between runes.
func runePrefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// itoa is strconv.Itoa, short for the renderers.
func itoa(n int) string { return strconv.Itoa(n) }
