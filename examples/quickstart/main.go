package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

const task = "Migrate the billing service to the new payments API, make the tests pass, and report what you changed."

func main() {
	out := flag.String("out", "", "write the run's trajectory to `DIR`/trajectory.jsonl")
	flag.Parse()
	ctx := context.Background()
	if err := start(ctx, os.Stdout, *out); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// start picks the model, opens the trajectory file when dir is set, and
// runs the agent.
func start(ctx context.Context, w io.Writer, dir string) error {
	chat, name, err := chatModel(ctx)
	if err != nil {
		return err
	}
	var rec *recorder.Recorder // nil records nothing
	if dir != "" {
		path := filepath.Join(dir, "trajectory.jsonl")
		// Truncate: the file holds this run alone, as the commands that
		// read it expect; a second run with the same DIR replaces the first.
		file, err := recorder.NewFileSink(path, &recorder.FileOptions{Truncate: true})
		if err != nil {
			return err
		}
		// The recorder writes on a goroutine of its own; Close delivers
		// what it has queued and closes the file.
		rec = recorder.New(file, nil)
		defer func() {
			if err := rec.Close(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "quickstart: close trajectory:", err)
				return
			}
			fmt.Fprintf(w, "Trajectory written to %s\n", path)
		}()
	}
	return run(ctx, w, chat, name, rec)
}

// chatModel returns a real OpenAI-compatible model when OPENAI_API_KEY is
// set, and the scripted one otherwise.
func chatModel(ctx context.Context) (model.ToolCallingChatModel, string, error) {
	key := os.Getenv("OPENAI_API_KEY")
	if key == "" {
		return script(), "a scripted model (set OPENAI_API_KEY to use a real one)", nil
	}
	name := os.Getenv("OPENAI_MODEL")
	if name == "" {
		name = "gpt-4o-mini"
	}
	m, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{APIKey: key, BaseURL: os.Getenv("OPENAI_BASE_URL"), Model: name})
	return m, name, err
}

// script is what the offline model does: it explores, edits, and keeps
// re-running tests that keep failing, until its tool calls are spent and
// Lookout asks it to wrap up.
func script() *scripted.Model {
	// Each turn reports fixed usage, so the offline run is the same every
	// time whatever the prompts look like.
	return scripted.New(
		scripted.Call("list_files", `{"dir":"billing"}`).WithUsage(300, 20),
		scripted.Call("read_file", `{"path":"billing/client.go"}`).
			Call("read_file", `{"path":"billing/client_test.go"}`).
			Call("read_file", `{"path":"payments/api.go"}`).WithUsage(350, 40),
		scripted.Call("write_file", `{"path":"billing/client.go","content":"package billing // uses payments.Charge"}`).WithUsage(420, 60),
		scripted.Call("run_tests", `{"package":"./billing"}`).WithUsage(480, 20),
		scripted.Call("run_tests", `{"package":"./billing","verbose":true}`).WithUsage(520, 25),
		scripted.Call("run_tests", `{"package":"./billing","run":"TestCharge"}`).WithUsage(560, 25),
		scripted.Call("read_file", `{"path":"billing/testdata/charge.json"}`).WithUsage(600, 20),
		scripted.Reply("I moved billing/client.go to payments.Charge. The billing tests still fail: "+
			"the fixture in billing/testdata/charge.json expects the old currency field. "+
			"Remaining: update the fixture and re-run the tests.").WithUsage(720, 80),
	)
}

// tools is a small in-memory project; run_tests always fails.
func tools() []tool.BaseTool {
	files := map[string]string{
		"billing/client.go":            "package billing // calls legacy.Charge",
		"billing/client_test.go":       "package billing // TestCharge",
		"billing/testdata/charge.json": `{"amount": 100, "currency_code": "EUR"}`,
		"payments/api.go":              "package payments // func Charge(amount int, currency string)",
	}
	return []tool.BaseTool{
		newTool("list_files", "List the files of a directory. Arguments: {\"dir\": string}.", func(string) (string, error) {
			var names []string
			for name := range files {
				names = append(names, name)
			}
			return strings.Join(sorted(names), "\n"), nil
		}),
		newTool("read_file", "Read a file. Arguments: {\"path\": string}.", func(args string) (string, error) {
			for name, body := range files {
				if strings.Contains(args, `"`+name+`"`) {
					return body, nil
				}
			}
			return "", errors.New("no such file")
		}),
		newTool("write_file", "Write a file. Arguments: {\"path\": string, \"content\": string}.", func(string) (string, error) {
			return "written", nil
		}),
		newTool("run_tests", "Run the tests of a package. Arguments: {\"package\": string}.", func(string) (string, error) {
			return "", errors.New("FAIL billing TestCharge: unknown field \"currency_code\" in testdata/charge.json")
		}),
	}
}

func run(ctx context.Context, w io.Writer, chat model.ToolCallingChatModel, modelName string, rec *recorder.Recorder) error {
	mw, err := lookoutadk.New(ctx, &lookout.Config{
		Recorder: rec,
		Limits:   budget.Limits{Timeout: 10 * time.Minute, MaxTokens: 5_000, MaxToolCalls: 9},
		Observers: []observer.Spec{
			{Observer: resource.New(), Trigger: observer.Trigger{EveryNCalls: 5, AfterConsecutiveErrors: 3}},
			{Observer: cascade.New(), Trigger: observer.Trigger{OnEveryCall: true}},
			{Observer: stall.New(), Trigger: observer.Trigger{OnEveryCall: true}},
		},
	})
	if err != nil {
		return err
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "migrator",
		Description: "Migrates services to new APIs.",
		Instruction: "You work unattended. Use the tools, keep an eye on your budget, and finish with a short report.",
		Model:       &printing{inner: chat, w: w, seen: &shown{last: map[string]string{}}},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools()}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	if err != nil {
		return err
	}

	// The session on the ctx is where Lookout keeps the run's budget and
	// tool calls; holding it lets us print the budget afterwards.
	store := session.New(nil)
	ctx = session.NewContext(ctx, store)

	fmt.Fprintf(w, "Lookout quickstart: an unattended agent on %s.\nTask: %s\n\n", modelName, task)
	final, runErr := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}).Query(ctx, task))
	b, _ := lookout.BudgetOf(store)
	report(w, b, final, runErr)
	return nil
}

// drain reads the run's events to the end and returns the agent's final
// answer, its last message without tool calls, and the last error the run
// reported.
func drain(iter *adk.AsyncIterator[*adk.AgentEvent]) (final string, runErr error) {
	for {
		ev, ok := iter.Next()
		if !ok {
			return final, runErr
		}
		if ev.Err != nil {
			runErr = ev.Err
			continue
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		if msg, err := ev.Output.MessageOutput.GetMessage(); err == nil && msg != nil && msg.Role == schema.Assistant && len(msg.ToolCalls) == 0 {
			final = msg.Content
		}
	}
}

// report prints what the run spent of its budget and how it ended.
func report(w io.Writer, b budget.Budget, final string, runErr error) {
	n := observer.FormatCount
	fmt.Fprintf(w, "\nBudget: %s of %s tokens (%s prompt, %s completion) in %d model calls, %d without usage; %d of %d tool calls.\n",
		n(b.TokensUsed), n(b.MaxTokens), n(b.PromptTokens), n(b.CompletionTokens), b.ModelCalls, b.ModelCallsWithoutUsage, b.ToolCalls, b.MaxToolCalls)
	var exceeded *budget.ExceededError
	switch {
	case errors.As(runErr, &exceeded):
		fmt.Fprintf(w, "Run ended: stopped by the budget (%v).\n", exceeded)
	case runErr != nil:
		fmt.Fprintf(w, "Run ended: error: %v\n", runErr)
	default:
		fmt.Fprintf(w, "Run ended: completed.\nFinal answer: %s\n", final)
	}
	if b.MaxTokens > 0 && b.TokensUsed > b.MaxTokens {
		fmt.Fprintln(w, "(The token limit is checked before each model call, so a run overruns it by at most one response.)")
	}
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

// printing shows what Lookout injected into the model's input, exactly as
// the model receives it, each time it changes.
type printing struct {
	inner model.ToolCallingChatModel
	w     io.Writer
	seen  *shown
}

type shown struct {
	calls int
	last  map[string]string // kind → content last printed
}

func (p *printing) show(input []*schema.Message) {
	s := p.seen
	s.calls++
	// The tool results of the previous turn come after its assistant
	// message; Lookout's own messages come last.
	start := 0
	for i, msg := range input {
		if msg.Role == schema.Assistant {
			start = i + 1
		}
	}
	for _, msg := range input[start:] {
		if msg.Role == schema.Tool {
			fmt.Fprintf(p.w, "  tool %s -> %s\n", msg.ToolName, firstLine(msg.Content, 100))
		}
	}
	for _, msg := range input {
		kind, ok := lookout.Injected(msg)
		if !ok || s.last[kind] == msg.Content {
			continue
		}
		s.last[kind] = msg.Content
		fmt.Fprintf(p.w, "\n=== model call %d: Lookout injects this %s message (role %s) ===\n%s\n", s.calls, kind, msg.Role, msg.Content)
	}
}

func (p *printing) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	p.show(input)
	return p.inner.Generate(ctx, input, opts...)
}

func (p *printing) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	p.show(input)
	return p.inner.Stream(ctx, input, opts...)
}

func (p *printing) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := p.inner.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return &printing{inner: inner, w: p.w, seen: p.seen}, nil
}
