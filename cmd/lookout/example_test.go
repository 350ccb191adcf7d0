package main

import "os"

func Example_help() {
	code := run([]string{"help"}, os.Stdin, os.Stdout, os.Stdout)
	_ = code
	// Output:
	// Usage: lookout <command> [flags] FILE...
	//
	// Inspect, export, validate and summarize recorded agent trajectories: the
	// JSON Lines files Lookout's recorder writes. Commands that read records also
	// accept an ATIF trajectory file. A FILE of - reads standard input; a
	// directory stands for every *.jsonl and *.jsonl.gz file under it, in lexical
	// order. Gzip-compressed files are read as they are.
	//
	// Commands:
	//   inspect    show runs, outcomes, stop reasons, usage, tools, errors and assessments
	//   export     convert a trajectory to ATIF JSON, OpenAI-style messages JSONL or OTLP JSON
	//   validate   check a trajectory (JSON Lines records or ATIF) and name every problem
	//   summarize  analytics, plus a summary of each user prompt when a model is configured
	//   report     write the runs as one self-contained HTML page
	//   serve      serve a live view of the runs of every trajectory under DIR
	//   merge      merge the conversations of simulation batches, finished runs only
	//   batch      report on a simulation batch: completion, stop reasons, pass^k, tokens, cost
	//   version    print the version of lookout and of the Go that built it
	//   help       show this help, or a command's: lookout help <command>
	//
	// lookout --version is lookout version.
	//
	// Exit status: 0 on success; 1 when problems are found (invalid input, a
	// failed validation, nothing to export, output that cannot be written); 2 on
	// a usage error; 3 when a file cannot be read.
}
