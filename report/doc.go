// Package report renders recorded runs as one self-contained HTML page.
//
// Write takes the records of a run, of a conversation or of a folder of
// runs (package recorder) and writes a page that needs nothing else: its
// style and script are inside it, a Content-Security-Policy allows only
// them (by hash) and data: images, and it fetches nothing when it is
// viewed. Every piece of recorded text is escaped by html/template: a
// tool result holding markup shows as text.
//
//	records, _, err := recorder.ReadFile("trajectory.jsonl")
//	if err != nil { ... }
//	f, err := os.Create("report.html")
//	if err != nil { ... }
//	err = report.Write(f, records, nil)
//
// The page shows:
//
//   - a header with the outcome, the stop reason, the models, the tokens,
//     the model and tool calls, the cost when recorded, and the duration;
//   - the sub-agent tree: each run under the run that started it;
//   - for each run, a budget burn-down drawn as SVG: the share of each
//     limit (tokens, model calls, tool calls, time) left after each record,
//     over the bands where the Resource observer speaks with caution and
//     with a warning;
//   - each run's timeline in record order: messages, model calls, tool
//     calls (collapsible, with their arguments and results, errors
//     highlighted, calls that overlapped side by side in lanes), and each
//     assessment or wrap-up reminder as the model received it, before the
//     first model call that received it;
//   - an anchor for every record: id "seq-N" for the record with seq N, or
//     "RUN-seq-N" when the page shows several runs, where RUN is the run
//     id.
//
// The lookout command's report subcommand writes this page from files.
//
// # Common pitfalls
//
//   - Records hold no prices: the cost is shown as not recorded.
//   - The caution and warning bands are drawn at the Resource observer's
//     defaults (resource.DefaultCautionAt and resource.DefaultWarningAt);
//     a run configured with other thresholds spoke at those instead.
//   - Long texts are folded: each shows up to Options.MaxTextBytes, and
//     when the page would be larger than Options.MaxBytes, the longest are
//     cut to one common length that fits. A text that folding would shorten
//     by less than its note is shown whole. Each cut text says how many
//     bytes it leaves out, and the header how many texts were cut.
//   - The wrap-up turn is marked on its model call. The reminder's own text
//     is shown only when the records hold it, as a message tagged by
//     Lookout.
//   - A run whose tool calls were recorded overlapping is drawn in lanes;
//     calls that ran in parallel but were recorded one after another show
//     in one lane.
package report
