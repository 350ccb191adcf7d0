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

// TestLeadingWritesWhatWriteIntAndWriteThousandsDo: a Leading, used for
// one number after another, writes each as WriteInt and WriteThousands
// do, whether its leading digits are the ones kept or new ones, and keeps
// them for the next number that shares them.
func TestLeadingWritesWhatWriteIntAndWriteThousandsDo(t *testing.T) {
	values := []int64{0, 7, -7, 999_999, 1_000_000, 1_000_001, 1 << 40, 1<<40 - 1, 1<<40 - 493, 1<<40 + 5_000_123,
		12_000_000, 12_999_999, 12_000_000, math.MaxInt64, math.MinInt64, -1_000_000, 3_000_000_000}
	for n := int64(1); n < math.MaxInt64/10; n *= 10 {
		values = append(values, n, n-1, 3*n+7, n+1)
	}
	var plain, grouped, both Leading
	for _, n := range values {
		for _, tc := range []struct {
			name        string
			write, want func(*strings.Builder, int64)
		}{
			{"WriteInt", plain.WriteInt, WriteInt},
			{"WriteThousands", grouped.WriteThousands, WriteThousands},
			{"WriteInt after WriteThousands", both.WriteInt, WriteInt},
			{"WriteThousands after WriteInt", both.WriteThousands, WriteThousands},
		} {
			var got, want strings.Builder
			tc.write(&got, n)
			tc.want(&want, n)
			if got.String() != want.String() {
				t.Errorf("%s(%d) wrote %q, want %q", tc.name, n, got.String(), want.String())
			}
		}
	}
	// The leading digits are written once for the numbers that share
	// them.
	var l Leading
	var b strings.Builder
	l.WriteThousands(&b, 1<<40)
	kept := unsafe.SliceData(l.text)
	l.WriteThousands(&b, 1<<40-1234)
	if unsafe.SliceData(l.text) != kept || string(l.text) != "1,099,511" {
		t.Errorf("the leading digits of a number sharing them were written again, as %q", l.text)
	}
}

// TestEvidenceLineCitesEveryIndex: the index of an evidence line, small
// (from the table) or large, is written as WriteInt writes it.
func TestEvidenceLineCitesEveryIndex(t *testing.T) {
	for _, n := range []int64{0, 1, 9, 10, 42, 99, 100, 101, 12345, math.MaxInt64, -1, -100, math.MinInt64} {
		var b, want strings.Builder
		EvidenceLine(&b, n, []byte("read path=go.mod"), true, "")
		want.WriteByte('#')
		WriteInt(&want, n)
		want.WriteString(" read path=go.mod")
		if b.String() != want.String() {
			t.Errorf("EvidenceLine(%d) wrote %q, want %q", n, b.String(), want.String())
		}
	}
}

// ClipOneLine reads only the start of a long text, and gives what
// clipping the whole text made one line gives, whatever its bytes.
func TestClipOneLineGivesWhatClippingTheWholeLineGives(t *testing.T) {
	long := strings.Repeat("é\tx`\n", 40)
	for _, s := range []string{
		"", "short", "a\nb\tc`d", long, long[1:], "\xff\xfe" + long, long + "\xe2\x82",
		strings.Repeat("a", 79) + "é" + long, strings.Repeat("a", 80) + "\xe2\x82\xac" + long,
		strings.Repeat("\xe2", 100), strings.Repeat("a\x82", 60),
	} {
		for _, n := range []int{0, 1, 5, 79, 80, 81} {
			if got, want := ClipOneLine(s, n), Clip(OneLine(s), n); got != want {
				t.Errorf("ClipOneLine(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
	}
}
