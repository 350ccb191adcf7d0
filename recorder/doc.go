// Package recorder writes a run's trajectory: an ordered, schema-versioned
// sequence of records describing what an agent run did, kept as a side
// effect of running it.
//
// # Records
//
// A Record carries a schema version, a per-run sequence number (seq), the
// run id, the parent run id and depth (for sub-agents), the time it was
// recorded, and a kind-tagged Payload: *RunStarted, *RunEnded,
// *ModelRequest, *ModelResponse, *Message, *ToolStarted, *ToolEnded,
// *AssessmentRecord, *BudgetRecord, *Extension, or *Unknown for kinds written by a
// newer version. A record encodes as one JSON object, so a trajectory on
// disk is JSON Lines. Records without a schema_version read as version 0;
// records newer than SchemaVersion are rejected with a *VersionError.
//
// # Recording
//
// A Recorder stamps records and hands them to a Sink. Start a run, record
// what happens, end it, and Close the Recorder:
//
//	sink, err := recorder.NewFileSink("runs/run-1.jsonl", nil)
//	if err != nil { ... }
//	rec := recorder.New(sink, nil)
//	defer rec.Close(ctx) // writes out the queue, closes the sink, stops the goroutine
//	run, _ := rec.StartRun(ctx, recorder.RunInfo{AgentName: "migrator"})
//	run.ToolStarted(ctx, recorder.ToolStarted{CallID: id, Name: "shell", Arguments: args})
//	run.ToolEnded(ctx, recorder.ToolEnded{CallID: id, Name: "shell", Result: out, Duration: d})
//	run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
//
// Within a run, seq starts at 0 and grows by one per record, also when many
// goroutines record at once. Child runs (Trace.StartChild) have their own
// seq and point to their parent. ResumeRun continues a run after a
// checkpoint.
//
// # The processor
//
// Writing to the sink is not the agent's business. On the caller's
// goroutine a Trace method stamps the record (seq and time), cuts and
// redacts it, and copies it into a bounded queue (Options.QueueSize),
// under the run's lock so that a run's records enter the queue in seq
// order. One goroutine, which New starts and Close stops, hands queued
// records to Sink.Write one at a time, in queue order, so the sink sees
// each run's records in seq order. No lock of the Recorder is held while
// the sink runs, and a slow sink only delays the queue.
//
// A full queue loses the record at once and counts it (ErrQueueFull).
// With Options.Block the emit waits for room instead, until its ctx ends or
// Options.BlockTimeout passes. The wait holds no lock: the run's later
// records wait behind it, each for its own BlockTimeout or ctx at most,
// and enter the queue in seq order as room appears; a record given up
// leaves a gap in the seqs. Every sink call gets a ctx that carries the
// emitting ctx's values and ends after Options.WriteTimeout, or when a
// Close gives up.
//
// # Under pressure
//
// A queue filling up sheds the records other records carry too: past 3/4
// of QueueSize, budget charges (the tokens are in the model response and
// the totals in run_ended), tool_started records (the arguments are in
// the model response's tool call) and assessments (the text is in the
// next model request's injected messages) are refused, with an error
// that says they were shed first; the conversation (messages, model
// requests and responses, tool results), budget limits exceeded and the
// rest are refused only once QueueSize records wait. A run's run_started
// and run_ended are never refused for room and never wait: they enter the
// queue at once, past QueueSize if need be, behind the run's records
// still waiting under Block, which go in with them. A run has one of each,
// so the queue holds at most two records per run beyond QueueSize. Every
// run in a stored trajectory is then framed by its start and its end,
// unless the sink failed or the Recorder was closed.
//
// The queue absorbs what the program records while the Recorder's
// goroutine waits for a CPU, and the goroutine then writes it out at the
// sink's pace. Into a JSONL file, an agent's records (some 500 bytes
// each) cost the Recorder about 0.45 µs of CPU each: some 0.17 µs on the
// caller's goroutine (stamping, redaction, the queue), 0.26 µs on the
// Recorder's (encoding 0.11 µs, the kernel's writes of the file 0.15 µs)
// and the rest in the scheduler. A caller that records faster than the
// file is written, under Block, takes turns with the Recorder's goroutine
// on one core, so that each record is written from the cache of the core
// that recorded it: 1.9 to 2.5 million records per CPU-second on a 2-CPU
// virtual machine, as its host lets it run faster or slower (down to 1.5
// million in its slowest spells), where a FileSink alone takes 4.3 to 4.9
// million (BenchmarkRecorderJSONL). Run side by side on two cores, the two
// goroutines would take up to half as much CPU again per record. A busy
// program is another matter: with 500 queries at once on 2 shared CPUs, the
// Recorder's goroutine is one of hundreds the Go scheduler shares the
// CPUs among, and records wait seconds for it. There, with the default
// QueueSize of 2048, the drop policy lost 10% to 42% of the records in a
// minute (more the faster the queries came; two fifths of them budget
// charges and tool starts), and Block 0.3% to 1.4% (most of them shed
// first), with every run's start and end kept. A QueueSize
// that holds what the program records in a few seconds (five records per
// model and tool call) keeps them all, at 72 bytes of queue a waiting
// record; the queue grows only as far as records wait.
//
// Recorder.Flush waits until every record queued before it has been
// written and the sink flushed. Recorder.Close writes out the queue,
// closes the sink and stops the goroutine; it is idempotent and honours
// its ctx: when ctx ends first it returns, the write in progress sees its
// ctx end and the records still queued are dropped and counted.
//
// # Lost records and policies
//
// A record is lost when the sink's Write fails (or panics), when the queue
// is full, when a Redactor or the Clock panics, when it holds JSON nested
// too deeply, or when it is emitted after Close. A lost record keeps its
// seq, so a stored trajectory shows a gap, and is counted under either
// policy (Recorder.Dropped, Trace.Dropped). Drop, the default, reports
// each loss as a *SinkError to Options.OnError (log/slog by default) and
// lets the run go on. Escalate keeps the first loss: Recorder.Err returns
// it, and so does every Trace method from then on, so the run can end
// itself; records emitted later are still written, and later losses go to
// OnError. A *SinkError wraps both ErrSinkFailed and its cause.
//
// Before any sink sees a record, tool arguments and results longer than
// Options.MaxFieldBytes (4 KiB by default) are cut, keeping their full
// size, and every free-text field (tool descriptions and parameter schemas
// included) is redacted: the built-in Secrets redactor (gitleaks'
// provider rules for API keys and tokens, bearer tokens and other
// authorization credentials, private keys, passwords in URLs, and the
// values of password, token, key and other sensitive keys) runs first,
// then Options.Redactors.
//
// # Sinks
//
// Sink has one method, Write, called from the Recorder's goroutine; see
// Sink for what a sink may and may not do. Sinks that buffer implement
// Flusher, sinks that hold resources implement Closer; Flush and Close
// call them when present. The package provides FileSink (JSON Lines
// through a buffer, files created 0600), MemorySink (for tests) and
// FanOut. The recorder/sinktest package checks any Sink against the
// promises above.
//
// # Reading
//
// Reader, ReadAll and ReadFile read JSON Lines back. A last line cut short
// by a crash is not an error: every complete record is returned and a Tear
// describes the rest. A bad line elsewhere is a *LineError naming its line.
// A FileSink that appends to a file with a torn last line ends that line
// first, so the records it appends are not glued to the torn bytes.
//
// # Concurrency
//
// Recorder, Trace, FileSink, MemorySink and FanOut's sink are safe for
// concurrent use. A Reader is not. Record values are plain data.
//
// # Common pitfalls
//
//   - Close the Recorder (not just the sink) when the program is done:
//     records still queued are written only by Flush or Close, and are
//     lost if the program exits first. Close also closes the sink.
//   - Writes happen after the Trace method returns. Read a MemorySink, or
//     the file of a FileSink, after Recorder.Flush or Close; check
//     Recorder.Err after Flush to learn of a failure of the last records.
//   - By default a full queue drops the record. Under the Escalate policy
//     that ends the run; set Options.Block (or a larger QueueSize) when no
//     record may be lost to a burst. Budget charges, tool starts and
//     assessments are the first to go (see Under pressure).
//   - A lost record keeps its seq, so a stored trajectory shows a gap
//     where a record was lost; Dropped counts the gaps.
//   - Messages are recorded by pointer and not copied unless redaction
//     changes them. Do not modify a *schema.Message after recording it.
//   - Redaction matches known shapes and contexts; it is a safety net,
//     not a guarantee. The Extra maps of messages and tool calls are not
//     redacted. Add Options.Redactors for secrets of your own.
//   - ResultBytes and ArgumentsBytes are the sizes of the original text,
//     before truncation and redaction.
//   - OnError must not call the Recorder's Flush or Close: it may run on
//     the Recorder's goroutine, which they wait for.
//   - One file per writer: two processes appending to the same file can
//     interleave partial lines.
//   - Extension bodies, *Unknown payloads and tool parameter schemas may
//     nest at most MaxBodyDepth levels; a record holding deeper JSON is
//     not written, since no reader could read it back.
package recorder
