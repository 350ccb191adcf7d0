package report

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
)

// A run's section is written as parts that the page's script renders when
// they come near the screen, so that a page of many thousand records
// opens as fast as a small one: each part is an empty placeholder, as high as
// the part is expected to be, followed by the part's markup in a
// data block (a script element of type text/html, which the browser
// neither runs nor parses as markup). The placeholder's height is
// reckoned from the markup's length. The markup holds no script element
// and no comment, as every recorded text in it is escaped, so nothing in
// it can end the data block early.
//
// The first part is the run's heading, its facts, its burn-down chart and,
// for a query's root run, the query's waterfall; then come its timeline's
// entries, in parts of at most partEntries entries or about partBytes of
// markup. Each timeline part says the seq of its first record
// (data-from), so that the script can find the part that holds any
// record's anchor.
const (
	partEntries = 200
	partBytes   = 64 << 10
)

// renderRun writes one run's section, opening the conversation it starts
// and closing the one it ends.
func renderRun(bw *bufio.Writer, r *run) error {
	if r.opens != nil {
		if err := page.ExecuteTemplate(bw, "conversation", r.opens); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if err := page.ExecuteTemplate(bw, "section", r); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var part bytes.Buffer
	pw := bufio.NewWriter(&part)
	if err := page.ExecuteTemplate(pw, "run", r); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	pw.Flush()
	writePart(bw, -1, part.Bytes())
	writeTimelineParts(bw, r.Entries)
	bw.WriteString("</section>\n")
	if r.closes {
		bw.WriteString("</section>\n")
	}
	return nil
}

// writeTimelineParts writes a run's entries in parts. A part never ends
// on a message Lookout added to a model call's input: it stays with the
// call.
func writeTimelineParts(bw *bufio.Writer, entries []*entry) {
	var part bytes.Buffer
	pw := bufio.NewWriter(&part)
	from, n := uint64(0), 0
	for i, e := range entries {
		if n == 0 {
			from = e.Seq
		}
		writeEntry(pw, e)
		n++
		last := i == len(entries)-1
		if !last && (e.Kind == kindInjected || n < partEntries && part.Len()+pw.Buffered() < partBytes) {
			continue
		}
		pw.Flush()
		writePart(bw, int64(from), part.Bytes())
		part.Reset()
		n = 0
	}
}

// writePart writes a part's placeholder and its markup; from is the seq
// of the part's first record, or negative for the run's heading.
func writePart(bw *bufio.Writer, from int64, markup []byte) {
	bw.WriteString(`<div class="part"`)
	if from >= 0 {
		bw.WriteString(` data-from="`)
		bw.WriteString(strconv.FormatInt(from, 10))
		bw.WriteString(`"`)
	}
	bw.WriteString(`></div><script type="text/html">`)
	bw.Write(markup)
	bw.WriteString("</script>\n")
}
