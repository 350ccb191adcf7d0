package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/supervisor"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/replay"
)

const instruction = "You deploy services. Check before you deploy."

// deployer is a single ADK agent that makes two parallel calls, then a
// call that fails, then answers.
func deployer(search, deploy tool.BaseTool, instr string) func(*world) adk.Agent {
	return func(w *world) adk.Agent {
		return w.agent(testingT{}, "deployer", instr, search, deploy)
	}
}

// testingT lets builders run outside a test's goroutine checks; agent
// construction does not fail in these tests.
type testingT struct{ testing.TB }

func (testingT) Helper()                        {}
func (testingT) Errorf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
func (testingT) FailNow()                       { panic("agent construction failed") }

func deployerModels() map[string]model.ToolCallingChatModel {
	return map[string]model.ToolCallingChatModel{"deployer": scripted.New(
		scripted.Call("search", `{"q":"service"}`).Call("search", `{"q":"version"}`).WithUsage(100, 10),
		scripted.Call("deploy", `{"service":"billing"}`).WithUsage(200, 20),
		scripted.Reply("Deploy failed: the cluster is down.").WithUsage(300, 30),
	)}
}

func recordDeployer(t *testing.T) ([]recorder.Record, outcome) {
	return record(t, deployerModels(), deployer(echo("search"), failing("deploy", "cluster down"), instruction), "deploy billing")
}

func TestAnADKAgentReplaysWithoutItsModelOrTools(t *testing.T) {
	records, want := recordDeployer(t)
	require.NoError(t, want.err)
	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)

	got := replayed(t, c, deployer(must("search", t), must("deploy", t), instruction), "deploy billing")
	require.NoError(t, got.err)
	require.NoError(t, c.Err())
	assert.Equal(t, want.final, got.final)
	assert.ElementsMatch(t, want.tools, got.tools)
	assert.Contains(t, got.tools, "deploy: Error: cluster down", "the recorded error comes back as the error")
	assert.Zero(t, c.Remaining())
}

func TestAChangedToolResultIsReportedWithTheCallIndexAndADiff(t *testing.T) {
	records, _ := recordDeployer(t)
	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)

	changed := fnTool{name: "deploy", fn: func(context.Context, string) (string, error) { return "deployed", nil }}
	got := replayed(t, c, deployer(must("search", t), changed, instruction), "deploy billing", "deploy")
	d := divergence(t, got.err)
	assert.Same(t, d, divergence(t, c.Err()), "reported once")
	assert.Equal(t, 3, d.ModelCall, "the call after the changed result")
	assert.Equal(t, 3, d.ToolCallIndex, "the deploy call is the run's third")
	assert.Contains(t, d.Reason, "the result of tool call #3, deploy")
	assert.Contains(t, lines(d.Diff), "- Error: cluster down")
	assert.Contains(t, lines(d.Diff), "+ deployed")
	assert.Contains(t, d.Error(), "model call 3 (seq ")
}

func TestAChangedSystemPromptIsReportedAsTheFirstMessage(t *testing.T) {
	records, _ := recordDeployer(t)
	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)

	got := replayed(t, c, deployer(must("search", t), must("deploy", t), "You deploy services."), "deploy billing")
	d := divergence(t, got.err)
	assert.Equal(t, 1, d.ModelCall)
	assert.Equal(t, 0, d.Message)
	assert.Contains(t, d.Reason, "input message 1 (system) differs")
	assert.Contains(t, lines(d.Diff), "- "+instruction)
	assert.Contains(t, lines(d.Diff), "+ You deploy services.")

	for name, opts := range map[string]*replay.Options{
		"and replays when the system prompt does not count": {IgnoreSystem: true},
		"and replays when no message counts":                {IgnoreMessages: true},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := replay.FromRecords(records, opts)
			require.NoError(t, err)
			got := replayed(t, c, deployer(must("search", t), must("deploy", t), "You deploy services."), "deploy billing")
			require.NoError(t, got.err)
		})
	}
	t.Run("but not when another message changed", func(t *testing.T) {
		c, err := replay.FromRecords(records, &replay.Options{IgnoreSystem: true})
		require.NoError(t, err)
		got := replayed(t, c, deployer(must("search", t), must("deploy", t), "You deploy services."), "deploy payments")
		d := divergence(t, got.err)
		assert.Contains(t, d.Reason, "input message 1 (user) differs", "system messages are not counted")
	})
}

func TestAChangedToolDefinitionIsReported(t *testing.T) {
	records, _ := recordDeployer(t)
	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)
	renamed := must("find", t)
	got := replayed(t, c, deployer(renamed, must("deploy", t), instruction), "deploy billing")
	d := divergence(t, got.err)
	assert.Equal(t, "the tools offered differ", d.Reason)
	assert.Contains(t, lines(d.Diff), "- search")
	assert.Contains(t, lines(d.Diff), "+ find")

	c, err = replay.FromRecords(records, &replay.Options{IgnoreTools: true})
	require.NoError(t, err)
	got = replayed(t, c, deployer(renamed, must("deploy", t), instruction), "deploy billing")
	// The tools do not count, but the model still calls search, which
	// the agent no longer has.
	require.Error(t, got.err)
	assert.NotErrorIs(t, got.err, replay.ErrDiverged)
}

func TestAModelCallPastTheRecordingIsReported(t *testing.T) {
	records, _ := recordDeployer(t)
	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)
	require.NoError(t, replayed(t, c, deployer(must("search", t), must("deploy", t), instruction), "deploy billing").err)
	// The cassette is spent: the same query again is a fourth call.
	got := replayed(t, c, deployer(must("search", t), must("deploy", t), instruction), "deploy billing")
	d := divergence(t, got.err)
	assert.Contains(t, d.Reason, "the recording has no run for it")
}

// A cassette recorded with the default redaction replays: the live input
// is redacted the same way before it is compared.
func TestARedactedCassetteReplays(t *testing.T) {
	const key = "sk-proj-abcdefghijklmnopqrstuvwx0123"
	query := "deploy billing with the key " + key
	models := map[string]model.ToolCallingChatModel{"deployer": scripted.New(
		scripted.Call("search", `{"q":"service","api_key":"`+key+`"}`).WithUsage(100, 10),
		scripted.Reply("Done.").WithUsage(300, 30),
	)}
	build := deployer(echo("search"), echo("deploy"), instruction)
	records, want := record(t, models, build, query)
	require.NoError(t, want.err)
	raw, err := json.Marshal(records)
	require.NoError(t, err)
	require.NotContains(t, string(raw), key, "the recording is redacted")

	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)
	got := replayed(t, c, deployer(must("search", t), must("deploy", t), instruction), query)
	require.NoError(t, got.err)
	assert.Equal(t, "Done.", got.final)

	t.Run("which it would not if the live input were not redacted", func(t *testing.T) {
		c, err := replay.FromRecords(records, &replay.Options{KeepSecrets: true})
		require.NoError(t, err)
		got := replayed(t, c, deployer(must("search", t), must("deploy", t), instruction), query)
		d := divergence(t, got.err)
		assert.Contains(t, d.Reason, "input message 2 (user) differs")
	})
}

// fanOut is a parent that asks three agents, in parallel, through
// agents used as tools.
func fanOut(w *world) adk.Agent {
	ctx := context.Background()
	alpha := w.agent(testingT{}, "alpha", "You look things up.", echo("lookup"))
	beta := w.agent(testingT{}, "beta", "You check things.", echo("check"))
	gamma := w.agent(testingT{}, "gamma", "You look things up too.", echo("lookup"))
	agentTools := []tool.BaseTool{adk.NewAgentTool(ctx, alpha), adk.NewAgentTool(ctx, beta), adk.NewAgentTool(ctx, gamma)}
	return w.agent(testingT{}, "lead", "You delegate.", agentTools...)
}

// helper answers each request with one call of tool and then a reply
// naming what it was asked, whatever order concurrent runs call it in.
func helper(tool string) model.ToolCallingChatModel {
	return scripted.New(scripted.Forever(scripted.Func(func(_ context.Context, in []*schema.Message, _ *model.Options) (*schema.Message, error) {
		var last *schema.Message
		var request string
		for _, m := range in {
			if _, injected := lookout.Injected(m); injected {
				continue
			}
			if m.Role == schema.User && request == "" {
				request = m.Content
			}
			last = m
		}
		if last.Role == schema.Tool {
			return schema.AssistantMessage("answered "+request+" with "+last.Content, nil), nil
		}
		args, _ := json.Marshal(map[string]string{"q": request})
		return schema.AssistantMessage("", []schema.ToolCall{{Function: schema.FunctionCall{Name: tool, Arguments: string(args)}}}), nil
	})))
}

func fanOutModels() map[string]model.ToolCallingChatModel {
	request := func(s string) string { b, _ := json.Marshal(map[string]string{"request": s}); return string(b) }
	return map[string]model.ToolCallingChatModel{
		"lead": scripted.New(
			scripted.Call("alpha", request("the price")).Call("gamma", request("the stock")).Call("beta", request("the order")),
			scripted.Reply("All three answered."),
		),
		"alpha": helper("lookup"),
		"beta":  helper("check"),
		"gamma": helper("lookup"),
	}
}

// Agents used as tools, called in parallel, replay their own recorded
// runs whatever order their calls arrive in.
func TestAgentsUsedAsToolsReplayDeterministically(t *testing.T) {
	records, want := record(t, fanOutModels(), fanOut, "ask around")
	require.NoError(t, want.err)
	require.Len(t, want.tools, 3)
	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)

	got := replayed(t, c, fanOut, "ask around", "alpha", "beta", "gamma")
	require.NoError(t, got.err)
	require.NoError(t, c.Err())
	assert.Equal(t, "All three answered.", got.final)
	assert.ElementsMatch(t, want.tools, got.tools)
	for _, s := range []string{"answered the price with lookup", "answered the stock with lookup", "answered the order with check"} {
		assert.True(t, slices.ContainsFunc(got.tools, func(r string) bool { return strings.Contains(r, s) }), "a sub-agent got another's answers: %v", got.tools)
	}
	assert.Zero(t, c.Remaining())

	t.Run("or answered from the recording as a whole", func(t *testing.T) {
		c, err := replay.FromRecords(records, nil)
		require.NoError(t, err)
		got := replayed(t, c, fanOut, "ask around")
		require.NoError(t, got.err)
		assert.Equal(t, "All three answered.", got.final)
		assert.ElementsMatch(t, want.tools, got.tools)
		assert.Equal(t, 3*2, c.Remaining(), "the sub-agents' own calls were not played")
	})
}

// A supervisor's query replays: the supervisor's segments and the
// agents it transfers to each take their own recorded calls.
func TestASupervisorQueryReplays(t *testing.T) {
	transfer := func(name string) scripted.ToolCall {
		return scripted.ToolCall{Name: adk.TransferToAgentToolName, Arguments: `{"agent_name":"` + name + `"}`}
	}
	models := map[string]model.ToolCallingChatModel{
		"lead": scripted.New(
			scripted.Calls(transfer("researcher")).WithUsage(100, 10),
			scripted.Calls(transfer("writer")).WithUsage(100, 10),
			scripted.Reply("all done").WithUsage(100, 10),
		),
		"researcher": scripted.New(
			scripted.Call("search", `{"q":"x"}`).WithUsage(200, 20),
			scripted.Reply("found x").WithUsage(200, 20),
		),
		"writer": scripted.New(scripted.Reply("wrote it").WithUsage(300, 30)),
	}
	build := func(search tool.BaseTool) func(*world) adk.Agent {
		return func(w *world) adk.Agent {
			lead := w.agent(testingT{}, "lead", "You lead.")
			researcher := w.agent(testingT{}, "researcher", "You research.", search)
			writer := w.agent(testingT{}, "writer", "You write.")
			root, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{researcher, writer}})
			if err != nil {
				panic(err)
			}
			return root
		}
	}
	records, want := record(t, models, build(echo("search")), "do the task")
	require.NoError(t, want.err)
	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)
	got := replayed(t, c, build(must("search", t)), "do the task")
	require.NoError(t, got.err)
	require.NoError(t, c.Err())
	assert.Equal(t, want.final, got.final)
	assert.Equal(t, want.tools, got.tools)
	assert.Zero(t, c.Remaining())
}

// indices maps each tool call's id to the index Lookout gave it.
func indices(records []recorder.Record) map[string]int {
	out := map[string]int{}
	for _, r := range records {
		if e, ok := r.Payload.(*recorder.ToolEnded); ok {
			out[e.CallID] = e.CallIndex
		}
	}
	return out
}

// With the cassette's middleware outside Lookout's, parallel tool calls
// end in the recorded order and take the recorded call indices.
func TestParallelToolCallsTakeTheirRecordedIndices(t *testing.T) {
	models := map[string]model.ToolCallingChatModel{"deployer": scripted.New(
		scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`).Call("search", `{"q":"c"}`).Call("search", `{"q":"d"}`),
		scripted.Call("search", `{"q":"e"}`).Call("search", `{"q":"f"}`),
		scripted.Reply("searched"),
	)}
	records, want := record(t, models, deployer(echo("search"), echo("deploy"), instruction), "search")
	require.NoError(t, want.err)
	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)

	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	mw, err := lookoutadk.New(ctx, config(rec, c.Now))
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "deployer", Description: "the deployer agent", Instruction: instruction, Model: c.Model(),
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{c.Tool(must("search", t)), c.Tool(must("deploy", t))}}},
		Handlers:    []adk.ChatModelAgentMiddleware{c.Middleware(), mw},
	})
	require.NoError(t, err)
	got := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}).Query(ctx, "search"))
	require.NoError(t, got.err)
	require.NoError(t, rec.Close(ctx))
	require.NoError(t, c.Err())
	assert.Equal(t, indices(records), indices(sink.Records()))
	assert.ElementsMatch(t, want.tools, got.tools)
}

// Values that change from run to run (ids, times, temporary paths) do
// not count, as the Stall observer normalizes them; other text does.
func TestVolatileValuesDoNotCount(t *testing.T) {
	result := func(s string) fnTool {
		return fnTool{name: "search", fn: func(context.Context, string) (string, error) { return s, nil }}
	}
	const recorded = "job 2f1c9a7e-5b1d-4c3e-9f00-1a2b3c4d5e6f done at 2026-01-15T09:00:00Z, output in /tmp/tmp8x2k/out.json, 3 rows"
	records, _ := record(t, deployerModels(), deployer(result(recorded), failing("deploy", "cluster down"), instruction), "deploy billing")

	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)
	live := "job 9d8e7f6a-1b2c-4d3e-8f90-abcdefabcdef done at 2026-03-02T17:45:12.5Z, output in /tmp/tmpq7rz/out.json, 3 rows"
	got := replayed(t, c, deployer(result(live), must("deploy", t), instruction), "deploy billing", "search")
	require.NoError(t, got.err)

	c, err = replay.FromRecords(records, nil)
	require.NoError(t, err)
	got = replayed(t, c, deployer(result(strings.Replace(recorded, "3 rows", "4 rows", 1)), must("deploy", t), instruction), "deploy billing", "search")
	d := divergence(t, got.err)
	assert.Contains(t, lines(d.Diff), "+ "+strings.Replace(recorded, "3 rows", "4 rows", 1))
}

// A model call attempt that failed and was retried replays as it ran:
// the first attempt fails with the recorded error, and the retry gets the
// recorded reply.
func TestAFailedAttemptReplaysAsAFailure(t *testing.T) {
	retrying := func(w *world) adk.Agent {
		a, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
			Name: "retrier", Description: "retries", Instruction: "Answer.", Model: w.model("retrier"),
			ModelRetryConfig: &adk.ModelRetryConfig{MaxRetries: 1},
			Handlers:         []adk.ChatModelAgentMiddleware{w.mw},
		})
		require.NoError(t, err)
		return a
	}
	models := map[string]model.ToolCallingChatModel{
		"retrier": scripted.New(scripted.Fail(errors.New("HTTP 500: try again")), scripted.Reply("hello")),
	}
	records, want := record(t, models, retrying, "hi")
	require.NoError(t, want.err)
	c, err := replay.FromRecords(records, nil)
	require.NoError(t, err)

	got := replayed(t, c, retrying, "hi")
	require.NoError(t, got.err)
	require.NoError(t, c.Err())
	assert.Equal(t, "hello", got.final)
	assert.Zero(t, c.Remaining(), "both attempts replayed")
}
