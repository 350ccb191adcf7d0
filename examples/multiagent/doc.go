// Command multiagent attaches Lookout to two multi-agent shapes of Eino's
// ADK and prints, for each query, its run tree (the root and its named
// children, with their outcome and stop reason) and its budget:
//
//   - a supervisor (adk/prebuilt/supervisor) whose lead hands the task to
//     a researcher, which has a search tool, and then to a writer;
//   - a loop workflow (adk.NewLoopAgent) whose agent searches on each
//     iteration until the last model call its budget allows, a wrap-up
//     turn whose tool choice offers only the exit tool, and leaves
//     through it.
//
// One middleware is in the Handlers of every ChatModelAgent, and each
// query runs through its own Runner on mw.Agent(root), so each query is
// one root run with one budget. It runs offline on scripted models:
//
//	go run ./examples/multiagent
//
// With -out DIR it writes both queries' records to DIR/trajectory.jsonl,
// replacing the file an earlier run left there; `lookout inspect` reads
// it as two root runs and their children.
package main
