package observer

import (
	"strings"
	"time"

	"github.com/lookout-go/lookout/observer/internal/scan"
)

// FormatDuration renders d for the model: whole seconds under a minute,
// whole minutes under an hour, then hours and days to one decimal.
func FormatDuration(d time.Duration) string {
	var b strings.Builder
	b.Grow(24)
	scan.WriteDuration(&b, d)
	return b.String()
}

// FormatCount renders n for the model with a comma between each group of
// three digits, as the Resource observer writes token counts: 50000 is
// "50,000".
func FormatCount(n int64) string {
	var num [32]byte
	return string(scan.AppendThousands(num[:0], n))
}
