package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/lookout-go/lookout/internal/outfile"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/report"
)

var reportCmd = &command{
	name:    "report",
	args:    "FILE...",
	summary: "write the runs as one self-contained HTML page",
	details: `Report reads one or more trajectory files, or the files of a directory,
together and writes one HTML page showing their runs: a header with the
outcome, stop reason, models and providers, tokens, calls, cost and
duration; the sub-agent tree, with the turns of a conversation grouped in
order; for each run a budget burn-down chart with the caution and warning
bands, and a timeline of its messages, model calls, tool calls (collapsible,
with arguments, results and errors; overlapping calls side by side), and
each message Lookout added to a model call's input (an assessment, the
wrap-up reminder) as the model received it, before that call. Every record
has an anchor: #seq-N, or #RUN-seq-N when the page shows several runs.

The page needs nothing else: its style and script are inside it, its
Content-Security-Policy allows nothing more, and it fetches nothing when it
is viewed. Recorded text is escaped. Long texts are folded so that the page
stays under about 9 MB, and each says how much it leaves out.

The page is written to FILE given by -o, report.html by default, created
with mode 0600 and replaced whole only once it is complete; the path
written is printed. -o - writes the page to standard output. An input file
is never overwritten, and FILE must be a regular file or a new one: a
symbolic link, a device, a FIFO or a directory there is refused.`,
	examples: `  # the report of one run, written to report.html
  lookout report trajectory.jsonl

  # every run under runs/ on one page
  lookout report -o runs.html runs/

  # a compressed trajectory, to standard output
  lookout report -o - run.jsonl.gz > run.html`,
	minArgs: 1,
	maxArgs: -1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) int {
		out := fs.String("o", "report.html", "write the page to `FILE`; - writes it to standard output")
		title := fs.String("title", "", "the page's `TITLE` (default \"Lookout report\")")
		return func(_ context.Context, e *env, files []string) int {
			if *out == "" {
				return e.badUsage("-o needs a file name, or - for standard output")
			}
			inputs, err := e.expand(files)
			if err != nil {
				return e.failErr(err)
			}
			if *out != stdinName && isInput(*out, inputs) {
				return e.fail("report: writing %s would overwrite an input file; choose another -o FILE", *out)
			}
			if os.Getenv("GOMEMLIMIT") == "" {
				defer debug.SetMemoryLimit(debug.SetMemoryLimit(reportMemoryLimit))
			}
			spool, n, err := spoolAll(e, inputs)
			if err != nil {
				return e.failErr(err)
			}
			defer spool.close()
			return writeReport(e, *out, spool.f, n, &report.Options{Title: *title})
		}
	},
}

// reportMemoryLimit is the soft memory limit of lookout report, unless
// GOMEMLIMIT sets one: the page is made from an index of a few dozen
// bytes a record, and the limit keeps the garbage of reading the records
// again and again from doubling the memory the process takes.
const reportMemoryLimit = 320 << 20

// isInput reports whether path is one of the input files.
func isInput(path string, inputs []string) bool {
	out, err := os.Stat(path)
	if err != nil {
		return false
	}
	for _, in := range inputs {
		if info, err := os.Stat(in); err == nil && os.SameFile(info, out) {
			return true
		}
	}
	return false
}

// writeReport writes the page of the n records src holds, JSON Lines,
// to path, or to standard output for "-". A file is written beside path
// and renamed over it once complete, so a failed write leaves no half
// page behind. A path that is there and not a regular file (a symlink, a
// device, a FIFO) is a usage error, and is left as it is.
func writeReport(e *env, path string, src io.ReaderAt, n int, opts *report.Options) int {
	if n == 0 {
		return e.fail("report: the files hold no records")
	}
	if path == stdinName {
		if err := report.WriteJSONL(e.stdout, src, opts); err != nil {
			return e.fail("%v", err)
		}
		return exitOK
	}
	if err := regularTarget(path); err != nil {
		return e.badUsage("-o: %v", err)
	}
	write := func(w io.Writer) error { return report.WriteJSONL(w, src, opts) }
	if err := outfile.Write(filepath.Dir(path), filepath.Base(path), write); err != nil {
		return e.fail("report: write %s: %v", path, err)
	}
	fmt.Fprintln(e.stdout, path)
	return exitOK
}

// spooled is the records of the input files, gathered as JSON Lines in a
// temporary file (created 0600), which report.WriteJSONL reads where
// they are rather than holding them: a page of millions of records is
// made in bounded memory, whatever the files were (compressed, ATIF,
// standard input, several).
type spooled struct{ f *os.File }

func (s *spooled) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// spoolAll reads the files paths name, in order, as loadAll does (a torn
// last line is warned of, invalid ATIF refused), into a spool, and
// returns it with the number of records.
func spoolAll(e *env, paths []string) (*spooled, int, error) {
	f, err := os.CreateTemp("", "lookout-report-*.jsonl")
	if err != nil {
		return nil, 0, err
	}
	s := &spooled{f: f}
	w := bufio.NewWriterSize(f, 1<<20)
	n := 0
	for i, p := range paths {
		err := spoolFile(e, p, func(rec *recorder.Record) error {
			line, err := rec.AppendJSON(nil)
			if err != nil {
				return err
			}
			w.Write(line)
			n++
			return w.WriteByte('\n')
		})
		if err != nil {
			s.close()
			return nil, 0, err
		}
		e.progress.step("reading files", i+1, len(paths))
	}
	if err := w.Flush(); err != nil {
		s.close()
		return nil, 0, err
	}
	return s, n, nil
}

// spoolFile gives add each record of the file at path, read as load
// reads it, without holding the records of JSON Lines.
func spoolFile(e *env, path string, add func(*recorder.Record) error) error {
	in, err := e.open(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer in.close()
	if in.foreign != "" {
		return fmt.Errorf("read %s: %w", path, foreignError(in.foreign))
	}
	if in.format == formatATIF {
		records, err := importATIF(in, false)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		for i := range records {
			if err := add(&records[i]); err != nil {
				return err
			}
		}
		return nil
	}
	rd := recorder.NewReader(in.r)
	first := true
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		first = false
		if err := add(&rec); err != nil {
			return err
		}
	}
	if tear := rd.Tear(); tear != nil {
		if first && !in.object {
			return fmt.Errorf("read %s: neither JSON Lines of Lookout records nor an ATIF document: %s", path, describeTear(tear))
		}
		e.warn("%s: %s; the records before it are used", path, describeTear(tear))
	}
	return nil
}
