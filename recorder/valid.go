package recorder

import "encoding/json"

// validJSON reports whether b is one JSON value, accepting exactly what
// json.Valid accepts, in one pass of a few instructions a byte. It keeps
// its place in the arrays and objects in a word of bits, one for each
// level; JSON nesting deeper than that is left to json.Valid.
func validJSON(b []byte) bool {
	var objects uint64 // bit 0 is set when the innermost container is an object
	depth := 0
	i := skipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '{', '[':
			if depth == 64 {
				return json.Valid(b)
			}
			depth++
			objects <<= 1
			if i = skipSpace(b, i+1); i < len(b) && b[i] == c+2 { // '}' or ']'
				i++
				depth--
				objects >>= 1
				break
			}
			if c == '[' {
				continue
			}
			objects |= 1
			if i = memberValue(b, i); i < 0 {
				return false
			}
			continue
		case '"':
			i = stringEnd(b, i)
		case 't':
			i = literalEnd(b, i, "true")
		case 'f':
			i = literalEnd(b, i, "false")
		case 'n':
			i = literalEnd(b, i, "null")
		default:
			i = numberEnd(b, i)
		}
		// A value ended at i: what follows closes containers until a
		// comma asks for another value.
		for {
			if i < 0 {
				return false
			}
			if i = skipSpace(b, i); depth == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			inObject := objects&1 != 0
			if b[i] == ',' {
				i = skipSpace(b, i+1)
				if inObject {
					i = memberValue(b, i)
				}
				break
			}
			if b[i] != ']' && !inObject || b[i] != '}' && inObject {
				return false
			}
			i++
			depth--
			objects >>= 1
		}
		if i < 0 {
			return false
		}
	}
}

// memberValue reads an object member's key and colon at i and returns
// where its value starts, or -1.
func memberValue(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = skipSpace(b, stringEnd(b, i)); i < 0 || i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace. A negative i is returned as it is.
func skipSpace(b []byte, i int) int {
	for i >= 0 && i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// stringEnd returns the index after the JSON string starting at the quote
// at i, or -1. Like json.Valid, it takes any byte from 0x20 up, valid
// UTF-8 or not.
func stringEnd(b []byte, i int) int {
	for i++; ; {
		for i < len(b) && plainInString[b[i]] {
			i++
		}
		switch {
		case i >= len(b) || b[i] < 0x20:
			return -1
		case b[i] == '"':
			return i + 1
		case i+1 >= len(b):
			return -1
		case b[i+1] == 'u':
			if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				return -1
			}
			i += 6
		case isEscape[b[i+1]]:
			i += 2
		default:
			return -1
		}
	}
}

// plainInString holds the bytes that stand for themselves in a JSON
// string: all but the control bytes, the quote and the backslash.
var plainInString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// isEscape holds the bytes that may follow a backslash in a JSON string,
// but for the 'u' of a \uXXXX escape.
var isEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// literalEnd returns the index after lit at i, or -1 when b does not hold
// it there.
func literalEnd(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// numberEnd returns the index after the JSON number at i, or -1.
func numberEnd(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b) || !isDigit(b[i]):
		return -1
	case b[i] == '0':
		i++
	default:
		i = digitsEnd(b, i)
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		i = digitsEnd(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		i = digitsEnd(b, i)
	}
	return i
}

// digitsEnd returns the index of the first byte at or after i that is not
// a decimal digit.
func digitsEnd(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
