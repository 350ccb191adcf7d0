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
server; OPENAI_MODEL picks the model (default gpt-4o-mini). Prompts are
summarized --concurrency at a time; a failed call is retried, up to
--max-attempts calls per prompt, with exponential backoff. A prompt the
model fails to summarize is reported with its error; the analytics and the
other prompts are not affected. When more than --max-failures prompts
failed, the exit status is 1.

--state FILE makes the work resumable: each prompt is appended to FILE as
it is done, and a later run with the same FILE sends only the prompts not
summarized yet. --conversation and --turn show the prompts of one
conversation, or one turn of it: a run whose metadata names a
conversation_id and turn belongs to that conversation, any other run is a
conversation of its own, named by its run id.`,
	examples: `  # the analytics and the prompts, without a model
  lookout summarize trajectory.jsonl

  # with a summary of each prompt by an OpenAI model
  OPENAI_API_KEY=sk-... lookout summarize trajectory.jsonl

  # a folder of runs as JSON, with progress on standard error
  lookout summarize --json --progress runs/ > summary.json

  # 2,000 prompts, 16 at a time, resumable, failing on any lost prompt
  lookout summarize --concurrency 16 --state summaries.jsonl --timeout 30m runs/

  # the summary of one turn
  lookout summarize --conversation run-1 --turn 0 trajectory.jsonl`,
	minArgs: 1,
	maxArgs: -1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) int {
		asJSON := fs.Bool("json", false, "print the result as one JSON object")
		var o summarizeOptions
		fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up on the model after this long, for all prompts together")
		fs.IntVar(&o.concurrency, "concurrency", summary.DefaultConcurrency, "prompts summarized at once")
		fs.IntVar(&o.attempts, "max-attempts", summary.DefaultMaxAttempts, "model calls per prompt, retries included")
		fs.IntVar(&o.maxFailures, "max-failures", 0, "exit with status 1 when more prompts than this fail")
		fs.StringVar(&o.state, "state", "", "append each prompt to this JSON Lines file, and skip the ones it holds summarized")
		fs.StringVar(&o.conversation, "conversation", "", "show only the prompts of this conversation")
		fs.IntVar(&o.turn, "turn", -1, "with --conversation, show only this turn")
		fs.BoolVar(&o.repair, "repair", false, "import ATIF documents that break the ATIF rules as well as possible instead of refusing them")
		return func(ctx context.Context, e *env, files []string) int {
			if o.concurrency < 1 || o.attempts < 1 || o.maxFailures < 0 {
				return e.badUsage("--concurrency and --max-attempts must be at least 1, --max-failures at least 0")
			}
			if o.turn >= 0 && o.conversation == "" {
				return e.badUsage("--turn needs --conversation")
			}
			return summarize(ctx, e, files, *asJSON, o)
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

// summarizeOptions are the summarize command's flags for the model's
// work.
type summarizeOptions struct {
	timeout               time.Duration
	concurrency, attempts int
	maxFailures           int
	state                 string
	conversation          string
	turn                  int
	repair                bool // import invalid ATIF documents as well as possible
}

func summarize(ctx context.Context, e *env, files []string, asJSON bool, o summarizeOptions) int {
	records, err := loadAllWith(e, files, o.repair)
	if err != nil {
		return e.failErr(err)
	}
	out := summarizeOutput{Report: summary.Analyze(records)}

	out.Model, out.Prompts, err = prompts(ctx, e, records, o)
	if err != nil {
		return e.fail("%v", err)
	}
	lost := failed(out.Prompts)
	if out.Prompts == nil {
		out.Prompts = summary.Prompts{}
	}
	out.PromptStats = out.Prompts.Stats()

	if err := writeSummary(e, &out, asJSON); err != nil {
		return e.fail("write: %v", err)
	}
	if lost > o.maxFailures {
		return e.fail("summarize: %d prompts failed, more than --max-failures %d", lost, o.maxFailures)
	}
	return exitOK
}

// writeSummary writes out as JSON or as text for people.
func writeSummary(e *env, out *summarizeOutput, asJSON bool) error {
	if asJSON {
		return writeJSON(e.stdout, out)
	}
	return writeSummaryText(e, out)
}

// only keeps the prompts of a conversation, or of one of its turns (turn
// >= 0); an empty conversation keeps them all.
func only(ps summary.Prompts, conversation string, turn int) summary.Prompts {
	if conversation == "" {
		return ps
	}
	var out summary.Prompts
	for _, p := range ps {
		if p.Conversation == conversation && (turn < 0 || p.Turn == turn) {
			out = append(out, p)
		}
	}
	return out
}

// prompts splits the records into prompts, keeps those shown (of
// --conversation and --turn) and, when a model is configured, has it
// summarize each of them within timeout (none when 0). It returns the
// model's name, or "" without one. A model that cannot be set up or that
// fails on some prompts is a warning: the prompts are still worth
// reporting.
func prompts(ctx context.Context, e *env, records []recorder.Record, o summarizeOptions) (string, summary.Prompts, error) {
	all := summary.Split(records)
	shown := only(all, o.conversation, o.turn)
	counter := &countingModel{total: len(shown), p: e.progress}
	cfg := &summary.Config{Concurrency: o.concurrency, MaxAttempts: o.attempts}
	closeState, err := resumeFrom(o.state, cfg)
	if err != nil {
		return "", nil, err
	}
	defer closeState()
	skipHidden(cfg, all, shown)
	s, name, closeModel, err := configuredSummarizer(ctx, counter, cfg)
	if err != nil {
		e.warn("summarize: no prompt summaries: %v", err)
		return "", shown, nil
	}
	if s == nil {
		return "", shown, nil
	}
	defer closeModel()
	ctx, cancel := withTimeout(ctx, o.timeout)
	defer cancel()
	ps, _ := s.Summarize(ctx, records)
	ps = only(ps, o.conversation, o.turn)
	if n := failed(ps); n > 0 {
		e.warn("summarize: %d of %d prompts could not be summarized", n, len(ps))
	}
	return name, ps, nil
}

// hiddenSummary stands for the summary of a prompt that is not shown, so
// that the summarizer takes it as done and never sends it.
const hiddenSummary = "(not shown)"

// skipHidden has the summarizer of cfg leave alone the prompts of all
// that are not shown, so that it sends the model only those shown, and
// keeps the others out of the state file.
func skipHidden(cfg *summary.Config, all, shown summary.Prompts) {
	if len(shown) == len(all) {
		return
	}
	type key struct {
		run string
		seq uint64
	}
	keep := make(map[key]bool, len(shown))
	for _, p := range shown {
		keep[key{p.RunID, p.Seq}] = true
	}
	for _, p := range all {
		if !keep[key{p.RunID, p.Seq}] {
			p.Summary = hiddenSummary
			cfg.Previous = append(cfg.Previous, p)
		}
	}
	if save := cfg.OnPrompt; save != nil {
		cfg.OnPrompt = func(p summary.Prompt) {
			if keep[key{p.RunID, p.Seq}] {
				save(p)
			}
		}
	}
}

// resumeFrom sets cfg to resume from the state file at path and to save
// each prompt done into it, and returns the function that closes it; an
// empty path keeps no state.
func resumeFrom(path string, cfg *summary.Config) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	st, err := openState(path)
	if err != nil {
		return nil, err
	}
	cfg.Previous, cfg.OnPrompt = st.previous, st.save
	return st.close, nil
}

// withTimeout is ctx cancelled after timeout, or ctx itself when timeout
// is not positive.
func withTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, timeout)
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
func configuredSummarizer(ctx context.Context, counter *countingModel, cfg *summary.Config) (*summary.Summarizer, string, func(), error) {
	key := os.Getenv("OPENAI_API_KEY")
	if key == "" {
		return nil, "", nil, nil
	}
	name := os.Getenv("OPENAI_MODEL")
	if name == "" {
		name = defaultModel
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = max(cfg.Concurrency, 2)
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
	cfg.Model = counter
	s, err := summary.New(cfg)
	if err != nil {
		return nil, "", nil, err
	}
	return s, name, transport.CloseIdleConnections, nil
}
