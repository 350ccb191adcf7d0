package scan

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestWriteIntWritesWhatStrconvDoes(t *testing.T) {
	values := []int64{0, 1, 9, 10, 11, 99, 100, 101, 1234, -1, -9, -10, -12345, math.MaxInt64, math.MinInt64}
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
