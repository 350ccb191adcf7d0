package drivetest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/messages"
	"github.com/lookout-go/lookout/session"
)

func recordingScenarios() []scenario {
	return []scenario{
		mediaScenario("a multimodal tool's image is recorded and exported", func(image []byte) tool.BaseTool {
			return adaptertest.RichTool{Name: "camera", Text: "the screen:", Image: image}
		}),
		mediaScenario("a multimodal streaming tool's image is recorded and exported", func(image []byte) tool.BaseTool {
			return adaptertest.RichStreamTool{Name: "camera", Chunks: []string{"the ", "screen:"}, Image: image}
		}),
		trajectoryScenario(),
		callIndexOrderScenario(),
	}
}

// trajectoryScenario checks the records of a run with three parallel
// calls, and that they export as a valid ATIF trajectory.
func trajectoryScenario() scenario {
	return scenario{Name: "the trajectory is recorded as a side effect", Modes: both, Build: func(t *testing.T, a Adapter) spec {
		sink := recorder.NewMemorySink()
		return spec{
			Model: scripted.New(
				scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`).Call("search", `{"q":"c"}`),
				scripted.Reply("done"),
			),
			Tools:  []tool.BaseTool{adaptertest.Echo("search")},
			Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil), Observers: adaptertest.EveryCall(), Limits: budget.Limits{MaxTokens: 10_000}},
			Check: func(t *testing.T, r result) {
				require.NoError(t, r.Err)
				records := adaptertest.Ended(t, sink)
				adaptertest.AssertDenseSeq(t, records)
				k := adaptertest.Kinds(records)
				assert.Equal(t, 1, k[recorder.KindRunStarted])
				assert.Equal(t, 1, k[recorder.KindRunEnded])
				assert.Equal(t, 2, k[recorder.KindModelRequest])
				assert.Equal(t, 2, k[recorder.KindModelResponse])
				assert.Equal(t, 3, k[recorder.KindToolStarted])
				assert.Equal(t, 3, k[recorder.KindToolEnded])
				assert.Equal(t, 3, k[recorder.KindAssessment])
				assert.Equal(t, 2, k[recorder.KindBudget], "one charge per model call")
				assert.Equal(t, a.InputMessages, k[recorder.KindMessage], "the run's input")

				started := records[0].Payload.(*recorder.RunStarted)
				assert.Equal(t, a.AgentName, started.AgentName)
				assert.Equal(t, int64(10_000), started.Limits.MaxTokens)
				end := records[len(records)-1].Payload.(*recorder.RunEnded)
				assert.Equal(t, recorder.OutcomeCompleted, end.Outcome)
				assert.Equal(t, int64(2), end.Usage.ModelCalls, "the last reply was charged before the end")

				var replies []string
				for _, rec := range records {
					if resp, ok := rec.Payload.(*recorder.ModelResponse); ok {
						require.NotNil(t, resp.Message)
						assert.True(t, resp.UsageReported)
						replies = append(replies, resp.Message.Content)
					}
				}
				assert.Equal(t, []string{"", "done"}, replies)

				traj, err := atif.FromRecords(records, nil)
				require.NoError(t, err)
				doc, err := json.Marshal(traj)
				require.NoError(t, err)
				assert.Empty(t, atif.Validate(doc))
				var withCalls int
				for _, s := range traj.Steps {
					if len(s.ToolCalls) == 3 {
						withCalls++
						require.NotNil(t, s.Observation)
						assert.Len(t, s.Observation.Results, 3, "parallel calls share one step")
					}
				}
				assert.Equal(t, 1, withCalls)
			},
		}
	}}
}

// callIndexOrderScenario checks that the tool_ended and assessment records
// of parallel calls are written in the order of the calls' indices, however
// the calls end.
func callIndexOrderScenario() scenario {
	return scenario{Name: "parallel calls are recorded in the order of their call indices", Runs: func(t *testing.T, _ Adapter, run runFunc) {
		// Which call ends first is up to the scheduler, so the runs are
		// repeated; a redactor that yields widens the gap between a
		// call getting its index and its records being written.
		const n, runs = 8, 25
		yield := recorder.RedactFunc(func(s string) string {
			for range 3 {
				runtime.Gosched()
			}
			return s
		})
		for range runs {
			sink := recorder.NewMemorySink()
			m := scripted.New(scripted.Calls(numberedCalls("work", n)...), scripted.Reply("done"))
			r := run(t, spec{Model: m, Tools: []tool.BaseTool{adaptertest.Echo("work")}, Config: &lookout.Config{
				Observers: adaptertest.EveryCall(), Recorder: adaptertest.NewRecorder(t, sink, &recorder.Options{Redactors: []recorder.Redactor{yield}}),
			}}, Generate)
			require.NoError(t, r.Err)
			ended, assessed := recordedCallIndices(adaptertest.Ended(t, sink))
			want := callIndices[int](n)
			require.Equal(t, want, ended, "tool_ended records in call-index order")
			require.Equal(t, want, assessed, "assessment records in call-index order: the last is the current one")
		}
	}}
}

// recordedCallIndices returns the call indices of the tool_ended records
// and of the assessment records in records, in the order they were written.
func recordedCallIndices(records []recorder.Record) (ended, assessed []int) {
	for _, rec := range records {
		switch p := rec.Payload.(type) {
		case *recorder.ToolEnded:
			ended = append(ended, p.CallIndex)
		case *recorder.AssessmentRecord:
			assessed = append(assessed, p.AfterCallIndex)
		}
	}
	return ended, assessed
}

// recordingBudgetScenarios are the recording's scenarios where the
// budget stops a run or refuses a call.
func recordingBudgetScenarios() []scenario {
	return []scenario{
		{Name: "a budget stop is recorded", Build: func(t *testing.T, _ Adapter) spec {
			sink := recorder.NewMemorySink()
			return spec{
				Model:  scripted.New(scripted.Call("search", `{}`).WithUsage(150, 0), scripted.Reply("never")),
				Tools:  []tool.BaseTool{adaptertest.Echo("search")},
				Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil), Limits: budget.Limits{MaxTokens: 100}, WrapUpAt: -1},
				Check: func(t *testing.T, r result) {
					require.ErrorIs(t, r.Err, budget.ErrExceeded)
					records := adaptertest.Ended(t, sink)
					end := records[len(records)-1].Payload.(*recorder.RunEnded)
					assert.Equal(t, recorder.OutcomeBudgetExceeded, end.Outcome)
					assert.Equal(t, "tokens budget exceeded", end.StopReason)
					exceeded := exceededRecords(records)
					for _, b := range exceeded {
						assert.Equal(t, "tokens", b.Resource)
					}
					assert.Len(t, exceeded, 1)
				},
			}
		}},
		refusalRecordedScenario(),
	}
}

// refusalRecordedScenario checks that a call the budget refuses has a
// tool_ended record holding the refusal the model read, and that the
// conversation export answers it.
func refusalRecordedScenario() scenario {
	return scenario{Name: "a refused tool call is recorded with the refusal the model read", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
		// Two parallel calls under a limit of one: one runs, one is
		// refused, and the conversation export answers both.
		sink := recorder.NewMemorySink()
		m := scripted.New(scripted.Calls(
			scripted.ToolCall{ID: "call_a", Name: "search", Arguments: `{"n":1}`},
			scripted.ToolCall{ID: "call_b", Name: "search", Arguments: `{"n":2}`},
		), scripted.Reply("done"))
		return spec{
			Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")},
			Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil), Limits: budget.Limits{MaxToolCalls: 1}, WrapUpAt: -1},
			Check: func(t *testing.T, r result) {
				require.NoError(t, r.Err)
				records := adaptertest.Ended(t, sink)
				answered := map[string]string{}
				for _, msg := range adaptertest.ToolMessages(m.Requests()[1].Messages) {
					answered[msg.ToolCallID] = adaptertest.MessageText(msg)
				}
				require.Len(t, answered, 2)
				ended := map[string]*recorder.ToolEnded{}
				for _, te := range payloadsOf[*recorder.ToolEnded](records) {
					ended[te.CallID] = te
				}
				require.Len(t, ended, 2, "both calls have a tool_ended")
				var refused int
				for id, te := range ended {
					assert.Equal(t, "search", te.Name)
					assert.Equal(t, answered[id], te.Result, "call %s: the result is what the model read", id)
					if strings.HasPrefix(te.Result, "Tool call refused") {
						refused++
						assert.True(t, te.IsError)
						assert.Contains(t, te.Error, "tool_calls: 1 of 1 used")
					}
				}
				assert.Equal(t, 1, refused)
				asked, tools := exportedCallIDs(t, records)
				assert.ElementsMatch(t, asked, tools, "every call the conversation export asks for is answered")
			},
		}
	}}
}

// exportedCallIDs exports records as a conversation and returns the IDs
// of the calls its messages make and the IDs its tool messages answer.
func exportedCallIDs(t *testing.T, records []recorder.Record) (asked, answered []string) {
	t.Helper()
	msgs, err := messages.FromRecords(records, nil)
	require.NoError(t, err)
	for _, msg := range msgs {
		for _, c := range msg.ToolCalls {
			asked = append(asked, c.ID)
		}
		if msg.Role == messages.RoleTool {
			answered = append(answered, msg.ToolCallID)
		}
	}
	return asked, answered
}

// mediaScenario checks that the image a tool named camera, made by
// makeTool, returns after the text "the screen:" reaches its tool_ended
// record and the ATIF export, as a file next to the document.
func mediaScenario(name string, makeTool func(image []byte) tool.BaseTool) scenario {
	return scenario{Name: name, Modes: both, Build: func(t *testing.T, _ Adapter) spec {
		sink := recorder.NewMemorySink()
		screenshot := []byte("\x89PNG\r\n\x1a\n a screenshot")
		return spec{
			Model:  scripted.New(scripted.Call("camera", `{}`), scripted.Reply("I see it")),
			Tools:  []tool.BaseTool{makeTool(screenshot)},
			Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)},
			Check: func(t *testing.T, r result) {
				require.NoError(t, r.Err)
				records := adaptertest.Ended(t, sink)
				var ended *recorder.ToolEnded
				for _, rec := range records {
					if te, ok := rec.Payload.(*recorder.ToolEnded); ok {
						ended = te
					}
				}
				require.NotNil(t, ended)
				assert.Equal(t, "the screen:", ended.Result)
				require.Len(t, ended.Parts, 2)
				assert.Equal(t, recorder.Part{Type: recorder.PartText, Text: "the screen:"}, ended.Parts[0])
				require.NotNil(t, ended.Parts[1].Media)
				assert.Equal(t, screenshot, ended.Parts[1].Media.Data, "the image is kept inline")

				traj, err := atif.FromRecords(records, nil)
				require.NoError(t, err)
				dir := t.TempDir()
				path, err := atif.WriteFile(dir, "run.trajectory.json", traj)
				require.NoError(t, err)
				problems, err := atif.ValidateFile(path, nil)
				require.NoError(t, err)
				assert.Empty(t, problems)
				files := traj.MediaFiles()
				require.Len(t, files, 1)
				written, err := os.ReadFile(filepath.Join(dir, files[0].Path))
				require.NoError(t, err)
				assert.Equal(t, screenshot, written)
			},
		}
	}}
}

// recordingFaultScenarios are the recording's scenarios where something
// fails: the model, a tool or the sink.
func recordingFaultScenarios() []scenario {
	return []scenario{
		{Name: "an error end is recorded", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
			sink := recorder.NewMemorySink()
			return spec{
				Model:  scripted.New(scripted.Call("search", `{}`), scripted.Fail(errors.New("provider unavailable"))),
				Tools:  []tool.BaseTool{adaptertest.Echo("search")},
				Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)},
				Check: func(t *testing.T, r result) {
					require.Error(t, r.Err)
					records := adaptertest.Ended(t, sink)
					end := records[len(records)-1].Payload.(*recorder.RunEnded)
					assert.Equal(t, recorder.OutcomeError, end.Outcome)
					assert.Contains(t, end.Error, "provider unavailable")
				},
			}
		}},
		{Name: "a failing sink with the drop policy never breaks the run", Build: func(t *testing.T, _ Adapter) spec {
			sink := &failingSink{}
			var mu sync.Mutex
			reported := 0
			rec := recorder.New(sink, &recorder.Options{OnError: func(context.Context, error) { mu.Lock(); reported++; mu.Unlock() }})
			return spec{
				Model:  scripted.New(scripted.Call("search", `{}`), scripted.Reply("done")),
				Tools:  []tool.BaseTool{adaptertest.Echo("search")},
				Config: &lookout.Config{Recorder: rec},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					assert.Equal(t, "done", r.Final.Content)
					require.NoError(t, rec.Close(context.Background()))
					mu.Lock()
					defer mu.Unlock()
					assert.Equal(t, uint64(sink.Writes()), rec.Dropped(), "every failed write is counted")
					assert.Equal(t, sink.Writes(), reported)
					assert.Positive(t, sink.Writes())
				},
			}
		}},
		{Name: "the recorded requests name the offered tools", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
			sink := recorder.NewMemorySink()
			m := scripted.New(scripted.Call("search", `{"q":"a"}`), scripted.Reply("done"))
			return spec{
				Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")}, Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					var requests int
					for _, rec := range adaptertest.Ended(t, sink) {
						if p, ok := rec.Payload.(*recorder.ModelRequest); ok {
							requests++
							assert.Equal(t, []string{"search"}, p.Tools, "request %d", requests)
							if requests == 1 {
								require.Len(t, p.ToolDefinitions, 1, "the definitions go with the first request")
								assert.Equal(t, "search", p.ToolDefinitions[0].Name)
							}
						}
					}
					assert.Equal(t, 2, requests)
				},
			}
		}},
		{Name: "a tool that panics is recorded as a failed call", Build: func(t *testing.T, _ Adapter) spec {
			sink := recorder.NewMemorySink()
			boom := adaptertest.Tool{Name: "boom", Fn: func(context.Context, string) (string, error) { panic("kaput") }}
			m := scripted.New(scripted.Call("boom", `{}`), scripted.Reply("after the panic"))
			return spec{
				Model: m, Tools: []tool.BaseTool{boom}, Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)},
				Check: func(t *testing.T, r result) {
					// What the panic does to the run is Eino's business; the
					// call is recorded either way.
					records := adaptertest.Ended(t, sink)
					k := adaptertest.Kinds(records)
					assert.Equal(t, 1, k[recorder.KindToolStarted])
					assert.Equal(t, 1, k[recorder.KindToolEnded])
					calls := session.LogOf[observer.ToolCallRecord](r.Store).Last(1)
					require.Len(t, calls, 1)
					assert.False(t, calls[0].Success)
					assert.Contains(t, calls[0].ErrorMessage, "the tool panicked")
					assert.Equal(t, int64(1), latestBudget(r.Store).ToolCalls)
				},
			}
		}},
		{Name: "a failing sink with the escalate policy ends the run with its error", Build: func(t *testing.T, _ Adapter) spec {
			// The sink fails from the call's tool_started on, written on
			// the recorder's own goroutine; the tool waits until the
			// failure is known, so the model call after it is the one the
			// failure ends.
			sink := &failingSink{From: recorder.KindToolStarted}
			rec := adaptertest.NewRecorder(t, sink, &recorder.Options{Policy: recorder.Escalate})
			wait := adaptertest.Tool{Name: "search", Fn: func(context.Context, string) (string, error) {
				for rec.Err() == nil {
					runtime.Gosched()
				}
				return "found", nil
			}}
			m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("never"))
			return spec{
				Model: m, Tools: []tool.BaseTool{wait},
				Config: &lookout.Config{Recorder: rec},
				Check: func(t *testing.T, r result) {
					require.Error(t, r.Err)
					assert.ErrorIs(t, r.Err, errDiskFull)
					assert.ErrorIs(t, r.Err, recorder.ErrSinkFailed)
					assert.Equal(t, 1, m.Calls(), "the run ended before the second model call")
				},
			}
		}},
	}
}
