// Package replay replays a recorded Lookout trajectory in go test: a
// cassette answers the agent's model calls, and the tool calls you
// choose, from the recording, so a regression test runs without a model,
// fast, free and deterministic, and fails at once, with a diff, when a
// prompt, a tool or an Eino upgrade changes what the agent does.
//
// # Replaying
//
// Load a trajectory (JSON Lines as a recorder.FileSink writes it, or an
// ATIF document, read through the ATIF importer) and build the agent as
// usual, with the cassette's model, tools and clock:
//
//	c, err := replay.Load("testdata/deploy.jsonl", nil)
//	mw, err := lookoutadk.New(ctx, &lookout.Config{Now: c.Now, Limits: limits})
//	tools, err := c.Tools(ctx, myTools, "run_tests") // run_tests runs live
//	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
//		Model: c.Model(), Handlers: []adk.ChatModelAgentMiddleware{c.Middleware(), mw}, ...})
//	... run the query ...
//	if err := c.Err(); err != nil { t.Fatal(err) } // a *replay.DivergenceError
//
// [Cassette.Model] answers each call with the recorded response of the
// same run and model-call index, streamed or not, with the recorded
// usage, so the budget charges what it charged. [Cassette.Tool] answers a
// tool call with the recorded result (or error) of the call with the same
// name and arguments; [Cassette.Live] runs the tool and only moves the
// clock. [Cassette.Now] is the recording's clock: it starts when the
// recorded budget did and moves on as calls are answered, so deadlines
// and interval triggers fire where they fired.
//
// # Which run a call replays
//
// Calls are matched to recorded runs through the Lookout run on their
// ctx, not by the order they arrive in: a root run takes the first
// recorded root run of its agent; an agent used as a tool takes the
// child of its parent's recorded run that the same tool call started;
// another sub-agent (a supervisor's segment, a transfer target) takes
// the next recorded child of its agent. Within a run, calls are played in
// order. A run resumed after an interrupt goes on with the recorded run
// it started. So parallel tool calls, agents used as tools and
// multi-agent queries replay the same whatever the goroutines do.
//
// # What is checked
//
// Before answering, the model compares the call's input with what the
// recording says it held: the run's system and user messages, the
// earlier replies and their tool results, and the tools offered (names
// and definitions). A live tool's result is compared when the next model
// call of its run is given it; one that ends the run (a tool that returns
// directly, an interrupt, an error) is compared by [Cassette.Err].
// Lookout's injected messages do not count; text is
// redacted as the recorder redacted it (Options.KeepSecrets,
// Options.Redactors) and normalized as the Stall observer normalizes tool
// arguments, so UUIDs, timestamps, long ids and temporary paths compare
// equal. Options.IgnoreSystem, IgnoreMessages and IgnoreTools leave parts
// out.
//
// # Divergence
//
// The first difference stops the replay: the call returns a
// *[DivergenceError] naming the recorded run and agent, the model-call
// index, the recorded seq and the first differing message (and, for a
// tool result, the tool call's index), with a line diff and the `lookout
// inspect` command that opens the recording. Every later call returns
// the same error, and [Cassette.Err] returns it, so a test reports it
// once whatever the agent does with it.
//
// # Recording again
//
// [Open] replays unless [Update] reports true (the -update flag that
// golden-file tests declare, or LOOKOUT_REPLAY_UPDATE=1): then the
// cassette is in record mode, its model is Options.Live, its tools run,
// its clock is time.Now, and [Cassette.Recorder], which goes in
// lookout.Config.Recorder, writes the cassette anew until
// [Cassette.Close].
//
// # Pitfalls
//
//   - A cassette plays once: load it again to replay again.
//   - Lookout numbers tool calls as they end, so parallel calls take
//     their indices in an order goroutines decide, in a replay as in a
//     live run; their results do not depend on it. [Cassette.Middleware]
//     (ADK) and [Cassette.ToolMiddleware] (compose, react), registered
//     before Lookout's, run a reply's calls one at a time in their
//     recorded order, so each takes its recorded index.
//   - An agent used as a tool named in Tools' live list runs, and its
//     own model calls replay through the cassette; otherwise the tool is
//     answered from the recording as a whole, and its calls are not
//     played ([Cassette.Remaining] counts them).
//   - A tool that interrupts the run must run live: the interrupt is its
//     own doing.
//   - Tool results longer than the recorder's MaxFieldBytes were cut in
//     the recording; a tool answered from the recording returns the cut
//     text, and a live result is compared on that prefix.
//   - Without a Lookout run on the ctx, calls take the recorded root
//     runs' calls in order.
//
// A Cassette and its models and tools are safe for concurrent use.
package replay
