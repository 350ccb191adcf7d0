package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

// defaultModel is the OpenAI model used when OPENAI_MODEL is not set.
const defaultModel = "gpt-4o-mini"

var summarizeCmd = &command{
	name:    "summarize",
	args:    "FILE...",
	summary: "analytics, plus a summary of each user prompt when a model is configured",
	details: `Summarize prints the analytics of inspect, then one entry per user prompt:
the run and seq of the user message, the tools it led to, model calls,
errors, time taken and the final answer.

When OPENAI_API_KEY is set, each prompt is also sent, with a bounded
rendering of its steps, to an OpenAI-compatible chat model, which writes a
summary, the rationale for the tools chosen, key findings and a confidence
level (low, medium or high). OPENAI_BASE_URL points at another compatible
server; OPENAI_MODEL picks the model (default gpt-4o-mini). A prompt the
model fails to summarize is reported with its error; the analytics and the
other prompts are not affected, and the exit status stays 0.`,
	examples: `  # the analytics and the prompts, without a model
  lookout summarize trajectory.jsonl

  # with a summary of each prompt by an OpenAI model
  OPENAI_API_KEY=sk-... lookout summarize trajectory.jsonl

  # a folder of runs as JSON, with progress on standard error
  lookout summarize --json --progress runs/ > summary.json`,
	minArgs: 1,
	maxArgs: -1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) int {
		asJSON := fs.Bool("json", false, "print the result as one JSON object")
		timeout := fs.Duration("timeout", 5*time.Minute, "give up on the model after this long, for all prompts together")
		return func(ctx context.Context, e *env, files []string) int {
			return summarize(ctx, e, files, *asJSON, *timeout)
		}
	},
}

// summarizeOutput is the JSON shape of the summarize command.
type summarizeOutput struct {
	Report      summary.Report      `json:"report"`
	Model       string              `json:"model,omitempty"` // empty when no model was configured
	Prompts     summary.Prompts     `json:"prompts"`
	PromptStats summary.PromptStats `json:"prompt_stats"`
}

func summarize(ctx context.Context, e *env, files []string, asJSON bool, timeout time.Duration) int {
	records, err := loadAll(e, files)
	if err != nil {
		return e.failErr(err)
	}
	out := summarizeOutput{Report: summary.Analyze(records)}

	out.Model, out.Prompts = prompts(ctx, e, records, timeout)
	if out.Prompts == nil {
		out.Prompts = summary.Prompts{}
	}
	out.PromptStats = out.Prompts.Stats()

	if asJSON {
		err = writeJSON(e.stdout, out)
	} else {
		err = writeSummaryText(e, &out)
	}
	if err != nil {
		return e.fail("write: %v", err)
	}
	return exitOK
}

// prompts splits the records into prompts and, when a model is
// configured, has it summarize each one within timeout (none when 0). It
// returns the model's name, or "" without one. A model that cannot be set
// up or that fails on some prompts is a warning: the prompts are still
// worth reporting.
func prompts(ctx context.Context, e *env, records []recorder.Record, timeout time.Duration) (string, summary.Prompts) {
	counter := &countingModel{total: len(summary.Split(records)), p: e.progress}
	s, name, closeModel, err := configuredSummarizer(ctx, counter)
	if err != nil {
		e.warn("summarize: no prompt summaries: %v", err)
		return "", summary.Split(records)
	}
	if s == nil {
		return "", summary.Split(records)
	}
	defer closeModel()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	ps, err := s.Summarize(ctx, records)
	if err != nil {
		e.warn("summarize: %d of %d prompts could not be summarized", failed(ps), len(ps))
	}
	return name, ps
}

func writeSummaryText(e *env, out *summarizeOutput) error {
	if err := out.Report.WriteText(e.stdout); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(e.stdout, "\n%s\n\n", modelLine(out.Model)); err != nil {
		return err
	}
	return out.Prompts.WriteText(e.stdout)
}

// modelLine says which model summarized the prompts, or how to configure
// one.
func modelLine(model string) string {
	if model == "" {
		return "prompt summaries: no model configured (set OPENAI_API_KEY)"
	}
	return "prompt summaries by " + model
}

func failed(ps summary.Prompts) int {
	n := 0
	for _, p := range ps {
		if p.Error != "" {
			n++
		}
	}
	return n
}

// configuredSummarizer returns a Summarizer over the OpenAI-compatible
// model named by the environment, reached through counter, its model name,
// and a function that closes the model's idle connections. Without
// OPENAI_API_KEY it returns a nil Summarizer and no error.
func configuredSummarizer(ctx context.Context, counter *countingModel) (*summary.Summarizer, string, func(), error) {
	key := os.Getenv("OPENAI_API_KEY")
	if key == "" {
		return nil, "", nil, nil
	}
	name := os.Getenv("OPENAI_MODEL")
	if name == "" {
		name = defaultModel
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	client := &http.Client{Transport: transport, Timeout: 2 * time.Minute}
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{
		APIKey:     key,
		BaseURL:    os.Getenv("OPENAI_BASE_URL"),
		Model:      name,
		HTTPClient: client,
	})
	if err != nil {
		return nil, "", nil, fmt.Errorf("openai model %s: %w", name, err)
	}
	counter.BaseChatModel = cm
	s, err := summary.New(&summary.Config{Model: counter})
	if err != nil {
		return nil, "", nil, err
	}
	return s, name, transport.CloseIdleConnections, nil
}
