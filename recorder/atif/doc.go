// Package atif reads, writes, validates and converts trajectories in
// Harbor's Agent Trajectory Interchange Format (ATIF), versions v1.0 to
// v1.8.
//
// # Documents
//
// Trajectory and the types under it mirror the ATIF schema field by field.
// Decode reads a document (numbers inside free-form maps stay exact as
// json.Number), Encode writes it indented, and ReadFile and WriteFile do
// the same on disk. Message and observation bodies are Content, which is
// either a string or a list of ContentPart; Text and Parts build them.
//
// # Validation
//
// Validate checks raw JSON against the rules of Harbor's validator and
// returns every Problem with its JSON path and Rule: unknown keys and
// wrong types anywhere, empty steps, step ids that are not 1..N,
// agent-only fields on user or system steps, timestamps that are not ISO
// 8601, a source_call_id that is not among its step's tool_call_ids, a
// tool_call_id two calls of a step share, a subagent ref with neither
// trajectory_id nor trajectory_path or whose trajectory_id names none of
// its trajectory's subagent_trajectories, embedded
// subagents without a unique trajectory_id, llm_call_count 0 together with
// metrics or reasoning, unknown schema versions, and content parts whose
// type disagrees with their text or source. ValidateFile also checks that
// local image and audio files exist next to the document; ValidateIn does
// the same for a document already read, relative to a given directory.
// Trajectory.Validate checks a value before it is written.
//
// # Export and import
//
// FromRecords turns recorded runs (package recorder) into one trajectory:
// messages become user and system steps, each model response an agent
// step whose tool results are its observation (parallel calls share the
// step), assessments system steps, and each run started under another an
// embedded subagent trajectory of its parent (nested as RFC 0001 has
// them), referenced from the step that delegated to it. A child run names
// that step's tool call in its run_started field parent_tool_call_id
// (recorder.RunStarted.ParentToolCallID); without it the call is found
// from the times of the records. The tool definitions a run's model
// requests recorded become its agent.tool_definitions. What ATIF has no
// field for (tool errors, truncation, durations, finish reasons, the
// run's outcome) goes in the extra objects under ExtraKey. Images and
// audio held inline become files written next to the document
// (Trajectory.MediaFiles, WriteFile).
// ToRecords goes the other way and keeps, in the records' Extras, what
// records have no field for, so that ATIF → records → ATIF gives back
// every field of the document, and records → ATIF → records → ATIF the
// same document. ToRecordsIn also reads the document's local media.
//
// # Common pitfalls
//
//   - Records holding several top-level runs (one per Runner.Run, say)
//     make FromRecords fail with ErrAmbiguousRoot: list them with RootRuns
//     and export each with Options.RunID.
//   - The recorder redacts before its sink. Options.Redactor is for
//     records written without that, not a second line of defence to rely
//     on.
//   - Validate never looks at the file system; a document that refers to
//     local images passes Validate and may still fail ValidateFile.
//   - This validator is slightly stricter than Harbor's in four places:
//     integers must be written as integers (3, not 3.0), embedded subagent
//     trajectory ids must not be empty, a subagent ref needs a non-empty
//     trajectory_id or trajectory_path, and media files are checked in
//     embedded subagents too. Everything it accepts, Decode reads and
//     Encode writes back valid.
//   - Encoding drops what Go cannot tell from absent: optional strings
//     that are empty and is_copied_context set to false.
//   - ToolCall.Arguments is raw JSON and must be an object; FromRecords
//     keeps arguments that are not one as text in extra.
//   - WriteFile refuses names that leave its directory, including through
//     symbolic links, but does not write atomically. To write several
//     documents all or nothing, PrepareFile them all first.
//   - A trajectory with MediaFiles needs a folder: Encode alone writes a
//     document whose media paths name files not yet written.
//
// The functions of this package are safe for concurrent use; the
// document types are plain data, safe for concurrent reads only.
package atif
