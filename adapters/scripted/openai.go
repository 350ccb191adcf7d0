package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// maxRequestBytes bounds the request body the OpenAI handler reads.
const maxRequestBytes = 32 << 20

// OpenAIServer is a loopback HTTP server that answers OpenAI chat
// completion requests from a [Model]. Point any OpenAI-compatible client at
// [OpenAIServer.BaseURL]. It is safe for concurrent use; requests share the
// model's script like concurrent Generate calls do. The zero OpenAIServer
// is not serving: its URLs are empty and Close does nothing.
type OpenAIServer struct {
	srv *httptest.Server
}

// NewOpenAIServer starts a server on 127.0.0.1 that serves
// POST /v1/chat/completions from m. Close it when done. A nil m serves an
// empty script, so every request fails with a 500.
func NewOpenAIServer(m *Model) *OpenAIServer {
	mux := http.NewServeMux()
	mux.Handle("/v1/chat/completions", OpenAIHandler(m))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "no route for "+r.URL.Path)
	})
	return &OpenAIServer{srv: httptest.NewServer(mux)}
}

// URL is the server root, like http://127.0.0.1:port.
func (s *OpenAIServer) URL() string {
	if s.srv == nil {
		return ""
	}
	return s.srv.URL
}

// BaseURL is URL()+"/v1", the base URL OpenAI clients expect, for example
// openai.ChatModelConfig.BaseURL in eino-ext.
func (s *OpenAIServer) BaseURL() string {
	if s.srv == nil {
		return ""
	}
	return s.srv.URL + "/v1"
}

// Close shuts the server down and blocks until every request has finished.
func (s *OpenAIServer) Close() {
	if s.srv != nil {
		s.srv.Close()
	}
}

// OpenAIHandler serves OpenAI chat completion requests (the body of
// POST /v1/chat/completions) from m, for mounting on a server of your own.
//
// It decodes messages (system, user, assistant with tool calls, tool with
// tool_call_id), tools (name and description), tool_choice, model, stream
// and stream_options.include_usage, runs m, and answers with a completion
// or an SSE stream. The usage carries the reply's cached prompt tokens and
// reasoning tokens in its details, when it has any. An error from m becomes a 500 with an OpenAI-style
// error body; a request it cannot decode becomes a 400. A nil m serves an
// empty script. The handler is safe for concurrent use.
func OpenAIHandler(m *Model) http.Handler {
	if m == nil {
		m = &Model{}
	}
	return &openaiHandler{m: m}
}

type openaiHandler struct {
	m   *Model
	ids atomic.Int64
}

func (h *openaiHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "use POST")
		return
	}
	var req chatRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "cannot decode request: "+err.Error())
		return
	}
	input, opts, err := req.toEino()
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	id := "chatcmpl-" + strconv.FormatInt(h.ids.Add(1), 10)
	if req.Stream {
		h.stream(w, r, &req, id, input, opts)
		return
	}
	msg, err := h.m.Generate(r.Context(), input, opts...)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	resp := chatResponse{
		ID:     id,
		Object: "chat.completion",
		Model:  req.Model,
		Choices: []chatChoice{{
			Message:      fromEino(msg),
			FinishReason: finishReason(msg),
		}},
		Usage: wireUsage(msg),
	}
	writeJSON(w, http.StatusOK, resp)
}

// deltaOf converts a streamed chunk to the wire's delta; the first chunk
// names the role.
func deltaOf(chunk *schema.Message, first bool) streamDelta {
	delta := streamDelta{Content: chunk.Content, ReasoningContent: chunk.ReasoningContent}
	if first {
		delta.Role = string(schema.Assistant)
	}
	for i, c := range chunk.ToolCalls {
		index := i
		if c.Index != nil {
			index = *c.Index
		}
		delta.ToolCalls = append(delta.ToolCalls, wireToolCall{
			Index:    &index,
			ID:       c.ID,
			Type:     c.Type,
			Function: wireFunction{Name: c.Function.Name, Arguments: c.Function.Arguments},
		})
	}
	return delta
}

func (h *openaiHandler) stream(w http.ResponseWriter, r *http.Request, req *chatRequest, id string, input []*schema.Message, opts []model.Option) {
	sr, err := h.m.Stream(r.Context(), input, opts...)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	defer sr.Close()

	sse := startSSE(w)
	usage, ok := sse.relay(sr, id, req.Model)
	if !ok {
		return
	}
	if req.includeUsage() && usage != nil {
		if !sse.send(streamChunk{ID: id, Object: "chat.completion.chunk", Model: req.Model, Choices: []streamChoice{}, Usage: usage}) {
			return
		}
	}
	sse.done()
}

// sseWriter writes server-sent events, flushing each one.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// startSSE writes the headers of an event stream.
func startSSE(w http.ResponseWriter) sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sseWriter{w: w, rc: http.NewResponseController(w)}
}

// send writes v as one data event. It reports false when v cannot be
// encoded or the client is gone.
func (s sseWriter) send(v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return false
	}
	_ = s.rc.Flush()
	return true
}

// done writes the event that ends the stream.
func (s sseWriter) done() {
	_, _ = io.WriteString(s.w, "data: [DONE]\n\n")
	_ = s.rc.Flush()
}

// relay sends the chunks of sr as completion chunk events until sr ends,
// and returns the last usage a chunk carried. It reports false when the
// stream failed, after sending the error as an event, or the client is
// gone.
func (s sseWriter) relay(sr *schema.StreamReader[*schema.Message], id, modelName string) (*wireTokenUsage, bool) {
	var usage *wireTokenUsage
	for first := true; ; first = false {
		chunk, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return usage, true
		}
		if err != nil {
			s.send(errorBody{Error: wireError{Message: err.Error(), Type: "server_error"}})
			return nil, false
		}
		if u := wireUsage(chunk); u != nil {
			usage = u
		}
		if !s.sendDelta(chunk, first, id, modelName) {
			return nil, false
		}
	}
}

// sendDelta sends chunk as a completion chunk event, unless it carries
// neither a delta nor a finish reason. It reports false when the client is
// gone.
func (s sseWriter) sendDelta(chunk *schema.Message, first bool, id, modelName string) bool {
	delta := deltaOf(chunk, first)
	reason := finishReason(chunk)
	if delta.empty() && reason == nil {
		return true
	}
	return s.send(streamChunk{
		ID: id, Object: "chat.completion.chunk", Model: modelName,
		Choices: []streamChoice{{Delta: delta, FinishReason: reason}},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"cannot encode response","type":"server_error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, errorBody{Error: wireError{Message: msg, Type: typ}})
}

func finishReason(msg *schema.Message) *string {
	if msg.ResponseMeta == nil || msg.ResponseMeta.FinishReason == "" {
		return nil
	}
	r := msg.ResponseMeta.FinishReason
	return &r
}

func wireUsage(msg *schema.Message) *wireTokenUsage {
	if msg.ResponseMeta == nil || msg.ResponseMeta.Usage == nil {
		return nil
	}
	u := msg.ResponseMeta.Usage
	w := &wireTokenUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	// The details go on the wire only when there are some, as from
	// providers that report none.
	if n := u.PromptTokenDetails.CachedTokens; n != 0 {
		w.PromptTokensDetails = &wirePromptDetails{CachedTokens: n}
	}
	if n := u.CompletionTokensDetails.ReasoningTokens; n != 0 {
		w.CompletionTokensDetails = &wireCompletionDetails{ReasoningTokens: n}
	}
	return w
}
