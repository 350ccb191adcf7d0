// Package drivetest is the conformance kit of Lookout's adapters: the
// behaviours every adapter to an agent runtime must show, run through an
// adapter's own way of building and running an agent. Lookout's Eino
// adapters run it in their tests; an adapter to another runtime runs it
// the same way:
//
//	func TestConformance(t *testing.T) {
//		drivetest.Run(t, drivetest.Adapter{
//			Run: func(t testing.TB, in drivetest.Input) drivetest.Outcome {
//				// build an agent on in.Model and in.Tools, attach Lookout
//				// with in.Config, run it once on in.Query with in.Ctx
//			},
//			New:       func(cfg *lookout.Config) error { _, err := myadapter.New(cfg); return err },
//			Session:   myadapter.SessionOf,
//			AgentName: "agent",
//		})
//	}
//
// Each behaviour is a subtest whose name says what it checks, as a
// sentence ("a tool call over the limit is refused with a readable
// message"), so a failure reads as the promise the adapter broke. The
// behaviours cover the injection of assessments, the budget's limits,
// wrap-up turns and typed errors, deadlines, tool calls of every kind
// Eino runs (plain, streamed, multimodal, failing, panicking, parallel),
// the recorded trajectory and its exports, and recorder faults.
//
// The models are scripted (package adapters/scripted) and the tools are
// functions, so the kit needs no network. Where adapters rightly differ
// (the recorded agent name, how a wrap-up turn withholds tools), the
// difference is a field of [Adapter].
//
// Common pitfalls:
//   - Run may be called many times, in both modes, with fresh models and
//     tools each time; it must build the agent anew from its Input.
//   - A run's end may be recorded just after the caller has its output;
//     the kit flushes the Recorders it made before it checks.
package drivetest
