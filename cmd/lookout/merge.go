package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/lookout-go/lookout/internal/outfile"
	"github.com/lookout-go/lookout/simulate"
)

var mergeCmd = &command{
	name:    "merge",
	args:    "DIR...",
	summary: "merge the conversations of simulation batches, finished runs only",
	details: `Merge writes the conversation.jsonl of every finished run in the simulation
batch folders given (a batch's output folder, or one per shard) to standard
output or --output, in job order, whatever the shards and however often the
batch was interrupted and resumed. A run is finished once its done.json or
failed.json is written; a failed run's last line carries its error in
metadata.end, and a run that failed before its first turn has one line
saying so. --skip-failed leaves failed runs out.

Runs without a marker (in progress, or cut short by a killed batch) are
left out and listed on standard error; they make the exit status 1 unless
--allow-unfinished is given. --json prints what was merged and left out as
JSON on standard output, and then needs --output for the lines. --output
is written whole, through a temporary file renamed over it, and must be a
regular file or a new one.`,
	examples: `  # the dataset of a finished batch
  lookout merge out/ > dataset.jsonl

  # the shards of a Kubernetes Indexed Job, without failed runs
  lookout merge --skip-failed --output dataset.jsonl shards/*/

  # what a batch still lacks, as JSON
  lookout merge --json --allow-unfinished --output dataset.jsonl out/`,
	minArgs: 1,
	maxArgs: -1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) int {
		output := fs.String("output", "", "write the lines to this file instead of standard output")
		skipFailed := fs.Bool("skip-failed", false, "leave out runs that ended with an error")
		allowUnfinished := fs.Bool("allow-unfinished", false, "exit 0 even when some runs are unfinished")
		asJSON := fs.Bool("json", false, "print the merge report as JSON on standard output (needs --output)")
		return func(_ context.Context, e *env, dirs []string) int {
			if *asJSON && *output == "" {
				return e.badUsage("--json needs --output, since standard output then holds the report")
			}
			if *output != "" {
				if err := regularTarget(*output); err != nil {
					return e.badUsage("--output: %v", err)
				}
			}
			return merge(e, dirs, *output, simulate.MergeOptions{SkipFailed: *skipFailed}, *allowUnfinished, *asJSON)
		}
	},
}

func merge(e *env, dirs []string, output string, opts simulate.MergeOptions, allowUnfinished, asJSON bool) int {
	rep, err := mergeTo(e.stdout, output, opts, dirs)
	if err != nil {
		return e.fail("%v", err)
	}
	for _, d := range rep.Unfinished {
		e.warn("unfinished run left out: %s", d)
	}
	if err := reportMerge(e, rep, opts.SkipFailed, asJSON); err != nil {
		return e.fail("%v", err)
	}
	if len(rep.Unfinished) > 0 && !allowUnfinished {
		return exitProblems
	}
	return exitOK
}

// mergeTo merges the runs of dirs into the file output, or into stdout
// when output is "". The file is written whole, through a temporary file
// renamed over it, and only a regular file or a new one is replaced.
func mergeTo(stdout io.Writer, output string, opts simulate.MergeOptions, dirs []string) (*simulate.MergeReport, error) {
	if output == "" {
		return simulate.Merge(stdout, opts, dirs...)
	}
	var rep *simulate.MergeReport
	err := outfile.Write(filepath.Dir(output), filepath.Base(output), func(w io.Writer) (err error) {
		rep, err = simulate.Merge(w, opts, dirs...)
		return err
	})
	return rep, err
}

// reportMerge prints the merge report: as JSON on standard output, or
// else as one line on standard error.
func reportMerge(e *env, rep *simulate.MergeReport, skipFailed, asJSON bool) error {
	if asJSON {
		return writeJSON(e.stdout, rep)
	}
	fmt.Fprintf(e.stderr, "lookout: merged %d runs (%d lines); %d failed%s, %d unfinished\n",
		rep.Runs, rep.Lines, len(rep.Failed), map[bool]string{true: " (left out)", false: ""}[skipFailed], len(rep.Unfinished))
	return nil
}
