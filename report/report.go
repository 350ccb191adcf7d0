package report

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"

	"github.com/lookout-go/lookout/recorder"
)

// Defaults for Options.
const (
	// DefaultMaxTextBytes is how much of one piece of recorded text (a
	// tool's arguments or result, a message, an assessment) is shown
	// before the rest is folded away.
	DefaultMaxTextBytes = 4 << 10
	// DefaultTotalTextBytes is how much recorded text the whole page
	// shows. When the texts of a trajectory add up to more, each is cut
	// to a common length that fits, so a long run still gives a page a
	// browser opens quickly.
	DefaultTotalTextBytes = 6 << 20
	// minTextBytes is the least of each text shown, whatever the total.
	minTextBytes = 64
)

// Options tune a report. A nil *Options means the defaults. Options is
// plain data: safe to read from many goroutines, not to modify
// concurrently.
type Options struct {
	// Title is the page's title. Empty means "Lookout report".
	Title string
	// MaxTextBytes bounds each piece of recorded text shown in full; the
	// rest is folded, and the page says how many bytes were left out.
	// Zero means DefaultMaxTextBytes.
	MaxTextBytes int
	// TotalTextBytes bounds the recorded text the page shows in all.
	// Zero means DefaultTotalTextBytes.
	TotalTextBytes int
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.Title == "" {
		out.Title = "Lookout report"
	}
	if out.MaxTextBytes <= 0 {
		out.MaxTextBytes = DefaultMaxTextBytes
	}
	if out.TotalTextBytes <= 0 {
		out.TotalTextBytes = DefaultTotalTextBytes
	}
	return out
}

var (
	//go:embed page.html
	pageHTML string
	//go:embed style.css
	styleCSS string
	//go:embed script.js
	scriptJS string

	page = template.Must(template.New("page").Parse(pageHTML))
	// csp allows the page's own style and script, by hash, and images
	// from data: URLs; nothing is fetched.
	csp = "default-src 'none'; style-src '" + hash(styleCSS) + "'; script-src '" + hash(scriptJS) +
		"'; img-src data:; base-uri 'none'; form-action 'none'"
)

// hash is the CSP source expression of an inline element's text.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// Write writes one self-contained HTML page showing the runs of records to
// w. records may hold one run, a run and the runs it started, or many
// unrelated runs, in any interleaving; each run's records are ordered by
// seq. The page fetches nothing when it is viewed, and every piece of
// recorded text is escaped.
//
// Write fails when records is empty or holds no record of any run, and
// when w fails.
func Write(w io.Writer, records []recorder.Record, opts *Options) error {
	o := opts.withDefaults()
	if len(records) == 0 {
		return ErrNoRecords
	}
	v := build(records, &o)
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := page.Execute(bw, v); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
