package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/supervisor"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

func main() {
	out := flag.String("out", "", "write the query's records to `DIR`/trajectory.jsonl")
	flag.Parse()
	if err := start(context.Background(), os.Stdout, *out); err != nil {
		fmt.Fprintln(os.Stderr, "multiagent:", err)
		os.Exit(1)
	}
}

// start records to memory, and to DIR/trajectory.jsonl when dir is set,
// and runs the query.
func start(ctx context.Context, w io.Writer, dir string) error {
	mem := recorder.NewMemorySink() // read back to print each query's run tree
	var sink recorder.Sink = mem
	path := filepath.Join(dir, "trajectory.jsonl")
	if dir != "" {
		// Truncate: the file holds this program's query alone.
		file, err := recorder.NewFileSink(path, &recorder.FileOptions{Truncate: true})
		if err != nil {
			return err
		}
		sink = recorder.FanOut(mem, file)
	}
	rec := recorder.New(sink, nil)
	runErr := run(ctx, w, rec, mem)
	// Close delivers what is queued and closes the sinks.
	if err := rec.Close(ctx); err != nil {
		return err
	}
	if runErr == nil && dir != "" {
		fmt.Fprintf(w, "Trajectory written to %s\n", path)
	}
	return runErr
}

// run attaches one middleware to every agent and runs one query on a
// supervisor whose sub-agents are a researcher and a loop workflow.
func run(ctx context.Context, w io.Writer, rec *recorder.Recorder, mem *recorder.MemorySink) error {
	mw, err := lookoutadk.New(ctx, &lookout.Config{
		// The last model call allowed is a wrap-up turn; keep the limit
		// below Eino's MaxIterations (20) so a run ends on it.
		Limits:   budget.Limits{Timeout: 5 * time.Minute, MaxTokens: 20_000, MaxToolCalls: 6, MaxModelCalls: 8},
		Recorder: rec,
	})
	if err != nil {
		return err
	}
	team, err := supervised(ctx, mw)
	if err != nil {
		return err
	}
	const task = "Find out how often Go ships, and keep checking the sources until your budget says stop."
	fmt.Fprintf(w, "Query: %q\n", task)
	store := session.New(nil) // the query's budget, read after it
	qctx := session.NewContext(ctx, store)
	final, qerr := drain(adk.NewRunner(qctx, adk.RunnerConfig{Agent: mw.Agent(team)}).Query(qctx, task))
	if err := rec.Flush(ctx); err != nil {
		return err
	}
	printTree(w, mem.Records())
	b, _ := lookout.BudgetOf(store)
	n := observer.FormatCount
	fmt.Fprintf(w, "Budget: %s of %s tokens, %d of %d model calls, %d of %d tool calls.\n",
		n(b.TokensUsed), n(b.MaxTokens), b.ModelCalls, b.MaxModelCalls, b.ToolCalls, b.MaxToolCalls)
	if qerr != nil {
		fmt.Fprintf(w, "Error: %v\n", qerr)
		return nil
	}
	fmt.Fprintf(w, "Answer: %s\n", final)
	return nil
}

// supervised is a lead that hands the task to a researcher, which
// searches, and then to a loop workflow. Every agent has the middleware.
func supervised(ctx context.Context, mw *lookoutadk.Middleware) (adk.Agent, error) {
	lead, err := newAgent(ctx, mw, "lead", scripted.New(
		scripted.Calls(transferTo("researcher")).WithUsage(300, 20),
		scripted.Calls(transferTo("checking")).WithUsage(500, 20),
		scripted.Reply("Go ships twice a year; the sources agree.").WithUsage(700, 30),
	), nil)
	if err != nil {
		return nil, err
	}
	researcher, err := newAgent(ctx, mw, "researcher", scripted.New(
		scripted.Call("search", `{"q":"Go release cycle"}`).WithUsage(200, 20),
		scripted.Reply("Go releases every six months, in February and August.").WithUsage(300, 40),
	), nil, search())
	if err != nil {
		return nil, err
	}
	checking, err := looping(ctx, mw)
	if err != nil {
		return nil, err
	}
	return supervisor.New(ctx, &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{researcher, checking}})
}

// looping is a loop workflow of one agent that searches and reports on
// each iteration until its wrap-up turn, where it leaves through exit.
func looping(ctx context.Context, mw *lookoutadk.Middleware) (adk.Agent, error) {
	checker, err := newAgent(ctx, mw, "checker", scripted.New(scripted.Forever(scripted.Func(checkerTurn))), &adk.ExitTool{}, search())
	if err != nil {
		return nil, err
	}
	return adk.NewLoopAgent(ctx, &adk.LoopAgentConfig{Name: "checking", SubAgents: []adk.Agent{checker}, MaxIterations: 10})
}

// checkerTurn is the loop agent's model: on the wrap-up turn, whose tool
// choice allows only the control tools, it calls exit; otherwise it
// searches, then reports what it found, which ends the iteration.
func checkerTurn(_ context.Context, in []*schema.Message, o *model.Options) (*schema.Message, error) {
	var msg *schema.Message
	switch {
	case o.ToolChoice != nil && *o.ToolChoice == schema.ToolChoiceAllowed:
		msg = schema.AssistantMessage("", []schema.ToolCall{{ID: "leave", Function: schema.FunctionCall{
			Name: "exit", Arguments: `{"final_result":"Checked the sources; stopping at the budget."}`}}})
	case lastIsTool(in):
		msg = schema.AssistantMessage("One more source checked.", nil)
	default:
		msg = schema.AssistantMessage("", []schema.ToolCall{{ID: fmt.Sprintf("s%d", len(in)), Function: schema.FunctionCall{
			Name: "search", Arguments: `{"q":"sources"}`}}})
	}
	msg.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 400, CompletionTokens: 20, TotalTokens: 420}}
	return msg, nil
}

// lastIsTool reports whether the last message of in that Lookout did not
// inject is a tool result.
func lastIsTool(in []*schema.Message) bool {
	for i := len(in) - 1; i >= 0; i-- {
		if _, injected := lookout.Injected(in[i]); !injected {
			return in[i].Role == schema.Tool
		}
	}
	return false
}

func newAgent(ctx context.Context, mw *lookoutadk.Middleware, name string, m model.ToolCallingChatModel, exit tool.BaseTool, tools ...tool.BaseTool) (*adk.ChatModelAgent, error) {
	return adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: name, Description: "The " + name + ".", Instruction: "You are the " + name + ".", Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
		Exit:        exit,
		Handlers:    []adk.ChatModelAgentMiddleware{mw}, // on every agent
	})
}

func transferTo(name string) scripted.ToolCall {
	return scripted.ToolCall{Name: adk.TransferToAgentToolName, Arguments: `{"agent_name":"` + name + `"}`}
}

// search is the researcher's and the checker's tool.
func search() tool.BaseTool {
	return searchTool{}
}

type searchTool struct{}

func (searchTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "search", Desc: `Search the web. Arguments: {"q": string}.`}, nil
}

func (searchTool) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return "go.dev/doc/devel/release: a major release every six months.", nil
}
