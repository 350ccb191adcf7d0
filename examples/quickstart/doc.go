// Command quickstart runs an unattended Eino ADK agent with Lookout
// attached: the Resource, ErrorCascade and Stall observers, limits on time,
// tokens and tool calls, and a tool that keeps failing. It prints every
// assessment exactly as the model sees it, then the budget, then how the
// run ended. The agent itself (its task, tools, script and Lookout
// configuration) is in package migrator, which the replay example
// records and replays too.
//
// It runs offline on a scripted model:
//
//	go run ./examples/quickstart
//
// With OPENAI_API_KEY set (and optionally OPENAI_BASE_URL and
// OPENAI_MODEL), the same agent runs on that model instead. With -out DIR
// it writes the run's trajectory to DIR/trajectory.jsonl, replacing the
// file an earlier run left there, which `lookout inspect`, `lookout export`
// and `lookout validate` read.
package main
