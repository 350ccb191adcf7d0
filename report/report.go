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
	// DefaultMaxBytes is the size the page is kept to by folding long
	// texts.
	DefaultMaxBytes = 9 << 20
	// minTextBytes is the least of each text shown, whatever the page's
	// size.
	minTextBytes = 32
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
	// MaxBytes is the size the page is kept to: when the texts, each cut
	// to MaxTextBytes, would make it larger, the longest are cut further,
	// to one common length that fits. Zero means DefaultMaxBytes. The
	// markup alone can exceed it; each text then shows 32 bytes.
	MaxBytes int
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
	if out.MaxBytes <= 0 {
		out.MaxBytes = DefaultMaxBytes
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
// Write fails with ErrNoRecords when records is empty, and when w fails.
func Write(w io.Writer, rs []recorder.Record, opts *Options) error {
	if len(rs) == 0 {
		return ErrNoRecords
	}
	return write(w, records(rs), opts)
}

// WriteJSONL writes the page Write writes of the records src holds, as
// JSON Lines (what recorder.NewJSONLSink writes). It does not hold the
// records: it reads src in order once, then each run's records where
// they are, twice, and keeps a few dozen bytes a record, so that a
// trajectory of millions of records makes a page in bounded memory. A
// torn last line, which a crash leaves, is left out; any other line that
// is not a record fails the page.
//
// WriteJSONL fails with ErrNoRecords when src holds no records, and when
// src or w fails.
func WriteJSONL(w io.Writer, src io.ReaderAt, opts *Options) error {
	return write(w, &lines{r: src}, opts)
}

// write writes the page of src's records: it lays the page out, builds
// every run to measure the page with its texts left out, folds the texts
// into what is left of MaxBytes, and builds the runs again to write the
// page.
func write(w io.Writer, src source, opts *Options) error {
	o := opts.withDefaults()
	v, err := plan(src, &o)
	if err != nil {
		return err
	}
	measure := &folder{measure: true}
	sections, err := v.measure(src, measure, o.MaxTextBytes)
	if err != nil {
		return err
	}
	v.finish()
	markup := countingWriter{n: sections}
	v.Folded = len(measure.costs) // as many digits as the note on folded texts can have
	if err := v.frame(&markup, nil); err != nil {
		return err
	}
	f, folded := measure.folding(o.MaxTextBytes, o.MaxBytes-int(markup.n))
	v.Folded = folded
	return v.frame(w, func(bw *bufio.Writer) error { return v.writeRuns(bw, src, f) })
}

// frame writes the page's head and foot, and between them what runs
// writes, if not nil.
func (v *view) frame(w io.Writer, runs func(*bufio.Writer) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := page.ExecuteTemplate(bw, "head", v); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if runs != nil {
		if err := runs(bw); err != nil {
			return err
		}
	}
	if err := page.ExecuteTemplate(bw, "foot", v); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// countingWriter counts what is written to it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
