package atif

import (
	"strings"
	"time"
	"unicode/utf8"
)

// validTimestamp reports whether s is an ISO 8601 date or date-time in the
// forms Python's datetime.fromisoformat reads, which is what the upstream
// validator uses after replacing "Z" with "+00:00":
//
//	date:      YYYY-MM-DD, YYYYMMDD, YYYY-Www-D, YYYYWwwD
//	separator: any single character (usually "T" or a space)
//	time:      HH[:MM[:SS[.fff…]]] or HH[MM[SS[.fff…]]]; "," may replace "."
//	offset:    +HH[:MM[:SS[.ffffff]]] or -…, or Z
func validTimestamp(s string) bool {
	s = strings.ReplaceAll(s, "Z", "+00:00")
	rest, ok := isoDate(s)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	_, size := utf8.DecodeRuneInString(rest)
	rest = rest[size:]
	if rest == "" {
		return false
	}
	clock, offset := rest, ""
	if i := strings.IndexAny(rest, "+-"); i >= 0 {
		clock, offset = rest[:i], rest[i+1:]
		if offset == "" {
			return false
		}
	}
	if !isoClock(clock) {
		return false
	}
	return offset == "" || isoClock(offset)
}

// isoDate consumes a calendar or week date at the start of s and returns
// what follows it.
func isoDate(s string) (rest string, ok bool) {
	year, ok := digits(s, 0, 4)
	if !ok || year < 1 {
		return "", false
	}
	extended := len(s) > 4 && s[4] == '-'
	pos := 4
	if extended {
		pos = 5
	}
	if len(s) > pos && s[pos] == 'W' {
		return isoWeekDate(s, year, pos+1, extended)
	}
	month, ok := digits(s, pos, 2)
	if !ok {
		return "", false
	}
	pos += 2
	if extended {
		if len(s) <= pos || s[pos] != '-' {
			return "", false
		}
		pos++
	}
	day, ok := digits(s, pos, 2)
	if !ok || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return "", false
	}
	return s[pos+2:], true
}

func isoWeekDate(s string, year, pos int, extended bool) (string, bool) {
	week, ok := digits(s, pos, 2)
	if !ok {
		return "", false
	}
	pos += 2
	if extended {
		if len(s) <= pos || s[pos] != '-' {
			return "", false
		}
		pos++
	}
	weekday, ok := digits(s, pos, 1)
	if !ok || weekday < 1 || weekday > 7 || week < 1 || week > weeksIn(year) {
		return "", false
	}
	return s[pos+1:], true
}

// isoClock checks HH[:MM[:SS[.f…]]] or its compact form without colons.
// A fraction may follow the seconds only, and needs at least one digit.
func isoClock(s string) bool {
	hour, ok := digits(s, 0, 2)
	if !ok || hour > 23 {
		return false
	}
	s = s[2:]
	colons := s != "" && s[0] == ':'
	parts := 0
	for parts < 2 && s != "" && s[0] != '.' && s[0] != ',' {
		if colons {
			if s[0] != ':' {
				return false
			}
			s = s[1:]
		}
		n, ok := digits(s, 0, 2)
		if !ok || n > 59 {
			return false
		}
		s = s[2:]
		parts++
	}
	if s == "" {
		return true
	}
	if parts < 2 || (s[0] != '.' && s[0] != ',') || len(s) == 1 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// digits parses exactly n ASCII digits of s starting at pos.
func digits(s string, pos, n int) (int, bool) {
	if pos+n > len(s) {
		return 0, false
	}
	v := 0
	for i := pos; i < pos+n; i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + int(s[i]-'0')
	}
	return v, true
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// weeksIn returns 53 for ISO years with a week 53, else 52.
func weeksIn(year int) int {
	_, w := time.Date(year, 12, 28, 0, 0, 0, 0, time.UTC).ISOWeek()
	return w
}
