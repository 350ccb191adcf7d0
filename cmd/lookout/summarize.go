package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"

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
		return e.fail("%v", err)
	}
	out := summarizeOutput{Report: summary.Analyze(records)}

	s, name, closeModel, err := configuredSummarizer(ctx)
	switch {
	case err != nil:
		e.warn("summarize: no prompt summaries: %v", err)
		out.Prompts = summary.Split(records)
	case s == nil:
		out.Prompts = summary.Split(records)
	default:
		defer closeModel()
		out.Model = name
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		var perr error
		out.Prompts, perr = s.Summarize(ctx, records)
		if perr != nil {
			e.warn("summarize: %d of %d prompts could not be summarized", failed(out.Prompts), len(out.Prompts))
		}
	}
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

func writeSummaryText(e *env, out *summarizeOutput) error {
	if err := out.Report.WriteText(e.stdout); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(e.stdout); err != nil {
		return err
	}
	if out.Model == "" {
		if _, err := fmt.Fprintln(e.stdout, "prompt summaries: no model configured (set OPENAI_API_KEY)"); err != nil {
			return err
		}
	} else if _, err := fmt.Fprintf(e.stdout, "prompt summaries by %s\n", out.Model); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(e.stdout); err != nil {
		return err
	}
	return out.Prompts.WriteText(e.stdout)
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
// model named by the environment, its model name, and a function that
// closes the model's idle connections. Without OPENAI_API_KEY it returns
// a nil Summarizer and no error.
func configuredSummarizer(ctx context.Context) (*summary.Summarizer, string, func(), error) {
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
	s, err := summary.New(&summary.Config{Model: cm})
	if err != nil {
		return nil, "", nil, err
	}
	return s, name, transport.CloseIdleConnections, nil
}
