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

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/examples/quickstart/migrator"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

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
		return migrator.Script(), "a scripted model (set OPENAI_API_KEY to use a real one)", nil
	}
	name := os.Getenv("OPENAI_MODEL")
	if name == "" {
		name = "gpt-4o-mini"
	}
	m, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{APIKey: key, BaseURL: os.Getenv("OPENAI_BASE_URL"), Model: name})
	return m, name, err
}

func run(ctx context.Context, w io.Writer, chat model.ToolCallingChatModel, modelName string, rec *recorder.Recorder) error {
	mw, err := lookoutadk.New(ctx, migrator.Config(rec, nil))
	if err != nil {
		return err
	}
	agent, err := migrator.NewAgent(ctx, &printing{inner: chat, w: w, seen: &shown{last: map[string]string{}}}, migrator.Tools(), mw)
	if err != nil {
		return err
	}

	// The session on the ctx is where Lookout keeps the run's budget and
	// tool calls; holding it lets us print the budget afterwards.
	store := session.New(nil)
	ctx = session.NewContext(ctx, store)

	fmt.Fprintf(w, "Lookout quickstart: an unattended agent on %s.\nTask: %s\n\n", modelName, migrator.Task)
	final, runErr := migrator.Drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}).Query(ctx, migrator.Task))
	b, _ := lookout.BudgetOf(store)
	report(w, b, final, runErr)
	return nil
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

// show prints the tool results the model gets on this call and what
// Lookout injects into its input, when that changed.
func (p *printing) show(input []*schema.Message) {
	p.seen.calls++
	p.showToolResults(input)
	p.showInjected(input)
}

// showToolResults prints the tool results of the previous turn: they
// come after its assistant message; Lookout's own messages come last.
func (p *printing) showToolResults(input []*schema.Message) {
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
}

// showInjected prints each message Lookout injected whose content
// changed since it was last printed.
func (p *printing) showInjected(input []*schema.Message) {
	s := p.seen
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
