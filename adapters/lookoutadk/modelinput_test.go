package lookoutadk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/cloudwego/eino/adk/prebuilt/planexecute"
	"github.com/cloudwego/eino/adk/prebuilt/supervisor"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/messages"
	"github.com/lookout-go/lookout/session"
)

// wire is a loopback OpenAI endpoint per agent, each answering from its
// own script, that keeps the messages of every request it receives.
type wire struct {
	t    *testing.T
	mu   sync.Mutex
	sent []json.RawMessage // each request's messages
}

// model returns the eino-ext OpenAI client of an endpoint that plays m.
func (w *wire) model(m *scripted.Model) model.ToolCallingChatModel {
	h := scripted.OpenAIHandler(m)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err == nil {
			var req struct {
				Messages json.RawMessage `json:"messages"`
			}
			if json.Unmarshal(body, &req) == nil {
				w.mu.Lock()
				w.sent = append(w.sent, req.Messages)
				w.mu.Unlock()
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(rw, r)
	}))
	w.t.Cleanup(srv.Close)
	cm, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "gpt-test"})
	require.NoError(w.t, err)
	return cm
}

// canonical decodes a request's messages as OpenAI chat messages,
// refusing any field they lack, and encodes them as the rebuilt ones are.
// The one field left out is the index the client sends back on each tool
// call of a streamed reply, which numbered the call's chunks: it is not
// part of a chat message.
func canonical(t *testing.T, data []byte) string {
	var raw []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &raw))
	for _, m := range raw {
		calls, ok := m["tool_calls"]
		if !ok {
			continue
		}
		var list []map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(calls, &list))
		for _, c := range list {
			delete(c, "index")
		}
		b, err := json.Marshal(list)
		require.NoError(t, err)
		m["tool_calls"] = b
	}
	b, err := json.Marshal(raw)
	require.NoError(t, err)
	var msgs []messages.Message
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&msgs))
	return encoded(t, msgs)
}

func encoded(t *testing.T, msgs []messages.Message) string {
	b, err := json.Marshal(msgs)
	require.NoError(t, err)
	return string(b)
}

// rebuilt returns the input of every model call the recording holds, as
// messages.ModelInput rebuilds it, in canonical JSON.
func rebuilt(t *testing.T, records []recorder.Record) []string {
	var runs []string
	for _, r := range records {
		if _, ok := r.Payload.(*recorder.RunStarted); ok {
			runs = append(runs, r.RunID)
		}
	}
	var out []string
	for _, run := range runs {
		for call := 0; ; call++ {
			in, err := messages.ModelInput(records, &messages.Options{RunID: run}, call)
			if err != nil {
				require.ErrorIs(t, err, messages.ErrNoModelCall)
				break
			}
			out = append(out, encoded(t, in))
		}
	}
	return out
}

// assertRebuilt checks that every request the endpoints received is a
// model call the recording rebuilds byte for byte, and the other way
// round.
func (w *wire) assertRebuilt(t *testing.T, records []recorder.Record) {
	t.Helper()
	w.mu.Lock()
	var sent []string
	for _, m := range w.sent {
		sent = append(sent, canonical(t, m))
	}
	w.mu.Unlock()
	got := rebuilt(t, records)
	sort.Strings(sent)
	sort.Strings(got)
	matched := 0
	left := append([]string(nil), got...)
	var missing []string
	for _, s := range sent {
		i := sort.SearchStrings(left, s)
		if i < len(left) && left[i] == s {
			left = append(left[:i], left[i+1:]...)
			matched++
			continue
		}
		missing = append(missing, s)
	}
	t.Logf("%d of %d model calls rebuild from the recording", matched, len(sent))
	assert.Equal(t, len(sent), matched, "sent but not rebuilt:\n%s\nrebuilt but not sent:\n%s", missing, left)
	assert.Empty(t, left, "rebuilt, never sent")
}

// wireShape builds the agents of a shape, each on its own endpoint, with
// one middleware.
type wireShape struct {
	*shape
	w *wire
}

func newWireShape(t *testing.T, limits budget.Limits) *wireShape {
	s := newShape(t, lookout.Config{Observers: everyCall(), Limits: limits})
	return &wireShape{shape: s, w: &wire{t: t}}
}

func (s *wireShape) agent(name string, m *scripted.Model, tools ...tool.BaseTool) *adk.ChatModelAgent {
	a, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: name, Description: "the " + name + " agent", Instruction: "You are the " + name + " agent.", Model: s.w.model(m),
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
		Handlers:    []adk.ChatModelAgentMiddleware{s.mw},
	})
	require.NoError(s.t, err)
	return a
}

// query runs msgs on root, wrapped, and checks every model call rebuilds.
func (s *wireShape) query(root adk.Agent, streaming bool, msgs ...adk.Message) {
	ctx := context.Background()
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: s.mw.Agent(root), EnableStreaming: streaming})
	o := drain(runner.Run(ctx, msgs))
	require.NoError(s.t, o.err)
	records := flushedRecords(s.t, s.sink)
	s.w.assertRebuilt(s.t, records)

	// The messages export has a conversation for each agent run, linked
	// to the run that started it, which holds the query.
	runs, err := messages.Runs(records, nil)
	require.NoError(s.t, err)
	started := map[string]string{}
	for _, r := range records {
		if _, ok := r.Payload.(*recorder.RunStarted); ok {
			started[r.RunID] = r.ParentRunID
		}
	}
	require.Len(s.t, runs, len(started))
	for i, run := range runs {
		assert.Equal(s.t, started[run.ID], run.ParentID)
		assert.Equal(s.t, i == 0, run.ParentID == "", "the root comes first")
		assert.NotEmpty(s.t, run.Messages)
	}
	assert.Contains(s.t, runs[0].Messages, messages.Message{Role: messages.RoleUser, Content: messages.Content{Text: "do the task"}})

	// The ATIF export, valid, has a subagent trajectory for each child
	// run, and says where each input message came from.
	tr, err := atif.FromRecords(records, nil)
	require.NoError(s.t, err)
	data, err := atif.Encode(tr)
	require.NoError(s.t, err)
	assert.Empty(s.t, atif.Validate(data))
	assert.Equal(s.t, len(started)-1, subagents(tr))
	origins := map[string]bool{}
	for _, step := range tr.Steps {
		if info, ok := step.Extra[atif.ExtraKey].(map[string]any); ok {
			if o, ok := info["origin"].(string); ok {
				origins[o] = true
			}
		}
	}
	assert.True(s.t, origins[string(recorder.OriginQuery)], "the query is marked as such")
}

// subagents counts the subagent trajectories under tr.
func subagents(tr *atif.Trajectory) int {
	n := 0
	for i := range tr.SubagentTrajectories {
		n += 1 + subagents(&tr.SubagentTrajectories[i])
	}
	return n
}

// Every model call of every shape, made through the eino-ext OpenAI
// client, is rebuilt from the recording exactly as the server received
// it: the caller's history, the query, Eino's context messages of a
// transfer or a workflow, the assessments and tool results.
func TestEveryModelCallRebuildsAsTheServerReceivedIt(t *testing.T) {
	query := schema.UserMessage("do the task")
	history := []adk.Message{
		schema.SystemMessage("Be brief."),
		schema.UserMessage("hello"),
		schema.AssistantMessage("", []schema.ToolCall{{ID: "h1", Type: "function", Function: schema.FunctionCall{Name: "search", Arguments: `{"q":"hi"}`}}}),
		schema.ToolMessage("hi there", "h1", schema.WithToolName("search")),
		schema.AssistantMessage("hello to you", nil),
		query,
	}
	shapes := map[string]func(s *wireShape) (adk.Agent, []adk.Message){
		"react": func(s *wireShape) (adk.Agent, []adk.Message) {
			return s.agent("worker", scripted.New(
				scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`),
				scripted.Call("search", `{"q":"c"}`),
				scripted.Reply("done"),
			), echo("search")), []adk.Message{query}
		},
		"history passed to the run": func(s *wireShape) (adk.Agent, []adk.Message) {
			return s.agent("worker", scripted.New(
				scripted.Call("search", `{"q":"a"}`),
				scripted.Reply("done"),
			), echo("search")), history
		},
		"supervisor": func(s *wireShape) (adk.Agent, []adk.Message) {
			lead := s.agent("lead", scripted.New(
				scripted.Calls(transferTo("researcher")),
				scripted.Calls(transferTo("writer")),
				scripted.Reply("all done"),
			))
			researcher := s.agent("researcher", scripted.New(
				scripted.Call("search", `{"q":"x"}`),
				scripted.Reply("found x"),
			), echo("search"))
			writer := s.agent("writer", scripted.New(scripted.Reply("wrote it")))
			root, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{researcher, writer}})
			require.NoError(s.t, err)
			return root, history
		},
		"sequential workflow": func(s *wireShape) (adk.Agent, []adk.Message) {
			first := s.agent("first", scripted.New(scripted.Call("search", `{}`), scripted.Reply("step one")), echo("search"))
			second := s.agent("second", scripted.New(scripted.Reply("step two")))
			root, err := adk.NewSequentialAgent(context.Background(), &adk.SequentialAgentConfig{Name: "pipeline", SubAgents: []adk.Agent{first, second}})
			require.NoError(s.t, err)
			return root, []adk.Message{query}
		},
		"loop workflow": func(s *wireShape) (adk.Agent, []adk.Message) {
			worker, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
				Name: "worker", Description: "works", Instruction: "Work.",
				Model: s.w.model(scripted.New(
					scripted.Reply("working"),
					scripted.Call("search", `{}`),
					scripted.Call("exit", `{"final_result":"enough"}`),
				)),
				ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
				Exit:        &adk.ExitTool{},
				Handlers:    []adk.ChatModelAgentMiddleware{s.mw},
			})
			require.NoError(s.t, err)
			root, err := adk.NewLoopAgent(context.Background(), &adk.LoopAgentConfig{Name: "loop", SubAgents: []adk.Agent{worker}, MaxIterations: 5})
			require.NoError(s.t, err)
			return root, []adk.Message{query}
		},
		"parallel workflow": func(s *wireShape) (adk.Agent, []adk.Message) {
			a := s.agent("a", scripted.New(scripted.Call("search", `{}`), scripted.Reply("a done")), echo("search"))
			b := s.agent("b", scripted.New(scripted.Reply("b done")))
			root, err := adk.NewParallelAgent(context.Background(), &adk.ParallelAgentConfig{Name: "fanout", SubAgents: []adk.Agent{a, b}})
			require.NoError(s.t, err)
			return root, []adk.Message{query}
		},
		"plan-execute": func(s *wireShape) (adk.Agent, []adk.Message) {
			ctx := context.Background()
			p, err := planexecute.NewPlanner(ctx, &planexecute.PlannerConfig{ToolCallingChatModel: s.mw.Model(s.w.model(scripted.New(planCall("look it up", "write it down"))))})
			require.NoError(s.t, err)
			r, err := planexecute.NewReplanner(ctx, &planexecute.ReplannerConfig{ChatModel: s.mw.Model(s.w.model(scripted.New(planCall("write it down"), respondCall("here it is"))))})
			require.NoError(s.t, err)
			executor := observedExecutor(s.t, s.mw, s.w.model(scripted.New(
				scripted.Call("search", `{"q":"it"}`),
				scripted.Reply("looked it up"),
				scripted.Reply("wrote it down"),
			)))
			root, err := planexecute.New(ctx, &planexecute.Config{Planner: p, Executor: executor, Replanner: r})
			require.NoError(s.t, err)
			return root, []adk.Message{query}
		},
		"deep": func(s *wireShape) (adk.Agent, []adk.Message) {
			a, err := deep.New(context.Background(), &deep.Config{
				Name: "deep", Description: "a deep agent", ChatModel: s.w.model(scripted.New(
					scripted.Call("write_todos", todos),
					taskCall("look it up"),
					scripted.Call("search", `{"q":"it"}`),
					scripted.Reply("found it"),
					scripted.Reply("all done"),
				)),
				ToolsConfig:  adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
				MaxIteration: 10,
				Handlers:     []adk.ChatModelAgentMiddleware{s.mw},
			})
			require.NoError(s.t, err)
			return a, []adk.Message{query}
		},
		"agent as tool": func(s *wireShape) (adk.Agent, []adk.Message) {
			helper := s.agent("helper", scripted.New(scripted.Call("search", `{}`), scripted.Reply("found it")), echo("search"))
			parent := s.agent("parent", scripted.New(
				scripted.Call("helper", `{"request":"find it"}`),
				scripted.Reply("the report"),
			), adk.NewAgentTool(context.Background(), helper))
			return parent, history
		},
	}
	names := make([]string, 0, len(shapes))
	for name := range shapes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, streaming := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streaming=%v", name, streaming), func(t *testing.T) {
				s := newWireShape(t, budget.Limits{MaxTokens: 1_000_000})
				root, msgs := shapes[name](s)
				s.query(root, streaming, msgs...)
			})
		}
	}
}

// The same holds near the budget, where Lookout injects a wrap-up
// reminder, over the turns of a conversation, each given the ones before
// it, and for a flow/agent/react agent whose modifier builds its
// instruction anew for each call.
func TestModelCallsRebuildAcrossWrapUpsTurnsAndReactAgents(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("wrap-up/streaming=%v", streaming), func(t *testing.T) {
			s := newWireShape(t, budget.Limits{MaxToolCalls: 2})
			worker := s.agent("worker", scripted.New(
				scripted.Call("search", `{"q":"a"}`),
				scripted.Call("search", `{"q":"b"}`),
				scripted.Reply("done"),
			), echo("search"))
			s.query(worker, streaming, schema.UserMessage("do the task"))
			wrapUps := 0
			for _, r := range flushedRecords(t, s.sink) {
				if p, ok := r.Payload.(*recorder.ModelRequest); ok {
					for _, m := range p.Injected {
						if m.Kind == recorder.InjectedWrapUp {
							wrapUps++
						}
					}
				}
			}
			assert.Equal(t, 1, wrapUps, "the last call is a wrap-up turn")
		})
		t.Run(fmt.Sprintf("conversation/streaming=%v", streaming), func(t *testing.T) {
			s := newWireShape(t, budget.Limits{MaxTokens: 1_000_000})
			ctx := session.NewContext(context.Background(), session.New(nil))
			history := []adk.Message{schema.UserMessage("turn one")}
			for turn := range 3 {
				worker := s.agent("worker", scripted.New(
					scripted.Call("search", fmt.Sprintf(`{"turn":%d}`, turn)),
					scripted.Reply(fmt.Sprintf("answer %d", turn)),
				), echo("search"))
				runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: s.mw.Agent(worker), EnableStreaming: streaming})
				o := drain(runner.Run(ctx, history))
				require.NoError(t, o.err)
				history = append(history, o.messages...)
				history = append(history, schema.UserMessage(fmt.Sprintf("turn %d", turn+2)))
			}
			s.w.assertRebuilt(t, flushedRecords(t, s.sink))
		})
		t.Run(fmt.Sprintf("flow react agent/streaming=%v", streaming), func(t *testing.T) {
			w := &wire{t: t}
			sink := recorder.NewMemorySink()
			l, err := lookoutreact.New(context.Background(), &lookout.Config{Observers: everyCall(), Recorder: adaptertest.NewRecorder(t, sink, nil)})
			require.NoError(t, err)
			a, err := react.NewAgent(context.Background(), &react.AgentConfig{
				ToolCallingModel: l.WrapModel(w.model(scripted.New(
					scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`),
					scripted.Reply("done"),
				))),
				ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}, ToolCallMiddlewares: []compose.ToolMiddleware{l.ToolMiddleware()}},
				MessageModifier: func(_ context.Context, in []*schema.Message) []*schema.Message {
					return append([]*schema.Message{schema.SystemMessage("You search.")}, in...)
				},
			})
			require.NoError(t, err)
			in := []*schema.Message{schema.UserMessage("hello"), schema.AssistantMessage("hi", nil), schema.UserMessage("do the task")}
			if streaming {
				sr, err := l.Agent(a).Stream(context.Background(), in)
				require.NoError(t, err)
				_, err = schema.ConcatMessageStream(sr)
				require.NoError(t, err)
			} else {
				_, err := l.Agent(a).Generate(context.Background(), in)
				require.NoError(t, err)
			}
			w.assertRebuilt(t, flushedRecords(t, sink))
		})
	}
}
