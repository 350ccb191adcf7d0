package recorder

import (
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
)

// digitPairs holds the two decimal digits of each number from 0 to 99.
const digitPairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" + "60616263646566676869" +
	"70717273747576777879" + "80818283848586878889" + "90919293949596979899"

// appendUint appends u in decimal.
func appendUint(b []byte, u uint64) []byte {
	switch {
	case u < 10:
		return append(b, byte('0'+u))
	case u < 100:
		return append(b, digitPairs[u*2], digitPairs[u*2+1])
	case u < 1000:
		d := u % 100 * 2
		return append(b, byte('0'+u/100), digitPairs[d], digitPairs[d+1])
	case u < 10000:
		c, d := u/100*2, u%100*2
		return append(b, digitPairs[c], digitPairs[c+1], digitPairs[d], digitPairs[d+1])
	}
	return appendLongUint(b, u)
}

// appendLongUint is appendUint for any u. It writes u's digits straight
// into b, from the last: eight at a time, split from u by one division,
// in 32-bit arithmetic.
func appendLongUint(b []byte, u uint64) []byte {
	n := decimalLen(u)
	if cap(b)-len(b) < n {
		b = slices.Grow(b, n)
	}
	b = b[:len(b)+n]
	i := len(b)
	for u >= 1e8 {
		q := u / 1e8
		put8Digits(b[i-8:i], uint32(u-q*1e8))
		u = q
		i -= 8
	}
	v := uint32(u)
	for v >= 100 {
		pair := v % 100 * 2
		v /= 100
		i -= 2
		b[i], b[i+1] = digitPairs[pair], digitPairs[pair+1]
	}
	if v >= 10 {
		b[i-2], b[i-1] = digitPairs[v*2], digitPairs[v*2+1]
	} else {
		b[i-1] = byte('0' + v)
	}
	return b
}

// put8Digits writes v, below 10^8, as eight decimal digits into d.
func put8Digits(d []byte, v uint32) {
	_ = d[7]
	hi, lo := v/10000, v%10000
	a, b := hi/100*2, hi%100*2
	c, e := lo/100*2, lo%100*2
	d[0], d[1], d[2], d[3] = digitPairs[a], digitPairs[a+1], digitPairs[b], digitPairs[b+1]
	d[4], d[5], d[6], d[7] = digitPairs[c], digitPairs[c+1], digitPairs[e], digitPairs[e+1]
}

// powersOf10 holds 10^i at i.
var powersOf10 = [20]uint64{
	1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

// decimalLen returns the number of decimal digits of u. 1233/4096 is a
// little above log10(2): t is the digits of 2^bits.Len64(u), less one,
// and u has t digits or t+1.
func decimalLen(u uint64) int {
	t := bits.Len64(u) * 1233 >> 12
	if t > 0 && u < powersOf10[t] {
		return t
	}
	return t + 1
}

// appendInt appends v in decimal.
func appendInt(b []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		b = append(b, '-')
		u = -u
	}
	return appendUint(b, u)
}

// closeObject makes the fields appended to b from start, each with a
// comma before it, a JSON object: the first comma opens it.
func closeObject(b []byte, start int) []byte {
	if len(b) == start {
		return append(b, "{}"...)
	}
	b[start] = '{'
	return append(b, '}')
}

// closeArray makes the elements appended to b from start, each with a
// comma before it, a JSON array: the first comma opens it.
func closeArray(b []byte, start int) []byte {
	if len(b) == start {
		return append(b, "[]"...)
	}
	b[start] = '['
	return append(b, ']')
}

// The field helpers below take a field's key given whole, from the comma
// before it to the colon after it, and are small enough to be inlined:
// copying a constant key then takes no call.

// appendStringField appends key and v as a JSON string.
func appendStringField(b []byte, key, v string) []byte {
	return appendString(append(b, key...), v)
}

// appendIntField appends key and v.
func appendIntField(b []byte, key string, v int64) []byte {
	return appendInt(append(b, key...), v)
}

// appendBoolField appends key and v.
func appendBoolField(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(append(b, key...), v)
}

// appendNonEmptyField is appendStringField for a field left out when
// empty.
func appendNonEmptyField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return appendStringField(b, key, v)
}

// appendNonZeroField is appendIntField for a field left out when zero.
func appendNonZeroField(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	return appendIntField(b, key, v)
}

// appendTrueField appends field, given whole with its value true, when
// set is true: a boolean left out when false.
func appendTrueField(b []byte, field string, set bool) []byte {
	if !set {
		return b
	}
	return append(b, field...)
}

// shortEscapes holds, for each ASCII byte that JSON escapes with a
// backslash and one letter, that letter, and 0 for any other byte.
var shortEscapes = func() (t [utf8.RuneSelf]byte) {
	t['"'], t['\\'] = '"', '\\'
	t['\b'], t['\f'], t['\n'], t['\r'], t['\t'] = 'b', 'f', 'n', 'r', 't'
	return t
}()

// plainByte is true for the bytes a JSON string holds as they are: ASCII
// but for control characters, '"' and '\'.
var plainByte = func() (t [256]bool) {
	for c := byte(' '); c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString appends s as a JSON string. It escapes what JSON requires
// plus U+2028 and U+2029 (as encoding/json does), replaces invalid UTF-8
// with U+FFFD, and leaves HTML characters alone.
func appendString(b []byte, s string) []byte {
	i := plainRun(s, 0)
	if i == len(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	return appendEscaped(b, s, i)
}

// appendEscaped is appendString for s whose byte at i, and none before,
// is not a plainByte.
func appendEscaped(b []byte, s string, i int) []byte {
	const hexDigits = "0123456789abcdef"
	b = slices.Grow(b, len(s)+len(s)/8+8)
	b = append(b, '"')
	start := 0
	for i < len(s) {
		b = append(b, s[start:i]...)
		if c := s[i]; c < utf8.RuneSelf {
			if e := shortEscapes[c]; e != 0 {
				b = append(b, '\\', e)
			} else {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, `\ufffd`...)
			case r == '\u2028':
				b = append(b, `\u2028`...)
			case r == '\u2029':
				b = append(b, `\u2029`...)
			default:
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
		start = i
		i = plainRun(s, i)
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainRun returns the index of the first byte of s, from i on, that is
// not a plainByte, or len(s). It looks at eight bytes at a time, and at
// the last eight of a string at least that long at once.
func plainRun(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := notPlain(word(s[i : i+8])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	if i == len(s) || len(s) < 8 {
		return plainBytes(s, i)
	}
	m := notPlain(word(s[len(s)-8:]))
	if m == 0 {
		return len(s)
	}
	// The first byte flagged is not plain; past it, flags can be false.
	if first := len(s) - 8 + bits.TrailingZeros64(m)>>3; first >= i {
		return first
	}
	return plainBytes(s, i)
}

// plainBytes returns the index of the first byte of s, from i on, that is
// not a plainByte, or len(s), looking at one byte at a time.
func plainBytes(s string, i int) int {
	for i < len(s) && plainByte[s[i]] {
		i++
	}
	return i
}

// Masks of the bytes of a word: each byte 0x01, and each byte 0x80.
const (
	eachByte = 0x0101010101010101
	highBits = 0x8080808080808080
)

// word returns the eight bytes of w, little-endian.
func word(w string) uint64 {
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// notPlain returns a word whose high bit is set in the byte of each of
// the eight bytes of x that is not a plainByte, and perhaps in bytes
// after the first of those, but never before it: zero when all eight are
// plain.
func notPlain(x uint64) uint64 {
	// A byte's high bit is set in one of these when the byte is below
	// 0x20, is '"' or '\', or is not ASCII; borrows can only flag a
	// byte above one that is.
	return (x | (x - eachByte*0x20) | ((x ^ eachByte*'"') - eachByte) | ((x ^ eachByte*'\\') - eachByte)) & highBits
}
