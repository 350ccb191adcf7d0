// Package recorder writes a run's trajectory: an ordered, schema-versioned
// sequence of records describing what an agent run did.
//
// Each Record carries a schema version, a per-run sequence number, the run
// and parent-run ids, the depth of the run, the time it was recorded and a
// kind-tagged Payload (*RunStarted, *ToolEnded, ...). Records encode as one
// JSON object each, so a trajectory on disk is JSON Lines.
package recorder
