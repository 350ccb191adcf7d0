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
// neither runs nor parses as markup). The placeholder carries the height
// reckoned from the markup's length (data-h). The markup holds no script element
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
	// groupBytes bounds the markup of a part of whole blocks, as the
	// measuring pass reckons their sections' sizes (each run's est).
	groupBytes = 64 << 10
)

// measure builds every run, a block at a time, and returns about how
// many bytes the runs' sections take with their texts left out, which f
// notes. Each run learns about how large its section is (est), which lays
// the page out in parts when it is written, and each query's root run
// gets its waterfall.
func (v *view) measure(src source, f *folder, maxEach int) (int64, error) {
	var c countingWriter
	bw := bufio.NewWriterSize(&c, 64<<10)
	b := &builder{}
	wrappers := 0
	for runs := v.Runs; len(runs) > 0; {
		block := runs[:blockLen(runs)]
		runs = runs[len(block):]
		for _, r := range block {
			est, entries := headingBytes, 0
			err := b.run(r, src, func(e *entry) {
				est += entryBytes
				eachText(e, func(t *text) {
					if t != nil {
						est += min(len(t.S), maxEach+foldNoteBytes)
					}
				})
				entries++
				f.entry(e)
				writeEntry(bw, e)
			})
			if err != nil {
				return 0, err
			}
			r.est = est
			wrappers += (2+entries/partEntries+est/partBytes)*wrapperBytes + len(r.Anchor)
		}
		for _, r := range block {
			if r.Query == r {
				r.Waterfall = drawWaterfall(r, appendTree(nil, r))
			}
		}
		for _, r := range block {
			r.spans = nil
			if r.opens != nil {
				r.opens.Summary = summarize(r.opens.Turns, r.opens.runs)
			}
			if err := openRun(bw, r); err != nil {
				return 0, err
			}
			if err := heading(bw, r, f); err != nil {
				return 0, err
			}
			bw.WriteString(`<div class="timeline"></div>`)
			closeRun(bw, r)
		}
	}
	bw.Flush()
	return c.n + int64(wrappers), nil
}

// What measure reckons a section takes beyond its texts: its heading,
// each entry's markup, and each part's placeholder and data block.
const (
	headingBytes = 2 << 10
	entryBytes   = 160
	wrapperBytes = 96
)

// writeRuns builds the runs again and writes their sections, folding
// their texts with f. The runs of a query (a root run and the runs it
// started), or of a conversation, make a block, whose markup is whole;
// blocks are gathered in parts of up to about groupBytes, so that a batch
// of many small queries makes few parts. A block larger than that is
// written a run at a time, each in parts of its own (see renderRun). A
// gathered part lists the anchors of the sections it holds (data-runs),
// so that the script can find the part that holds a run.
func (v *view) writeRuns(bw *bufio.Writer, src source, f *folder) error {
	b := &builder{resolved: true}
	var group bytes.Buffer
	gw := bufio.NewWriter(&group)
	var anchors []string
	gathered := 0
	flush := func() {
		gw.Flush()
		if group.Len() > 0 {
			writeGroup(bw, anchors, group.Bytes())
			group.Reset()
			anchors = anchors[:0]
		}
		gathered = 0
	}
	for runs := v.Runs; len(runs) > 0; {
		block := runs[:blockLen(runs)]
		runs = runs[len(block):]
		est := 0
		for _, r := range block {
			est += r.est
		}
		if est > groupBytes {
			flush()
			for _, r := range block {
				if err := renderRun(bw, b, r, src, f); err != nil {
					return err
				}
			}
			continue
		}
		if gathered > 0 && gathered+est > groupBytes {
			flush()
		}
		for _, r := range block {
			if err := renderWhole(gw, b, r, src, f); err != nil {
				return err
			}
			if r.opens != nil {
				anchors = append(anchors, r.opens.Anchor)
			}
			anchors = append(anchors, r.Anchor)
		}
		gathered += est
	}
	flush()
	return nil
}

// walk builds r again, giving emit its timeline's entries in order, and
// leaves r as it was.
func walk(b *builder, r *run, src source, emit func(*entry)) error {
	again := *r
	again.spans, again.tools, again.Problems, again.issues, again.Failed = nil, nil, nil, 0, 0
	return b.run(&again, src, emit)
}

// heading writes a run's heading: its facts, its burn-down chart, drawn
// now, and its query's waterfall; f folds its error.
func heading(bw *bufio.Writer, r *run, f *folder) error {
	r.Chart = burnDown(r)
	saved := r.Error
	if saved != nil {
		shown := *saved
		f.fold(&shown)
		r.Error = &shown
	}
	err := page.ExecuteTemplate(bw, "run", r)
	r.Chart, r.Error = nil, saved
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
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
	bw.WriteByte('"')
	writeHeight(bw, markup)
	bw.WriteString(`></div><script type="text/html">`)
	bw.Write(markup)
	bw.WriteString("</script>\n")
}

// renderWhole writes one run's section whole, opening the conversation it
// starts and closing the one it ends.
func renderWhole(bw *bufio.Writer, b *builder, r *run, src source, f *folder) error {
	if err := openRun(bw, r); err != nil {
		return err
	}
	if err := heading(bw, r, f); err != nil {
		return err
	}
	bw.WriteString(`<div class="timeline">`)
	err := walk(b, r, src, func(e *entry) {
		f.entry(e)
		writeEntry(bw, e)
	})
	if err != nil {
		return err
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
// timeline's entries, in parts of at most partEntries entries or about
// partBytes of markup. A part never ends on a message Lookout added to a
// model call's input: it stays with the call.
func renderRun(bw *bufio.Writer, b *builder, r *run, src source, f *folder) error {
	if err := openRun(bw, r); err != nil {
		return err
	}
	var part bytes.Buffer
	pw := bufio.NewWriter(&part)
	if err := heading(pw, r, f); err != nil {
		return err
	}
	pw.Flush()
	writePart(bw, -1, part.Bytes())
	part.Reset()
	from, n, last := uint64(0), 0, ""
	put := func() {
		pw.Flush()
		writePart(bw, int64(from), part.Bytes())
		part.Reset()
		n = 0
	}
	err := walk(b, r, src, func(e *entry) {
		if n > 0 && last != kindInjected && (n >= partEntries || part.Len()+pw.Buffered() >= partBytes) {
			put()
		}
		if n == 0 {
			from = e.Seq
		}
		f.entry(e)
		writeEntry(pw, e)
		n++
		last = e.Kind
	})
	if err != nil {
		return err
	}
	if n > 0 {
		put()
	}
	closeRun(bw, r)
	return nil
}

// writeHeight writes a part's data-h: the height, in pixels, it is expected to take once rendered,
// about a pixel for each 5 bytes of its markup (most of which, the tool
// calls' arguments and results, is folded away). The page's script sets
// it, so that it need not read the markup to reckon it.
func writeHeight(bw *bufio.Writer, markup []byte) {
	bw.WriteString(` data-h="`)
	bw.WriteString(strconv.Itoa(len(markup) / 5))
	bw.WriteByte('"')
}

// writePart writes a part's placeholder and its markup; from is the seq
// of the part's first record, or negative for the run's heading.
func writePart(bw *bufio.Writer, from int64, markup []byte) {
	bw.WriteString(`<div class="part"`)
	if from >= 0 {
		bw.WriteString(` data-from="`)
		bw.WriteString(strconv.FormatInt(from, 10))
		bw.WriteByte('"')
	}
	writeHeight(bw, markup)
	bw.WriteString(`></div><script type="text/html">`)
	bw.Write(markup)
	bw.WriteString("</script>\n")
}
