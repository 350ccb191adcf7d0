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
// WriteJSONL writes the same page from a JSON Lines file, reading its
// records where they are rather than holding them, so that a trajectory
// of millions of records makes a page in bounded memory.
//
// The page shows:
//
//   - what went wrong first: every failed or refused tool call, failed
//     model call, budget exceeded and run that did not complete, each
//     linked; filters by agent, tool, kind and outcome;
//   - a header with the outcome, the stop reason, the models and their
//     providers, the tokens (with cached, cache-write and reasoning tokens
//     when reported), the model and tool calls, the cost in US dollars
//     when recorded, and the duration; and the same facts for each run;
//   - the sub-agent tree: each run under the run that started it, and the
//     root runs that share a conversation id grouped as a conversation,
//     its turns in order, with a section of its own;
//   - for each run, a budget burn-down drawn as SVG: the share of each
//     limit (tokens, model calls, tool calls, time) of its query's shared
//     budget left after each of its records, charged as the budget
//     charges (control tools shown, not charged), over the bands where the
//     Resource observer speaks with caution and with a warning; for a
//     query's root run, a waterfall of the query's runs and calls;
//   - each run's timeline in record order: messages, model calls, tool
//     calls (collapsible, with their arguments and results, errors
//     highlighted, calls that overlapped side by side in lanes), and each
//     message Lookout added to a model call's input (the assessment, the
//     wrap-up reminder) as the model received it, before that call; a
//     message the call before was given too is named on the call's line,
//     linked to its first showing; an assessment record no call was given
//     is marked as not shown to the model;
//   - an anchor for every record: id "seq-N" for the record with seq N, or
//     "RUN-seq-N" when the page shows several runs, where RUN is the run
//     id.
//
// The runs' sections are rendered by the page's script as they come near
// the screen, so that a page of many thousand records opens fast.
//
// The lookout command's report subcommand writes this page from files.
//
// # Common pitfalls
//
//   - The cost is recorded only for runs priced by lookout.Config.Prices;
//     for others it shows as not recorded.
//   - The caution and warning bands are drawn at the thresholds the run's
//     run_started record gives; a run recorded without them (no Resource
//     observer, or recorded before the field existed) gets the observer's
//     defaults, resource.DefaultCautionAt and resource.DefaultWarningAt.
//   - Long texts are folded: each shows up to Options.MaxTextBytes, and
//     when the page would be larger than Options.MaxBytes, the longest are
//     cut to one common length that fits. A text that folding would shorten
//     by less than its note is shown whole. Each cut text says how many
//     bytes it leaves out, and the header how many texts were cut.
//   - What the model was given is known from the model requests' Injected
//     lists. In records written before the field, an assessment shows
//     where it was recorded, the wrap-up turn is only marked on its model
//     call, and the reminder's text shows only as a message tagged by
//     Lookout.
//   - Only root runs that share a conversation id with another are
//     grouped; turns are shown from 1 (the record counts from 0).
//   - A run whose tool calls were recorded overlapping is drawn in lanes;
//     calls that ran in parallel but were recorded one after another show
//     in one lane.
package report
