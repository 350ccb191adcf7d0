// Package summary turns recorded trajectories into analytics and, with a
// chat model, into a summary of each user prompt.
//
// # Analytics
//
// Analyze reads records (package recorder) of one run or many, in any
// interleaving, and returns a Report: per run and in total, the tools
// used with their calls and errors, the error rate, token usage and model
// calls (those whose provider reported no usage are counted apart), the
// duration, user messages, assessments per observer and severity, how the
// run ended (outcome, stop reason, budget limits exceeded), feedback
// efficacy per observer (extension records named EfficacyExtension) and
// other extensions by name. Runs are grouped by run id, and a child run is
// listed under its parent. Everything is computed from the records alone,
// so the same records always give the same report; names are sorted.
//
//	records, tear, err := recorder.ReadFile("run.jsonl")
//	if err != nil { ... }
//	rep := summary.Analyze(records)
//	rep.WriteText(os.Stdout) // or encode rep as JSON
//
// An Analyzer does the same one record at a time, for trajectories read as
// a stream; it keeps counters, not records.
//
// # Prompt summaries
//
// Split cuts a trajectory into prompts: each user message of a run and the
// records that follow it up to the run's next user message. A Summarizer
// sends each prompt, with its final answer and a bounded rendering of its
// steps, to any Eino chat model and asks for a JSON object with a summary,
// the rationale for the tools chosen, key findings and a confidence level
// (low, medium or high). Each Prompt names its user message by run id and
// seq, so summaries can be shown next to the conversation. Every text of a
// request is redacted with recorder.Secrets first, so that a trajectory
// recorded with KeepSecrets, or imported, sends none of the secrets it
// detects to the model.
//
//	s, err := summary.New(&summary.Config{Model: chatModel})
//	if err != nil { ... }
//	prompts, err := s.Summarize(ctx, records) // err joins the prompts that failed
//	prompts.WriteText(os.Stdout)
//	stats := prompts.Stats() // confidence distribution, tools, model calls per prompt
//
// The model's answer is read leniently: code fences and text around the
// object are skipped, key names may vary in case and spelling, findings may
// come as one string of lines. A model that fails, panics or answers
// nonsense costs only the summary of that prompt: the prompt is still
// returned, with its counts and an Error, and nothing else is affected.
//
// # At scale
//
// Summarize sends Config.Concurrency prompts at once (DefaultConcurrency)
// and retries a prompt that failed, up to Config.MaxAttempts calls, with
// exponential backoff and jitter within ctx's deadline; Prompt.Attempts
// counts them. Config.OnPrompt sees each prompt as soon as it is done, and
// Config.Previous takes back the prompts summarized before, so an
// interrupted run resumes without sending them again.
//
// Each Prompt also names its Conversation and Turn: the conversation id
// and turn its run recorded in run_started, else the run's
// MetaConversation and MetaTurn metadata, otherwise its run id and the
// prompt's index in the run. Prompts.Lookup finds the
// prompt of a conversation's turn.
//
// Online produces the summaries online, after each prompt: it is a
// recorder.Sink that hands every record on to the sink it wraps and, when a
// top-level run ends, summarizes that run's prompts in the background, never
// holding up the agent. Give it to the recorder of lookout.Config, which the
// adapters record through; Online.Lookup finds a summary by conversation
// and turn once it is done.
//
// # Common pitfalls
//
//   - Analyze and Split take records as read; they do not check seq
//     order or gaps. Use the lookout CLI's validate command (or check
//     yourself) before trusting counts from a damaged file.
//   - Token totals come from model_response records whose usage was
//     reported. Responses without usage are counted in
//     ModelCallsWithoutUsage, not as zero; Run.Usage keeps what run_ended
//     reported, which can differ (retried attempts, for instance).
//   - Totals.Duration adds up root runs only: child runs overlap their
//     parents.
//   - A tool call is paired with its result by call id, or by call index
//     when the id is empty; parallel calls that share an id (some models
//     give them one) are paired by tool name. Calls started and never
//     ended are counted as Unfinished.
//   - Efficacy counts come only from extension records named
//     EfficacyExtension with the body of observer.EfficacyEvent; bodies of
//     another shape are counted in MalformedEfficacy.
//   - A parent's prompt does not include the work of the runs it started;
//     those have prompts of their own when they recorded user messages.
//   - Summaries send trajectory text to the model. The recorder redacts
//     known secret shapes before writing, but tool output can still hold
//     data you would not send to a third party.
//   - Summarize makes one model call per prompt, one after another; bound
//     it with a context deadline.
package summary
