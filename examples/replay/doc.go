// Command replay records the quickstart's agent once, on its scripted
// model, into a temporary folder, then replays the recording without the
// model and prints that the replay matched: the same final answer, the
// same budget, every model call played, and the same tool calls (with
// their indices), assessments and budget events in the replay's own
// trajectory.
//
//	go run ./examples/replay
//
// The replay answers every model call and every tool call but run_tests
// from the recording; run_tests runs live, and its result is checked
// against the recording at the next model call. With -break, run_tests
// returns another result: the replay stops at the next model call, the
// program prints the divergence report, keeps the recording for `lookout
// inspect`, and exits 1.
//
//	go run ./examples/replay -break
package main
