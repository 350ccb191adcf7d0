package scan

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

func TestWriteIntWritesWhatStrconvDoes(t *testing.T) {
	values := []int64{1234, -12345, math.MaxInt64, math.MinInt64}
	for n := int64(-120); n <= 120; n++ {
		values = append(values, n)
	}
	for n := int64(1); n < math.MaxInt64/7; n *= 7 {
		values = append(values, n, -n, n+1)
	}
	for _, n := range values {
		var b strings.Builder
		b.WriteString("#")
		WriteInt(&b, n)
		if want := "#" + strconv.FormatInt(n, 10); b.String() != want {
			t.Errorf("WriteInt(%d) wrote %q, want %q", n, b.String(), want)
		}
	}
}

func TestAppendThousandsGroupsTheDigitsOfEveryLength(t *testing.T) {
	values := []int64{0, 7, -7, 999, -999, 1000, -1000, 999999, 1000000, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for n := int64(1); n < math.MaxInt64/10; n *= 10 {
		values = append(values, n, -n, n-1, 1-n, 3*n+7)
	}
	for _, n := range values {
		got := string(AppendThousands([]byte("="), n))
		if want := "=" + grouped(n); got != want {
			t.Errorf("AppendThousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// grouped is the decimal form of n with a comma between each group of
// three digits, counted from the right, built one digit at a time.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return sign + string(out)
}

// TestPooledTextsShareABufferOfManyAssessments: the texts that Written
// writes one after the other, each about the size of an assessment, share
// one buffer for many of them, so that a new buffer is rarely allocated.
func TestPooledTextsShareABufferOfManyAssessments(t *testing.T) {
	var texts Texts
	block := strings.Repeat("x", 900)
	var ends []uintptr
	for range 12 {
		texts.StartShared(len(block))
		texts.WriteString(block)
		text := texts.End().In(texts.String())
		ends = append(ends, uintptr(unsafe.Pointer(unsafe.StringData(text))))
	}
	for i := 1; i < len(ends); i++ {
		if ends[i] != ends[i-1]+uintptr(len(block)) {
			t.Fatalf("text %d of 12 of %d bytes is in a new buffer", i+1, len(block))
		}
	}
}
