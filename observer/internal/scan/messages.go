package scan

import "strings"

// MatchURL matches an absolute URL up to the next space or quote, without
// trailing punctuation.
func MatchURL(s string) int {
	k := RunOf(s, IsSchemeByte)
	if k == 0 || k > 16 || !strings.HasPrefix(s[k:], "://") {
		return 0
	}
	rest := s[k+3:]
	n := len(strings.TrimRight(rest[:RunOf(rest, isURLByte)], ".,;:"))
	if n == 0 {
		return 0
	}
	return k + 3 + n
}

// isURLByte reports the bytes a URL in an error message is made of.
func isURLByte(b byte) bool { return ByteClasses[b]&UrlStop == 0 }

// MatchIPv4 matches a dotted IPv4 address with an optional port.
func MatchIPv4(s string) int {
	i := octetLen(s)
	if i == 0 {
		return 0
	}
	for range 3 {
		if !strings.HasPrefix(s[i:], ".") {
			return 0
		}
		d := octetLen(s[i+1:])
		if d == 0 {
			return 0
		}
		i += 1 + d
	}
	return i + DigitsAfter(s[i:], ":")
}

// octetLen matches a number of an IPv4 address: one to three digits.
func octetLen(s string) int {
	if d := RunOf(s, IsDigit); d <= 3 {
		return d
	}
	return 0
}

func isPathChar(b byte) bool { return ByteClasses[b]&(WordClass|PathCharPunct) != 0 }

// MatchPath matches a file system path.
func MatchPath(s string) int {
	start := driveLen(s)
	n := start + len(strings.TrimRight(s[start:start+RunOf(s[start:], isPathChar)], "."))
	w := s[:n]
	// Every path has a slash: most words, which have none, end here.
	if n < 2 || lastSlash(w) < 0 || !HasASCIIWordByte(w) {
		return 0
	}
	if start > 0 || isRootedPath(w) || hasNamedFile(w) {
		return n
	}
	return 0
}

// lastSlash returns the index of the last slash or backslash in w, or -1.
func lastSlash(w string) int {
	for i := len(w) - 1; i >= 0; i-- {
		if IsSlash(w[i]) {
			return i
		}
	}
	return -1
}

// driveLen returns 2 when s starts with a drive and a slash, such as
// C:\, and 0 otherwise.
func driveLen(s string) int {
	if HasDrive(s) && IsSlash(s[2]) {
		return 2
	}
	return 0
}

// rootedPrefixes start a path that is a path whatever follows.
var rootedPrefixes = [...]string{"/", `\`, "~/", "./", "../"}

// isRootedPath reports a path from the root, the home directory, or the
// current or parent directory.
func isRootedPath(w string) bool {
	for _, prefix := range rootedPrefixes {
		if strings.HasPrefix(w, prefix) {
			return true
		}
	}
	return false
}

// hasNamedFile reports a relative path with a directory whose last part
// has an extension: src/main.go.
func hasNamedFile(w string) bool {
	slash := lastSlash(w)
	if slash <= 0 {
		return false
	}
	dot := strings.LastIndexByte(w[slash+1:], '.')
	return dot > 0 && slash+1+dot < len(w)-1
}

// MatchID matches a hexadecimal word of 8 or more characters with letters
// and digits, or a long id as the observer package's default id rule does.
func MatchID(s string) int {
	n := RunOf(s, IsHex)
	if d := CountOf(s[:n], IsDigit); n >= 8 && 0 < d && d < n && endsWord(s, n) {
		return n
	}
	return MatchLongID(s)
}

// endsWord reports whether a match of n bytes at the start of s ends
// where a word does.
func endsWord(s string, n int) bool { return n == len(s) || !IsWordByte(s[n]) }

// MatchNumber matches a number with an optional unit of up to three
// letters.
func MatchNumber(s string) int {
	if n := hexNumberLen(s); n > 0 {
		return n
	}
	n := RunOf(s, IsDigit)
	if n == 0 {
		return 0
	}
	for n+1 < len(s) && strings.IndexByte(".,:_", s[n]) >= 0 && IsDigit(s[n+1]) {
		n += 1 + RunOf(s[n+1:], IsDigit)
	}
	return n + unitLen(s[n:])
}

// hexNumberLen matches a hexadecimal number written with 0x.
func hexNumberLen(s string) int {
	if len(s) < 3 || (s[:2] != "0x" && s[:2] != "0X") || !IsHex(s[2]) {
		return 0
	}
	return 2 + RunOf(s[2:], IsHex)
}

// unitLen matches the unit after a number: up to three letters.
func unitLen(s string) int {
	if u := RunOf(s, IsLetter); u <= 3 {
		return u
	}
	return 0
}
