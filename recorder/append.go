package recorder

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// digitPairs holds the two decimal digits of each number from 0 to 99.
const digitPairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" + "60616263646566676869" +
	"70717273747576777879" + "80818283848586878889" + "90919293949596979899"

// appendUint appends u in decimal.
func appendUint(b []byte, u uint64) []byte {
	if u > math.MaxInt64 {
		return appendHugeUint(b, u, decimalLen(u))
	}
	return appendInt(b, int64(u))
}

// appendInt appends v in decimal. Up to four digits it writes pairs of
// digits; below 10^16 it writes the digits as one or two words of eight,
// each made from four pairs of digits and shifted to drop the leading
// zeros of the first, into room past b's end; from 10^16 on, eight at a
// time from the last, split by one division, in 32-bit arithmetic.
func appendInt(b []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		b = append(b, '-')
		u = -u
	}
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
	n := decimalLen(u)
	if cap(b)-len(b) < 16 {
		b = slices.Grow(b, 16)
	}
	at := len(b)
	b = b[:at+16]
	switch {
	case u < 1e8:
		putWordAt(b, at, eightDigits(uint32(u))>>(8*(8-n)&63))
		return b[:at+n]
	case u < 1e16:
		q := u / 1e8
		high := n - 8
		putWordAt(b, at, eightDigits(uint32(q))>>(8*(8-high)&63))
		putWordAt(b, at+high, eightDigits(uint32(u-q*1e8)))
		return b[:at+n]
	}
	return appendHugeUint(b[:at], u, n)
}

// appendHugeUint is appendUint for u of n digits, from 10^16 on.
func appendHugeUint(b []byte, u uint64, n int) []byte {
	if cap(b)-len(b) < n {
		b = slices.Grow(b, n)
	}
	b = b[:len(b)+n]
	i := len(b)
	for u >= 1e8 {
		q := u / 1e8
		binary.LittleEndian.PutUint64(b[i-8:i], eightDigits(uint32(u-q*1e8)))
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

// eightDigits returns v, below 10^8, as eight decimal digits in a word,
// little-endian: the first digit in its lowest byte.
func eightDigits(v uint32) uint64 {
	hi, lo := v/10000, v%10000
	t := &digitWords
	return uint64(t[hi/100]) | uint64(t[hi%100])<<16 | uint64(t[lo/100])<<32 | uint64(t[lo%100])<<48
}

// digitWords holds the two decimal digits of each number from 0 to 99,
// little-endian: the first in the lower byte.
var digitWords = func() (t [100]uint16) {
	for i := range t {
		t[i] = uint16(digitPairs[2*i]) | uint16(digitPairs[2*i+1])<<8
	}
	return t
}()

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
var shortEscapes = func() (t [256]byte) {
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
//
// A name or an id, four to sixteen plain bytes with room for them in b,
// it copies as the first half word and the last, or the first word and
// the last, which overlap, tested at once, with no call; appendText
// writes any other string.
func appendString(b []byte, s string) []byte {
	n := len(b)
	if len(s) < 4 || len(s) > 16 || cap(b)-n < len(s)+2 {
		return appendText(b, s)
	}
	b = b[:n+len(s)+2]
	if len(s) < 8 {
		lo, hi := halfWordAt(s, 0), halfWordAt(s, len(s)-4)
		if notPlain(uint64(lo)|uint64(hi)<<32) != 0 {
			return appendText(b[:n], s)
		}
		putHalfWordAt(b, n+1, lo)
		putHalfWordAt(b, n+len(s)-3, hi)
	} else {
		lo, hi := wordAt(s, 0), wordAt(s, len(s)-8)
		if notPlain(lo)|notPlain(hi) != 0 {
			return appendText(b[:n], s)
		}
		putWordAt(b, n+1, lo)
		putWordAt(b, n+len(s)-7, hi)
	}
	b[n] = '"'
	b[n+len(s)+1] = '"'
	return b
}

// appendText is appendString for any s. Below eight bytes it copies s as
// far as its bytes are plain with copyShort, and from eight bytes on with
// copyPlain; appendEscapes writes the rest.
func appendText(b []byte, s string) []byte {
	n := len(b)
	if cap(b)-n < len(s)+stringSlack {
		b = slices.Grow(b, len(s)+stringSlack)
	}
	b = b[:cap(b)]
	b[n] = '"'
	n++
	var i int
	if len(s) < 8 {
		n, i = copyShort(b, n, s)
	} else {
		i = copyPlain(b, n, s)
		n += i
	}
	if i < len(s) {
		return appendEscapes(b, n, s, i)
	}
	b[n] = '"'
	return b[:n+1]
}

// stringSlack is the room appendString makes in its output past the
// string: its closing quote, and the room appendEscapes keeps.
const stringSlack = 1 + escapeRoom

// copyShort copies the plain bytes at the start of s, shorter than eight
// bytes, to b at n, and returns where each then is.
func copyShort(b []byte, n int, s string) (int, int) {
	i := 0
	for ; i < len(s) && plainByte[s[i]]; i, n = i+1, n+1 {
		b[n] = s[i]
	}
	return n, i
}

// copyPlain copies s, at least eight bytes long, to b at n, b's length
// holding it, as far as its bytes are plain, and returns the index of the
// first byte that is not, or len(s) when all are. It copies sixteen bytes
// at a time, storing them before it tests them, and the last one to
// sixteen as the last two words of s, which overlap bytes before them, or
// up to sixteen bytes as the first word and the last.
func copyPlain(b []byte, n int, s string) int {
	if len(s) <= 16 {
		lo, hi := wordAt(s, 0), wordAt(s, len(s)-8)
		putWordAt(b, n, lo)
		putWordAt(b, n+len(s)-8, hi)
		if notPlain(lo)|notPlain(hi) != 0 {
			return firstNotPlain(lo, hi, len(s)-8)
		}
		return len(s)
	}
	i := 0
	for end := len(s) - 16; i < end; i += 16 {
		lo, hi := wordAt(s, i), wordAt(s, i+8)
		putWordAt(b, n+i, lo)
		putWordAt(b, n+i+8, hi)
		if notPlain(lo)|notPlain(hi) != 0 {
			return i + firstNotPlain(lo, hi, 8)
		}
	}
	at := len(s) - 16
	lo, hi := wordAt(s, at), wordAt(s, at+8)
	putWordAt(b, n+at, lo)
	putWordAt(b, n+at+8, hi)
	if notPlain(lo)|notPlain(hi) != 0 {
		return at + firstNotPlain(lo, hi, 8)
	}
	return len(s)
}

// firstNotPlain returns the index of the first byte that is not a
// plainByte of the words lo and hi, in that order, hi starting at the
// index at; one must be.
func firstNotPlain(lo, hi uint64, at int) int {
	if m := notPlain(lo); m != 0 {
		return bits.TrailingZeros64(m) / 8
	}
	return at + bits.TrailingZeros64(notPlain(hi))/8
}

// escapeRoom is the room appendEscapes keeps in its output past twice
// the rest of the string, which a backslash before every byte would take:
// a word is stored whole, up to eight bytes past the string.
const escapeRoom = 8

// appendEscapes is appendString for the rest of s from i, written to b at
// n, b's length being its capacity.
//
// It copies s a word at a time, storing a word before it tests it: the
// output moves on past the word's plain bytes, so that the bytes from the
// first that needs care are written again, escaped. The output keeps room
// for twice the rest of s, which an escape with a backslash and a letter
// never outgrows; after any other escape (a control character, invalid
// UTF-8, U+2028 or U+2029), the room is made again. The last bytes, fewer
// than eight, go one at a time.
func appendEscapes(b []byte, n int, s string, i int) []byte {
	for {
		if len(b)-n < 2*(len(s)-i)+escapeRoom {
			b = slices.Grow(b[:n], 2*(len(s)-i)+escapeRoom)
			b = b[:cap(b)]
		}
		for len(s)-i >= 8 {
			w := wordAt(s, i)
			putWordAt(b, n, w)
			m := notPlain(w)
			if m == 0 {
				i, n = i+8, n+8
				continue
			}
			at := bits.TrailingZeros64(m) & 56 // the first bit of the byte
			i, n = i+at/8, n+at/8
			e := shortEscapes[byte(w>>at)]
			if e == 0 {
				break
			}
			putPairAt(b, n, '\\', e)
			i, n = i+1, n+2
		}
		if len(s)-i < 8 {
			break
		}
		n, i = escape(b, n, s, i)
	}
	if len(b)-n < 6*(len(s)-i)+1 {
		b = slices.Grow(b[:n], 6*(len(s)-i)+1)
		b = b[:cap(b)]
	}
	for i < len(s) {
		c := s[i]
		switch e := shortEscapes[c]; {
		case plainByte[c]:
			b[n] = c
			i, n = i+1, n+1
		case e != 0:
			b[n], b[n+1] = '\\', e
			i, n = i+1, n+2
		default:
			n, i = escape(b, n, s, i)
		}
	}
	b[n] = '"'
	return b[:n+1]
}

// escape writes the character of s at i, which is neither a plainByte
// nor one of shortEscapes, to b at n, as appendString writes it, and
// returns where each then is. b has room for six bytes.
func escape(b []byte, n int, s string, i int) (int, int) {
	const hexDigits = "0123456789abcdef"
	if c := s[i]; c < utf8.RuneSelf {
		_ = b[n+5]
		b[n], b[n+1], b[n+2], b[n+3], b[n+4], b[n+5] = '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf]
		return n + 6, i + 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return n + copy(b[n:], `\ufffd`), i + 1
	case r == '\u2028':
		return n + copy(b[n:], `\u2028`), i + size
	case r == '\u2029':
		return n + copy(b[n:], `\u2029`), i + size
	}
	return n + copy(b[n:], s[i:i+size]), i + size
}

// Masks of the bytes of a word: each byte 0x01, and each byte 0x80.
const (
	eachByte = 0x0101010101010101
	highBits = 0x8080808080808080
)

// wordAt returns the eight bytes of s from i, little-endian, unchecked:
// the caller makes sure that s holds them.
func wordAt(s string, i int) uint64 {
	w := (*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// putWordAt stores the eight bytes of w in b from n, little-endian,
// unchecked: the caller makes sure that b's length holds them.
func putWordAt(b []byte, n int, w uint64) {
	p := (*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), n))
	p[0], p[1], p[2], p[3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
	p[4], p[5], p[6], p[7] = byte(w>>32), byte(w>>40), byte(w>>48), byte(w>>56)
}

// halfWordAt returns the four bytes of s from i, little-endian,
// unchecked: the caller makes sure that s holds them.
func halfWordAt(s string, i int) uint32 {
	w := (*[4]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))
	return uint32(w[0]) | uint32(w[1])<<8 | uint32(w[2])<<16 | uint32(w[3])<<24
}

// putHalfWordAt stores the four bytes of w in b from n, little-endian,
// unchecked: the caller makes sure that b's length holds them.
func putHalfWordAt(b []byte, n int, w uint32) {
	p := (*[4]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), n))
	p[0], p[1], p[2], p[3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
}

// putPairAt stores x and y in b at n and n+1, unchecked: the caller makes
// sure that b's length holds them.
func putPairAt(b []byte, n int, x, y byte) {
	p := (*[2]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), n))
	p[0], p[1] = x, y
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
