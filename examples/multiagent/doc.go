// Command multiagent attaches Lookout to a multi-agent program of Eino's
// ADK and prints its query's run tree (the root and its named children,
// with their outcome and stop reason) and its budget. The program is a
// supervisor (adk/prebuilt/supervisor) whose lead hands the task to a
// researcher, which has a search tool, and then to a loop workflow
// (adk.NewLoopAgent) whose agent checks sources on each iteration until
// the last model call its budget allows: a wrap-up turn whose tool choice
// offers only the exit tool, through which it leaves.
//
// One middleware is in the Handlers of every ChatModelAgent, and the query
// runs through a Runner on mw.Agent(root), so it is one root run with one
// budget. It runs offline on scripted models:
//
//	go run ./examples/multiagent
//
// With -out DIR it writes the query's records to DIR/trajectory.jsonl,
// replacing the file an earlier run left there; `lookout inspect` reads it
// as one root run and its children.
package main
