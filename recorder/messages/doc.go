// Package messages exports a recorded run as an OpenAI-style chat
// conversation: JSON Lines with one message per line, each
//
//	{"role":"system"|"user"|"assistant"|"tool","content":…,
//	 "tool_calls":[{"id":…,"type":"function","function":{"name":…,"arguments":…}}],
//	 "tool_call_id":…}
//
// FromRecords picks one run from the records (the only root run, or the
// one named in Options.RunID) and turns it into messages; Write writes
// them and Read reads them back.
//
// User and system messages keep their role. Each model response becomes
// an assistant message with its tool calls, arguments passed through as
// the model wrote them. Each tool result becomes a tool message placed
// right after the assistant message that made the call, in call order, so
// parallel calls read the same whatever order they finished in; a failed
// call with no result carries its error text.
//
// # Common pitfalls
//
//   - One run is one conversation. An agent used as a tool, a transfer's
//     target and a workflow's agent run as child runs, each with its own
//     conversation: export one with Options.RunID, or every run of a
//     query, linked to the run that started it, with Runs. Records with
//     several top-level runs fail with ErrAmbiguousRoot until one is
//     picked.
//   - ModelInput rebuilds a call's input from the run's records alone, or,
//     for a later turn of a conversation, with the turns before it.
//   - Assessments are left out unless Options.Assessments is set, and
//     reasoning unless Options.Reasoning is set: neither is a message the
//     model saw in that form.
//   - Tool results are as recorded, so results the recorder truncated stay
//     truncated here.
//   - Multimodal user input becomes a list of text and image_url parts;
//     other media become a text part saying what was left out.
//   - Write does not escape HTML characters; the output is still valid
//     JSON.
//
// The functions of this package are safe for concurrent use; Message and
// the types under it are plain data, safe for concurrent reads only.
package messages
