// Package scripted provides a deterministic chat model for Eino, and a
// loopback OpenAI-compatible server backed by it, for tests, examples and
// benchmarks.
//
// # Scripts
//
// A [Model] plays a script of turns, one per Generate or Stream call:
//
//	m := scripted.New(
//		scripted.Call("search", `{"q":"go"}`).Call("fetch", `{"url":"x"}`), // two parallel calls
//		scripted.Fail(errTimeout),                                         // a failed attempt
//		scripted.Reply("Done.").WithUsage(1200, 30),                        // fixed usage
//		scripted.Func(func(ctx context.Context, in []*schema.Message, o *model.Options) (*schema.Message, error) {
//			return schema.AssistantMessage("you said "+in[len(in)-1].Content, nil), nil
//		}),
//	)
//
// [Repeat] plays a turn n times and [Forever] on every remaining call,
// which suits benchmarks with thousands of tool calls. A call that finds
// the script used up fails with an [*ExhaustedError], which unwraps to
// [ErrScriptExhausted] and says which call overran.
//
// Tool calls without an ID get call_1, call_2, ... in the order the replies
// are played, unique across the script and every copy of the model. Each
// call also gets its position in the reply as its Index, the field
// streaming providers use to merge tool-call chunks.
//
// # Replies
//
// Every reply is an assistant message with ResponseMeta.FinishReason set
// to "tool_calls" when it calls tools and "stop" otherwise, and with
// ResponseMeta.Usage:
//
//   - by default, computed from the call: prompt tokens are 4 per input
//     message plus one per 4 bytes of its text, rounded up ([PromptTokens]);
//     completion tokens are one per 4 bytes of the reply's text
//     ([CompletionTokens]); the total is their sum;
//   - fixed with [Turn.WithUsage];
//   - nil with [Turn.WithoutUsage], to test "usage absent" apart from
//     "usage zero" (WithUsage(0, 0)).
//
// A [Func] reply that sets its own ResponseMeta keeps it; the gaps are
// filled the same way.
//
// Stream sends the same reply in chunks: the content word by word, each
// tool call as a head chunk (index, ID, name, first half of the arguments)
// and a tail chunk (the rest), and a last chunk that carries the finish
// reason and the usage, as OpenAI does with stream_options.include_usage.
// schema.ConcatMessages of the chunks equals the Generate reply.
//
// # Callbacks
//
// By default a Model fires no callbacks and reports IsCallbacksEnabled() ==
// false, so Eino wraps it with its own OnStart/OnEnd, as it does for any
// model that does not fire them. Those framework callbacks carry the bare
// message: model.CallbackOutput.TokenUsage is nil, and the usage is only
// in Message.ResponseMeta.Usage.
//
// [Model.WithCallbacks](true) makes the model behave like the eino-ext
// providers instead: it reports IsCallbacksEnabled() == true and fires
// OnStart with a model.CallbackInput (messages, tools, tool choice),
// OnEnd with a model.CallbackOutput whose TokenUsage mirrors the reply's
// usage (nil when the turn reports none), OnEndWithStreamOutput for
// streams (TokenUsage on the last chunk only), and OnError on failure.
// Use it to test code that reads TokenUsage from callbacks.
//
// # Captured requests
//
// Every call is recorded as a [Request]: a copy of the input messages, the
// tools offered and the tool choice. [Model.Requests], [Model.Request] and
// [AssertRequest] read them back; [Request.Contains],
// [Request.CountContaining], [Request.ToolNames] and
// [Request.ToolsWithheld] answer the usual questions. [Model.WithCapture]
// turns recording off where copying the history on each call would cost
// too much.
//
// # With an Eino ADK agent
//
// A Model is a model.ToolCallingChatModel, so it goes wherever a provider
// does:
//
//	m := scripted.New(scripted.Call("search", `{"q":"eino"}`), scripted.Reply("Found it."))
//	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
//		Name: "assistant", Description: "answers questions", Model: m,
//		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
//	})
//	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "find eino")
//
// The agent passes its tools to each call with model.WithTools, so the
// captured requests show them; a wrap-up turn that withholds tools shows up
// as [Request.ToolsWithheld].
//
// # Over HTTP
//
// [NewOpenAIServer] serves POST /v1/chat/completions from a Model on
// 127.0.0.1, both as a JSON completion and as an SSE stream, so real
// OpenAI clients can be tested offline:
//
//	srv := scripted.NewOpenAIServer(m)
//	defer srv.Close()
//	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: srv.BaseURL(), APIKey: "test", Model: "scripted"})
//
// An error from the script becomes an HTTP 500 with an OpenAI-style error
// body, which the client returns as an error.
//
// # Pitfalls
//
//   - Concurrent calls take turns in the order they reach the model, so with
//     parallel agents the mapping of turns to agents is not fixed; use Func
//     turns that answer from the input when order cannot be known.
//   - Copies made by WithTools, WithCallbacks and WithCapture share one
//     script: every call on any of them takes the next turn.
//   - A call whose context is already done returns the context's error
//     without taking a turn, though it is counted and captured.
//   - A turn that fails with [Fail] still takes its place in the script;
//     Eino's retry makes a new call, which takes the next turn.
//   - OpenAI clients usually read a missing usage in a non-streamed
//     completion as zero: over HTTP, WithoutUsage is only visible in
//     streams. The eino-ext client drops the usage chunk into the last
//     streamed message, as the Model does itself.
//   - BaseURL, not URL, is what OpenAI clients take: they append
//     /chat/completions to it.
package scripted
