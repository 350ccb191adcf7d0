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
	_, ok := parseISO(s)
	return ok
}

// parseISO reads a timestamp in the forms validTimestamp accepts, and only
// those. A date alone is midnight; a time without an offset is UTC.
// Fractions finer than a nanosecond are dropped.
func parseISO(s string) (time.Time, bool) {
	s = strings.ReplaceAll(s, "Z", "+00:00")
	year, month, day, rest, ok := isoDate(s)
	if !ok {
		return time.Time{}, false
	}
	date := time.Date(year, month, day, 0, 0, 0, 0, time.UTC)
	if rest == "" {
		return date, true
	}
	return withClock(date, rest)
}

// withClock is date at the time, and in the UTC offset, that rest gives
// after the date's separator.
func withClock(date time.Time, rest string) (time.Time, bool) {
	_, size := utf8.DecodeRuneInString(rest)
	clock, offset, sign, ok := splitOffset(rest[size:])
	if !ok {
		return time.Time{}, false
	}
	at, ok := isoClock(clock)
	if !ok {
		return time.Time{}, false
	}
	t := date.Add(at)
	if offset == "" {
		return t, true
	}
	off, ok := isoClock(offset)
	if !ok {
		return time.Time{}, false
	}
	return t.Add(-sign * off), true
}

// splitOffset splits what follows a date's separator into the time and
// the UTC offset after its sign, which it returns as 1 or -1 (0 when there
// is no offset). Both the time and an offset that is there must be
// non-empty.
func splitOffset(rest string) (clock, offset string, sign time.Duration, ok bool) {
	if rest == "" {
		return "", "", 0, false
	}
	i := strings.IndexAny(rest, "+-")
	if i < 0 {
		return rest, "", 0, true
	}
	sign = 1
	if rest[i] == '-' {
		sign = -1
	}
	offset = rest[i+1:]
	return rest[:i], offset, sign, offset != ""
}

// isoDate consumes a calendar or week date at the start of s and returns
// it with what follows it.
func isoDate(s string) (year int, month time.Month, day int, rest string, ok bool) {
	year, ok = digits(s, 0, 4)
	if !ok || year < 1 {
		return 0, 0, 0, "", false
	}
	pos, extended := afterYear(s)
	if len(s) > pos && s[pos] == 'W' {
		return isoWeekDate(s, year, pos+1, extended)
	}
	return isoCalendarDate(s, year, pos, extended)
}

// afterYear returns where the fields after a date's year start, and
// whether the date is in the extended form, with a '-' after the year.
func afterYear(s string) (int, bool) {
	if len(s) > 4 && s[4] == '-' {
		return 5, true
	}
	return 4, false
}

// isoCalendarDate reads the month and day of a calendar date from pos on,
// with a '-' between them in the extended form.
func isoCalendarDate(s string, year, pos int, extended bool) (int, time.Month, int, string, bool) {
	m, day, end, ok := dateFields(s, pos, 2, extended)
	if !ok || !validDay(year, m, day) {
		return 0, 0, 0, "", false
	}
	return year, time.Month(m), day, s[end:], true
}

// dateFields reads the two-digit field of a date at pos and the n-digit
// field after it, with a '-' between them in the extended form, and
// returns them with where they end.
func dateFields(s string, pos, n int, extended bool) (first, second, end int, ok bool) {
	first, ok = digits(s, pos, 2)
	if !ok {
		return 0, 0, 0, false
	}
	pos, ok = dateSeparator(s, pos+2, extended)
	if !ok {
		return 0, 0, 0, false
	}
	second, ok = digits(s, pos, n)
	return first, second, pos + n, ok
}

// validDay reports whether month m of year has a day numbered day.
func validDay(year, m, day int) bool {
	return m >= 1 && m <= 12 && day >= 1 && day <= daysIn(year, m)
}

// validWeekDay reports whether year has a week numbered week, and
// weekday numbers a day of the week.
func validWeekDay(year, week, weekday int) bool {
	return weekday >= 1 && weekday <= 7 && week >= 1 && week <= weeksIn(year)
}

// dateSeparator steps over the '-' at pos that the extended form puts
// between a date's fields; the basic form has none.
func dateSeparator(s string, pos int, extended bool) (int, bool) {
	if !extended {
		return pos, true
	}
	if len(s) <= pos || s[pos] != '-' {
		return 0, false
	}
	return pos + 1, true
}

// isoWeekDate reads the week and weekday of a week date from pos on, just
// after its 'W', with a '-' between them in the extended form.
func isoWeekDate(s string, year, pos int, extended bool) (int, time.Month, int, string, bool) {
	week, weekday, end, ok := dateFields(s, pos, 1, extended)
	if !ok || !validWeekDay(year, week, weekday) {
		return 0, 0, 0, "", false
	}
	// Week 1 is the week (from Monday) that holds 4 January.
	jan4 := time.Date(year, 1, 4, 0, 0, 0, 0, time.UTC)
	monday := jan4.AddDate(0, 0, -(int(jan4.Weekday())+6)%7)
	d := monday.AddDate(0, 0, (week-1)*7+weekday-1)
	return d.Year(), d.Month(), d.Day(), s[end:], true
}

// isoClock reads HH[:MM[:SS[.f…]]] or its compact form without colons as
// the time since midnight. A fraction may follow the seconds only, and
// needs at least one digit.
func isoClock(s string) (time.Duration, bool) {
	hour, ok := digits(s, 0, 2)
	if !ok || hour > 23 {
		return 0, false
	}
	at, s, parts, ok := clockFields(s[2:])
	if !ok {
		return 0, false
	}
	at += time.Duration(hour) * time.Hour
	frac, ok := clockFraction(s, parts)
	if !ok {
		return 0, false
	}
	return at + frac, true
}

// clockFraction reads what follows a time's fields, parts of them after
// the hour: nothing, or after the seconds a decimal mark and at least one
// digit.
func clockFraction(rest string, parts int) (time.Duration, bool) {
	if rest == "" {
		return 0, true
	}
	if parts < 2 || !isDecimalMark(rest[0]) || len(rest) == 1 {
		return 0, false
	}
	return fraction(rest[1:])
}

// clockUnits are the units of the fields after the hour, in order.
var clockUnits = [...]time.Duration{time.Minute, time.Second}

// clockFields reads the minutes and seconds after the hour, as far as they
// go, up to a decimal mark. Either every field follows a colon or none
// does. It returns their time, what follows them and how many it read.
func clockFields(s string) (at time.Duration, rest string, parts int, ok bool) {
	colons := s != "" && s[0] == ':'
	for parts < len(clockUnits) && s != "" && !isDecimalMark(s[0]) {
		var n int
		n, s, ok = clockField(s, colons)
		if !ok {
			return 0, "", 0, false
		}
		at += time.Duration(n) * clockUnits[parts]
		parts++
	}
	return at, s, parts, true
}

// clockField reads one minutes or seconds field, after its colon when
// colons is set, and returns it with what follows it.
func clockField(s string, colons bool) (int, string, bool) {
	if colons {
		if s[0] != ':' {
			return 0, "", false
		}
		s = s[1:]
	}
	n, ok := digits(s, 0, 2)
	if !ok || n > 59 {
		return 0, "", false
	}
	return n, s[2:], true
}

// isDecimalMark reports whether c starts a fraction: ISO 8601 allows a
// comma as well as a full stop.
func isDecimalMark(c byte) bool { return c == '.' || c == ',' }

// fraction reads the digits ds after a decimal mark as a fraction of a
// second. Digits finer than a nanosecond add nothing.
func fraction(ds string) (time.Duration, bool) {
	var at time.Duration
	scale := time.Second
	for i := 0; i < len(ds); i++ {
		if ds[i] < '0' || ds[i] > '9' {
			return 0, false
		}
		scale /= 10
		at += time.Duration(ds[i]-'0') * scale
	}
	return at, true
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
