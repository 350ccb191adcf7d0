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
	// groupBytes bounds the markup of a part of whole blocks.
	groupBytes = 64 << 10
)

// renderRuns writes the runs' sections. The runs of a query (a root run
// and the runs it started), or of a conversation, make a block, whose
// markup is whole; blocks are gathered in parts of up to groupBytes, so
// that a batch of many small queries makes few parts. A block larger than
// that is written a run at a time, each in parts of its own (see
// renderRun). A gathered part lists the anchors of the sections it holds
// (data-runs), so that the script can find the part that holds a run.
func renderRuns(bw *bufio.Writer, runs []*run) error {
	var group, block bytes.Buffer
	var anchors []string
	flush := func() {
		if group.Len() > 0 {
			writeGroup(bw, anchors, group.Bytes())
			group.Reset()
			anchors = anchors[:0]
		}
	}
	for len(runs) > 0 {
		n := blockLen(runs)
		block.Reset()
		bb := bufio.NewWriter(&block)
		for _, r := range runs[:n] {
			if err := renderWhole(bb, r); err != nil {
				return err
			}
		}
		bb.Flush()
		if block.Len() > groupBytes {
			flush()
			for _, r := range runs[:n] {
				if err := renderRun(bw, r); err != nil {
					return err
				}
			}
		} else {
			if group.Len()+block.Len() > groupBytes {
				flush()
			}
			group.Write(block.Bytes())
			for _, r := range runs[:n] {
				if r.opens != nil {
					anchors = append(anchors, r.opens.Anchor)
				}
				anchors = append(anchors, r.Anchor)
			}
		}
		runs = runs[n:]
	}
	flush()
	return nil
}

// blockLen is how many of runs, which start a block, the block holds: a
// conversation's runs, or a query's.
func blockLen(runs []*run) int {
	for i := 1; i < len(runs); i++ {
		if runs[i-1].closes || runs[0].opens == nil && runs[i].Parent == nil {
			return i
		}
	}
	return len(runs)
}

// writeGroup writes a part that holds the sections with anchors.
func writeGroup(bw *bufio.Writer, anchors []string, markup []byte) {
	bw.WriteString(`<div class="part" data-runs="`)
	for i, a := range anchors {
		if i > 0 {
			bw.WriteByte(' ')
		}
		escapeAttr(bw, a)
	}
	bw.WriteString(`"></div><script type="text/html">`)
	bw.Write(markup)
	bw.WriteString("</script>\n")
}

// renderWhole writes one run's section whole, opening the conversation it
// starts and closing the one it ends.
func renderWhole(bw *bufio.Writer, r *run) error {
	if err := openRun(bw, r); err != nil {
		return err
	}
	if err := page.ExecuteTemplate(bw, "run", r); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	bw.WriteString(`<div class="timeline">`)
	for _, e := range r.Entries {
		writeEntry(bw, e)
	}
	bw.WriteString("</div>")
	closeRun(bw, r)
	return nil
}

// openRun writes the start of a run's section, after the start of the
// conversation the run opens.
func openRun(bw *bufio.Writer, r *run) error {
	if r.opens != nil {
		if err := page.ExecuteTemplate(bw, "conversation", r.opens); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if err := page.ExecuteTemplate(bw, "section", r); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// closeRun writes the end of a run's section, and of the conversation it
// ends.
func closeRun(bw *bufio.Writer, r *run) {
	bw.WriteString("</section>\n")
	if r.closes {
		bw.WriteString("</section>\n")
	}
}

// renderRun writes one run's section in parts: its heading, then its
// timeline's entries.
func renderRun(bw *bufio.Writer, r *run) error {
	if err := openRun(bw, r); err != nil {
		return err
	}
	var part bytes.Buffer
	pw := bufio.NewWriter(&part)
	if err := page.ExecuteTemplate(pw, "run", r); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	pw.Flush()
	writePart(bw, -1, part.Bytes())
	writeTimelineParts(bw, r.Entries)
	closeRun(bw, r)
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
