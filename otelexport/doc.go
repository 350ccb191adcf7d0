// Package otelexport turns recorded runs into OpenTelemetry spans and
// metrics that follow the GenAI semantic conventions, live through an SDK
// span exporter and meter provider, or offline as OTLP JSON files. It is the only package of
// Lookout that imports OpenTelemetry, so a program that records without
// it does not build OpenTelemetry in.
//
// # Spans
//
// Each run becomes an invoke_agent span, each model call a chat span and
// each tool call an execute_tool span:
//
//	invoke_agent lead                 gen_ai.operation.name=invoke_agent, gen_ai.agent.name
//	├── chat gpt-4o                   gen_ai.operation.name=chat, gen_ai.request.model, gen_ai.usage.*
//	├── execute_tool researcher       gen_ai.operation.name=execute_tool, gen_ai.tool.name, gen_ai.tool.call.id
//	│   └── invoke_agent researcher   a sub-agent, under the tool call that started it
//	│       ├── chat gpt-4o
//	│       └── execute_tool search
//	└── chat gpt-4o
//
// A sub-agent's run sits under the parent's tool call that started it
// when its run_started names that call (its field parent_tool_call_id), and
// under the parent's run otherwise. A span starts and ends at the times of
// the records that open and close it: run_started and run_ended,
// model_request and model_response, tool_started and tool_ended. A span
// whose closing record is missing ends at the next model request (for a
// model call) or at its run's end; a run without run_ended ends at its
// last record or its last child's end, whichever is later. Such spans
// have error.type "incomplete".
//
// The spans follow semantic conventions 1.41 (the invoke_agent span of
// an agent in process, the inference span, the execute_tool span). Their
// attributes:
//
//   - every span: gen_ai.operation.name; invoke_agent and chat spans:
//     gen_ai.conversation.id, the conversation the root run's
//     run_started names, else the root run's id (the ATIF session_id),
//     gen_ai.provider.name and, when the records name one,
//     gen_ai.request.model;
//   - invoke_agent: gen_ai.agent.name and gen_ai.agent.version as
//     run_started gives them; gen_ai.request.model, the first model the
//     run asked for, else the one that first answered, else the agent's
//     configured model; gen_ai.provider.name, the provider of the run's
//     first model response that names one, else of its first child run
//     that has one; gen_ai.usage.* summed over the run's own model
//     calls when any of them reported usage;
//   - chat, named "chat {gen_ai.request.model}": gen_ai.request.model,
//     the model the request named, else the response, else the agent's
//     configuration; gen_ai.provider.name from the response;
//     gen_ai.request.stream when the call asked for a streamed reply;
//     gen_ai.response.model, gen_ai.response.id (the completion id a
//     client such as eino-ext's OpenAI keeps in the reply's Extra) and
//     gen_ai.response.finish_reasons when recorded;
//     gen_ai.usage.input_tokens and gen_ai.usage.output_tokens only when
//     the provider reported usage (a call with no usage has neither, not
//     zeros), gen_ai.usage.cache_read.input_tokens,
//     gen_ai.usage.cache_creation.input_tokens and
//     gen_ai.usage.reasoning.output_tokens when not zero;
//   - execute_tool: gen_ai.tool.name, gen_ai.tool.type "function",
//     gen_ai.tool.call.id when recorded, gen_ai.tool.description as the
//     run's latest model request that defined the tool gave it; for a
//     tool an MCP server served, mcp.method.name "tools/call", as the
//     MCP conventions have a GenAI tool span carry it.
//
// gen_ai.provider.name is the conventions' well-known value for the
// provider the records name, Eino's implementation names included
// ("OpenAI" is openai, "Claude" anthropic, "Gemini" gcp.gemini), a
// provider they do not list lower-cased, and "_OTHER" when the records
// name none. Tool arguments and results, which the conventions warn may be
// sensitive, go in gen_ai.tool.call.arguments and gen_ai.tool.call.result
// only with Options.ToolContent (SinkOptions.ToolContent); message
// contents are not exported.
//
// Lookout adds, under lookout.*: lookout.run.id, lookout.run.outcome and
// lookout.run.stop_reason on invoke_agent spans; lookout.cost.usd
// (CostKey) on chat spans, the call's cost, and on invoke_agent spans,
// the run's own calls' cost, when a price was configured;
// lookout.tool.call_index, and lookout.mcp.server and lookout.mcp.tool
// for an MCP tool, on execute_tool spans; lookout.model.tools_withheld on
// a wrap-up turn's chat span.
//
// A failure sets the span's status to Error and error.type: a tool call
// that failed has "tool_error" (ToolErrorType) with the error as the
// status message; a model call that failed has "_OTHER", the
// conventions' fallback, with the error as the status message; a run
// that did not complete has its outcome ("error", "budget_exceeded",
// "cancelled"); a span whose end was not recorded has "incomplete"
// (IncompleteType).
//
// # Metrics
//
// Each model call whose response is recorded counts in the GenAI client
// metrics: gen_ai.client.operation.duration, from request to response,
// and, when the provider reported usage, gen_ai.client.token.usage for
// its input and output tokens (gen_ai.token.type). Their attributes are
// the chat span's gen_ai.operation.name, gen_ai.provider.name,
// gen_ai.request.model, gen_ai.response.model and error.type; their
// buckets are the conventions'. WriteMetricsJSON writes them offline;
// SinkOptions.MeterProvider records them live.
//
// Assessments, budget records and extension records become events of
// their run's invoke_agent span: AssessmentEvent with the markdown the
// model was shown, BudgetChargedEvent and BudgetExceededEvent with the
// resource, amount, used and limit, ExtensionEvent with the extension's
// name.
//
// # Ids
//
// Trace and span ids are hashes of run ids and seq (TraceID, RunSpanID,
// CallSpanID): every span of a run tree has the trace id of its root run,
// and exporting the same records twice, live or offline, gives the same
// ids. A run whose parent is missing from the records is taken to be the
// child of a root run of that id.
//
// # Live
//
// NewSink returns a recorder.Sink that exports through any SDK
// SpanExporter, such as otlptracehttp's. Put it behind a Recorder, beside
// a file sink if the trajectory is kept too:
//
//	exp, err := otlptracehttp.New(ctx) // OTEL_EXPORTER_OTLP_ENDPOINT, ...
//	if err != nil { ... }
//	spans, err := otelexport.NewSink(exp, nil)
//	if err != nil { ... }
//	rec := recorder.New(recorder.FanOut(file, spans), nil)
//	defer rec.Close(ctx) // exports what is left and shuts the exporter down
//
// With SinkOptions.MeterProvider, such as an SDK MeterProvider with an
// otlpmetrichttp exporter's reader, the sink records the metrics too.
//
// # Offline
//
// Spans returns the spans of recorded runs; Requests returns them as OTLP
// export requests, one per root run; WriteJSON writes them in the OTLP
// JSON encoding, one request per line, which the OpenTelemetry
// Collector's otlpjson file receiver reads. The command
// `lookout export --format otlp` writes it. WriteMetricsJSON writes the
// metrics the same way, to a file of their own: the OTLP file format
// holds one signal per file.
package otelexport
