package replay

import "strings"

// maxDiffLines bounds each side of a diff; longer texts are cut, which
// keeps the quadratic comparison small.
const maxDiffLines = 200

// lineDiff shows how live differs from recorded, line by line: lines
// only in the recording start with "- ", lines only in the live run with
// "+ ", and lines both share with two spaces.
func lineDiff(recorded, live string) string {
	a, b := lines(recorded), lines(live)
	lcs := lcsTable(a, b)
	var sb strings.Builder
	sb.WriteString("--- recorded\n+++ live\n")
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch diffStep(a, b, lcs, i, j) {
		case ' ':
			sb.WriteString("  " + a[i] + "\n")
			i, j = i+1, j+1
		case '-':
			sb.WriteString("- " + a[i] + "\n")
			i++
		default:
			sb.WriteString("+ " + b[j] + "\n")
			j++
		}
	}
	return sb.String()
}

// lcsTable returns lcs, where lcs[i][j] is the length of the longest
// common subsequence of a[i:] and b[j:].
func lcsTable(a, b []string) [][]int {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	return lcs
}

// diffStep is what the diff of a[i:] and b[j:] shows first: a line both
// share (' '), a line only in a ('-') or a line only in b ('+'). A line
// of a goes before one of b.
func diffStep(a, b []string, lcs [][]int, i, j int) byte {
	if i == len(a) {
		return '+'
	}
	if j == len(b) {
		return '-'
	}
	if a[i] == b[j] {
		return ' '
	}
	if lcs[i+1][j] >= lcs[i][j+1] {
		return '-'
	}
	return '+'
}

// lines splits s into the lines a diff compares, cut to maxDiffLines.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(out) > maxDiffLines {
		out = append(out[:maxDiffLines], "…")
	}
	return out
}
