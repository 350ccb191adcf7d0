// Package migrator is the agent of the quickstart: its task, its tools,
// the script its offline model plays, its Lookout configuration, and a
// function that reads its answer from the run's events. The quickstart
// runs it; the replay example records it once and replays it.
package migrator
