// Command lookout inspects, exports, validates and summarizes the
// trajectories Lookout records: JSON Lines files of recorder records, one
// per line. Commands that read records also take an ATIF trajectory file,
// which they import first.
//
// Usage:
//
//	lookout <command> [flags] FILE...
//
// The commands:
//
//	inspect FILE...       runs, outcomes, stop reasons, duration, model calls and
//	                      tokens, tools with their errors, assessments, budget
//	                      limits exceeded, feedback efficacy; --json for the report
//	                      as JSON
//	export FILE           --format atif, openai or otlp; to standard output, or with
//	                      -o DIR one file per root run (0600, names kept inside
//	                      DIR); --run ID picks one run. ATIF is validated before
//	                      it is written.
//	validate FILE...      checks JSON Lines (every line decodes, schema_version
//	                      supported, seq dense from 0 per run with no repeats,
//	                      consistent parent and depth, no torn last line) or an
//	                      ATIF document (its rules, by JSON path), and names
//	                      every problem; --json for the verdicts as JSON
//	summarize FILE...     the inspect analytics plus one entry per user prompt;
//	                      with OPENAI_API_KEY set (and optionally OPENAI_BASE_URL
//	                      and OPENAI_MODEL), an LLM summary of each prompt with
//	                      the tools' rationale, key findings and a confidence
//	                      level; --json, --timeout
//	report FILE...        one self-contained HTML page of the runs (header,
//	                      sub-agent tree, budget burn-down, timeline with an
//	                      anchor per record), to -o FILE (report.html; - for
//	                      standard output); --title
//	version               the module version ("(devel)" from a checkout) and the
//	                      Go version; also lookout --version
//	help [command]        usage, or a command's flags
//
// Flags may come before or after the file names; "--" ends the flags. A
// FILE of "-" is standard input. A directory stands for every *.jsonl and
// *.jsonl.gz file under it, at any depth, in lexical order of their paths;
// a directory with none cannot be read. There, only regular files and
// links to them are read: a FIFO, a device or a link that leads to neither
// is skipped with a warning. Gzip-compressed content is decompressed
// wherever a file is read, ATIF included; past 64 MiB, a stream that
// decompresses to more than 250 times its size is refused as a bomb. Each
// file is opened and read once, so a pipe, /dev/stdin or a shell's process
// substitution works as a FILE.
//
// Long work reports its progress on standard error when that is a
// terminal, and with --progress otherwise.
//
// Exit status: 0 on success; 1 when problems are found: a file holds
// invalid data (validate: any problem; inspect, export, summarize: a line
// that does not decode), export has nothing to write (no runs, an unknown
// -run, several root runs without -o for atif or openai) or an output
// cannot be written; 2 for an unknown command, a bad flag or missing
// arguments, with the command's synopsis on standard error; 3 when a
// file cannot be read (missing, permission denied, a directory with
// nothing to read). When several apply, the highest wins.
//
// # Common pitfalls
//
//   - A last line cut short by a crash is not an error for inspect, export
//     and summarize: they warn on standard error and use the records before
//     it. validate reports it as a problem.
//   - A file holding several top-level runs exports to standard output only
//     with --run; -o DIR writes them all.
//   - summarize sends trajectory text (prompts, tool output) to the model
//     named by the environment. Leave OPENAI_API_KEY unset to keep
//     everything local.
//   - A prompt the model fails to summarize does not change the exit
//     status: its error is in the output and counted on standard error.
//   - ATIF files are recognised by content (a schema_version starting with
//     "ATIF-"), not by their name, from at most their first 1 MiB.
//   - export -o DIR gives two runs whose ids make the same file name
//     (ignoring case) different names: the later one gets a suffix -2,
//     -3, …, with a warning on standard error.
//
// See docs/cli.md for example output.
package main
