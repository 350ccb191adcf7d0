package stall

import (
	"math/bits"
	"strings"

	"github.com/lookout-go/lookout/observer/internal/scan"
)

// maxProgressing bounds how many calls a session remembers as polls.
const maxProgressing = 256

// recheck sets e's recurrence, from the latest of the prior calls with its
// tool and arguments, when known says there may be one, and whether it,
// and the calls before it, had no effect. Only a failure, or the result of
// a call that showed progress before (a poll), recurs: a passing check run
// after each of many edits is progress.
func (st *stallState) recheck(e *stallCall, prior int, known bool) {
	e.recur, e.recurFirst = 1, e.index
	for i := 0; i < prior && known && !e.exempt; i++ {
		p := st.calls.Back(i)
		if p.sig != e.sig || p.exempt {
			continue
		}
		same, moved := st.compare(p, e)
		if moved {
			st.markProgress(e.sig)
		}
		if same && (failure(e) || st.progressing[e.sig]) {
			e.recur, e.recurFirst = p.recur+1, p.recurFirst
		}
		break
	}
	if e.noEffect = st.echoesOnly(e); e.noEffect {
		e.noEffectRun = 1
		if prior > 0 {
			e.noEffectRun += st.calls.Back(0).noEffectRun
		}
	}
}

// failureWords are the words, in lower case, that a result reporting a
// failure shows when its call did not fail outright.
var failureWords = [...]string{"error", "fail", "traceback", "exception", "not found", "no such", "denied", "invalid", "wrong", "cannot", "unable"}

// failureFirst and failureSecond hold at most 16 words: more do not
// compile.
var _ [16 - len(failureWords)]struct{}

// failureFirst and failureSecond hold, for each byte in lower case, the
// set of failureWords with it first, and second: bit k for failureWords[k].
var failureFirst, failureSecond = func() (first, second [256]uint16) {
	for k, w := range failureWords {
		first[w[0]] |= 1 << k
		second[w[1]] |= 1 << k
	}
	return first, second
}()

// failure reports whether e failed, or returned a result that reports a
// failure.
func failure(e *stallCall) bool {
	return !e.success || reportsFailure(e.result)
}

// reportsFailure reports whether s holds a failure word, in any case, in
// one pass that compares words only where their first two bytes are.
func reportsFailure(s string) bool {
	for i := 1; i < len(s); i++ {
		m := failureSecond[s[i]|0x20]
		if m == 0 {
			continue
		}
		for m &= failureFirst[s[i-1]|0x20]; m != 0; m &= m - 1 {
			if hasPrefixFold(s[i-1:], failureWords[bits.TrailingZeros16(m)]) {
				return true
			}
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with the lower-case ASCII word w
// in any case.
func hasPrefixFold(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for j := range len(w) {
		if s[j]|0x20 != w[j] {
			return false
		}
	}
	return true
}

// markProgress remembers sig as a call whose results showed progress.
func (st *stallState) markProgress(sig uint64) {
	if st.progressing == nil {
		st.progressing = make(map[uint64]bool)
	}
	if len(st.progressing) < maxProgressing {
		st.progressing[sig] = true
	}
}

// recheckThreshold is how many times e's call may return the same result
// before it is reported: PollingCap for a call that has shown progress
// before, SameResults otherwise, 0 for never.
func (st *stallState) recheckThreshold(e *stallCall) int {
	if st.sameResult <= 0 {
		return 0
	}
	if st.progressing[e.sig] {
		return st.pollCap
	}
	return st.sameResult
}

// echoesOnly reports whether e's result is what a shell waiting for the
// end of an earlier command shows: the text it was sent, echoed after
// continuation prompts from its first line to its last. Lines the terminal
// wrapped or joined to leftovers may not match; most lines must.
func (st *stallState) echoesOnly(e *stallCall) bool {
	result := strings.TrimSpace(e.result)
	if !e.success || !strings.HasPrefix(result, ">") {
		return false
	}
	if last := result[strings.LastIndexByte(result, '\n')+1:]; !strings.HasPrefix(last, ">") {
		return false
	}
	st.text = st.text[:0]
	scan.EachMember(e.args, func(_, val string, isString bool) bool {
		if isString {
			st.text = append(scan.AppendUnescaped(st.text, val), '\n')
		}
		return true
	})
	sent := string(st.text)
	lines, echoed := 0, 0
	for line := range strings.Lines(result) {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ">"))
		if line == "" {
			continue
		}
		lines++
		if strings.Contains(sent, line) {
			echoed++
		}
	}
	return echoed > 0 && 2*echoed >= lines
}

// countersMoved reports whether a and b, which differ only in what the
// result rules hide, differ in a counter: a number of up to six digits
// standing on its own, such as an epoch, a step or a line number. Numbers
// with a unit (0.12s, 30ms, 4KB), in words with letters (0x7f3a, sha1
// e3b0c442) and in times and dates (14:03:07, 2026-01-15) are not
// counters: a call that returns the same thing later has not progressed.
func countersMoved(a, b string) bool {
	for {
		var x, y string
		x, a = nextCounter(a)
		y, b = nextCounter(b)
		if x == "" || y == "" {
			return false
		}
		if x != y {
			return true
		}
	}
}

// nextCounter returns the first counter in s and what follows it, or ""
// when there is none.
func nextCounter(s string) (counter, rest string) {
	i := 0
	for i < len(s) {
		if !isDigit(s[i]) {
			i++
			continue
		}
		start := i
		for i < len(s) && (isDigit(s[i]) || s[i] == '.' && i+1 < len(s) && isDigit(s[i+1])) {
			i++
		}
		if start > 0 && isJoined(s[start-1]) || i < len(s) && isJoined(s[i]) || i-start > 6 {
			for i < len(s) && isWordByte(s[i]) {
				i++
			}
			continue
		}
		return s[start:i], s[i:]
	}
	return "", ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isJoined reports whether a number next to c is part of a word, a time
// or a date.
func isJoined(c byte) bool { return isWordByte(c) || c == ':' || c == '-' }

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || isDigit(c)
}
