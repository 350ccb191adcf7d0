package main

import (
	"context"
	"flag"

	"github.com/lookout-go/lookout/recorder/summary"
)

var inspectCmd = &command{
	name:    "inspect",
	args:    "FILE...",
	summary: "show runs, outcomes, stop reasons, usage, tools, errors and assessments",
	details: `Inspect reads one or more trajectory files and prints, for all runs together
and then for each run: how it ended, its duration, model calls and tokens, the
tools called with their errors, the assessments observers made, budget limits
exceeded, feedback efficacy and extension records. Child runs are listed
under their parents.

An ATIF document is checked against the ATIF rules first, as validate
checks it, and refused with its problems listed; --repair imports it
anyway, as well as it can. A file that is neither JSON Lines of records
nor ATIF is refused.`,
	examples: `  # the runs of one trajectory
  lookout inspect trajectory.jsonl

  # every *.jsonl and *.jsonl.gz file under runs/, read together
  lookout inspect runs/

  # the failed tool calls of each run, with jq
  lookout inspect --json trajectory.jsonl | jq '.runs[] | {run_id, failures}'`,
	minArgs: 1,
	maxArgs: -1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) int {
		asJSON := fs.Bool("json", false, "print the report as JSON")
		repair := fs.Bool("repair", false, "import ATIF documents that break the ATIF rules as well as possible instead of refusing them")
		return func(_ context.Context, e *env, files []string) int {
			records, err := loadAllWith(e, files, *repair)
			if err != nil {
				return e.failErr(err)
			}
			rep := summary.Analyze(records)
			if *asJSON {
				err = writeJSON(e.stdout, rep)
			} else {
				err = rep.WriteText(e.stdout)
			}
			if err != nil {
				return e.fail("write: %v", err)
			}
			return exitOK
		}
	},
}
