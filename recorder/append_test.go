package recorder

import (
	"math"
	"strconv"
	"testing"
)

// TestAppendUintWritesWhatStrconvDoes checks the digits appendUint and
// appendInt write, straight into b eight at a time, against strconv's,
// at the edges of every number of digits and of bits, after bytes already
// in b and with and without room for the digits.
func TestAppendUintWritesWhatStrconvDoes(t *testing.T) {
	values := []uint64{0, 1, 9, math.MaxUint64, math.MaxUint64 - 1, 1099511627776, 3600000000000}
	for p := uint64(1); p <= 1e19; p *= 10 {
		values = append(values, p-1, p, p+1, p*9/7)
		if p == 1e19 {
			break
		}
	}
	for i := range 64 {
		values = append(values, 1<<i, 1<<i-1, 1<<i+1)
	}
	for _, u := range values {
		want := strconv.AppendUint([]byte("x:"), u, 10)
		if got := appendUint([]byte("x:"), u); string(got) != string(want) {
			t.Errorf("appendUint(%d) = %q, want %q", u, got, want)
		}
		if got := appendUint(make([]byte, 2, 32), u); string(got[2:]) != string(want[2:]) {
			t.Errorf("appendUint(%d) with room = %q, want %q", u, got[2:], want[2:])
		}
		if got := appendUint(nil, u); string(got) != string(want[2:]) {
			t.Errorf("appendUint(%d) into nil = %q, want %q", u, got, want[2:])
		}
		if v := -int64(u); string(appendInt(nil, v)) != strconv.FormatInt(v, 10) {
			t.Errorf("appendInt(%d) = %q", v, appendInt(nil, v))
		}
		if n := decimalLen(u); n != len(want)-2 {
			t.Errorf("decimalLen(%d) = %d, want %d", u, n, len(want)-2)
		}
	}
}
