// Package replay replays a recorded Lookout trajectory in go test: a
// cassette answers the agent's model calls, and optionally its tool
// calls, from the recording, so a regression test runs without a model,
// fast, free and deterministic, and fails at once, with a diff, when a
// prompt, a tool or an Eino upgrade changes what the agent does.
package replay
