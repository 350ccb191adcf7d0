package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/lookout-go/lookout/recorder"
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
under their parents. Calls of control tools (a transfer to another agent,
an exit), which the budget does not charge, are counted apart from the
tool calls. Last comes each query's budget, as the budget counted it: a
query is a root run and the runs it started, which share one budget; its
tokens are those its budget records say were charged, its model calls
those requested, its tool calls those charged.

An ATIF document is checked against the ATIF rules first, as validate
checks it, and refused with its problems listed; --repair imports it
anyway, as well as it can. A file that is neither JSON Lines of records
nor ATIF is refused.

--run limits the report to one run and the runs it started. With --seq
as well, the records of that run from five before seq N to five after it
follow the report, one JSON object a line, so that a replay's divergence
report can open the recording where the run left it.`,
	examples: `  # the runs of one trajectory
  lookout inspect trajectory.jsonl

  # every *.jsonl and *.jsonl.gz file under runs/, read together
  lookout inspect runs/

  # one run, and its records around seq 12
  lookout inspect --run 0e3df471 --seq 12 trajectory.jsonl

  # the failed tool calls of each run, with jq
  lookout inspect --json trajectory.jsonl | jq '.runs[] | {run_id, failures}'`,
	minArgs: 1,
	maxArgs: -1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) int {
		asJSON := fs.Bool("json", false, "print the report as JSON")
		repair := fs.Bool("repair", false, "import ATIF documents that break the ATIF rules as well as possible instead of refusing them")
		runID := fs.String("run", "", "report only the run with this `ID` and the runs it started")
		seqFlag := fs.String("seq", "", "with --run, print the run's records from five before seq `N` to five after it")
		return func(_ context.Context, e *env, files []string) int {
			seq := -1
			if *seqFlag != "" {
				n, err := strconv.Atoi(*seqFlag)
				switch {
				case err != nil || n < 0:
					return e.badUsage("--seq wants a record's seq, a number from 0, not %q", *seqFlag)
				case *runID == "":
					return e.badUsage("--seq needs --run")
				case *asJSON:
					return e.badUsage("--seq prints records after the text report; it does not go with --json")
				}
				seq = n
			}
			records, err := loadAllWith(e, files, *repair)
			if err != nil {
				return e.failErr(err)
			}
			if *runID != "" {
				if records = runTree(records, *runID); len(records) == 0 {
					return e.fail("no run %q in the input", *runID)
				}
			}
			rep := summary.Analyze(records)
			budgets := queryBudgets(records)
			if *asJSON {
				err = writeJSON(e.stdout, inspected{rep, budgets})
			} else if err = rep.WriteText(e.stdout); err == nil {
				err = writeBudgets(e.stdout, budgets)
			}
			if err == nil && seq >= 0 {
				err = writeAround(e.stdout, records, *runID, uint64(seq))
			}
			if err != nil {
				return e.fail("write: %v", err)
			}
			return exitOK
		}
	},
}

// runTree returns the records of run id and of the runs it started, at
// any depth, in their order.
func runTree(records []recorder.Record, id string) []recorder.Record {
	in := treeOf(records, id)
	var out []recorder.Record
	for _, r := range records {
		if in[r.RunID] {
			out = append(out, r)
		}
	}
	return out
}

// treeOf returns the set of run id and the runs it started, at any
// depth.
func treeOf(records []recorder.Record, id string) map[string]bool {
	in := map[string]bool{id: true}
	for adoptChildren(records, in) {
		// Each pass adds the next generation of runs.
	}
	return in
}

// adoptChildren adds to in the runs whose parent is in it, and reports
// whether it added any.
func adoptChildren(records []recorder.Record, in map[string]bool) bool {
	changed := false
	for _, r := range records {
		if !in[r.RunID] && in[r.ParentRunID] && r.ParentRunID != "" {
			in[r.RunID], changed = true, true
		}
	}
	return changed
}

// aroundSeqs is how many records before and after the asked seq
// writeAround prints.
const aroundSeqs = 5

// writeAround writes the records of run id whose seq is within
// aroundSeqs of seq, one JSON object a line, under a heading.
func writeAround(w io.Writer, records []recorder.Record, id string, seq uint64) error {
	if _, err := fmt.Fprintf(w, "\nRecords of run %s around seq %d:\n", id, seq); err != nil {
		return err
	}
	for _, r := range records {
		if !around(r, id, seq) {
			continue
		}
		if err := writeMarked(w, r, r.Seq == seq); err != nil {
			return err
		}
	}
	return nil
}

// around reports whether r is of run id and its seq within aroundSeqs of
// seq.
func around(r recorder.Record, id string, seq uint64) bool {
	return r.RunID == id && r.Seq >= seq-min(seq, aroundSeqs) && r.Seq <= seq+aroundSeqs
}

// writeMarked writes r as one JSON line, marked with '>' when it is the
// record asked for.
func writeMarked(w io.Writer, r recorder.Record, asked bool) error {
	line, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	mark := "  "
	if asked {
		mark = "> "
	}
	_, err = fmt.Fprintf(w, "%s%s\n", mark, line)
	return err
}
