package summary_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

// recordRun records a small run into memory: a user prompt, two parallel
// tool calls (one failing), an assessment, and an end over budget.
func recordRun() []recorder.Record {
	ctx := context.Background()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{Clock: func() time.Time {
		now = now.Add(time.Second)
		return now
	}})
	run, _ := rec.StartRun(ctx, recorder.RunInfo{RunID: "run-1", AgentName: "migrator", Limits: recorder.RunLimits{MaxTokens: 100}})
	_ = run.Message(ctx, schema.UserMessage("migrate the billing service"))
	reply := schema.AssistantMessage("", []schema.ToolCall{
		{ID: "c1", Function: schema.FunctionCall{Name: "shell", Arguments: `{"cmd":"make migrate"}`}},
		{ID: "c2", Function: schema.FunctionCall{Name: "read_file", Arguments: `{"path":"schema.sql"}`}},
	})
	_ = run.ModelResponse(ctx, recorder.ModelResponse{Message: reply, UsageReported: true,
		Usage: recorder.TokenUsage{PromptTokens: 80, CompletionTokens: 30, TotalTokens: 110}})
	_ = run.ToolStarted(ctx, recorder.ToolStarted{CallID: "c1", Name: "shell", CallIndex: 0})
	_ = run.ToolStarted(ctx, recorder.ToolStarted{CallID: "c2", Name: "read_file", CallIndex: 1})
	_ = run.ToolEnded(ctx, recorder.ToolEnded{CallID: "c2", Name: "read_file", Result: "CREATE TABLE ...", CallIndex: 1, Duration: 20 * time.Millisecond})
	_ = run.ToolEnded(ctx, recorder.ToolEnded{CallID: "c1", Name: "shell", IsError: true, Error: "exit status 2", CallIndex: 0, Duration: 1500 * time.Millisecond})
	_ = run.Assessment(ctx, recorder.AssessmentRecord{Markdown: "## Run status\n- token budget spent", AfterCallIndex: 1,
		Observers: []recorder.ObserverNote{{Name: "resource", Severity: "warning"}}})
	_ = run.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetExceeded, Resource: "tokens", Amount: 110, Used: 110, Limit: 100})
	_ = run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeBudgetExceeded, StopReason: "tokens",
		Usage: recorder.RunUsage{PromptTokens: 80, CompletionTokens: 30, TotalTokens: 110, ToolCalls: 2, ModelCalls: 1}})
	if err := rec.Close(ctx); err != nil {
		panic(err)
	}
	return sink.Records()
}

func ExampleAnalyze() {
	rep := summary.Analyze(recordRun())
	_ = rep.WriteText(os.Stdout)
	// Output:
	// runs: 1 (1 root, 0 children)
	// outcomes: budget_exceeded 1
	// stop reasons: tokens 1
	// duration: 9s
	// records: 10
	// turns: 1 model call, 1 user message
	// tokens: 80 prompt, 30 completion, 110 total
	// tools: 2 calls, 1 error (50.0%)
	//   read_file: 1 call, 0 errors, 20ms
	//   shell: 1 call, 1 error, 1.5s
	// assessments: 1 (warning 1)
	//   resource: warning 1
	// budget exceeded: tokens 1
	//
	// run run-1 (agent migrator)
	//   outcome: budget_exceeded (stop reason: tokens)
	//   time: 2025-06-01T12:00:01Z to 2025-06-01T12:00:10Z
	//   limits: 100 tokens
	//   duration: 9s
	//   records: 10
	//   turns: 1 model call, 1 user message
	//   tokens: 80 prompt, 30 completion, 110 total
	//   tools: 2 calls, 1 error (50.0%)
	//     read_file: 1 call, 0 errors, 20ms
	//     shell: 1 call, 1 error, 1.5s
	//   assessments: 1 (warning 1)
	//     resource: warning 1
	//   budget exceeded: tokens, used 110 of 100 (seq 8)
	//   failures:
	//     seq 6 shell (c1): exit status 2
}

func ExampleAnalyzer() {
	var jsonl strings.Builder
	for _, r := range recordRun() {
		line, _ := r.AppendJSON(nil)
		jsonl.Write(append(line, '\n'))
	}

	// Count records as they are read, without keeping them.
	var a summary.Analyzer
	for rec, err := range recorder.NewReader(strings.NewReader(jsonl.String())).All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		a.Add(rec)
	}
	rep := a.Report()
	fmt.Printf("%d tool calls, error rate %.2f, outcome %s\n", rep.Total.ToolCalls, rep.Total.ErrorRate, rep.Runs[0].Outcome)
	// Output:
	// 2 tool calls, error rate 0.50, outcome budget_exceeded
}

func ExampleSummarizer_Summarize() {
	// Any Eino chat model works; this one always gives the same answer.
	m := answering("```json\n" + `{"summary":"The agent ran the migration and read the schema; the migration failed and the token budget ran out.",
"tools_rationale":"shell to run the migration, read_file to check the schema",
"key_findings":["make migrate exits with status 2"],"confidence":"Low"}` + "\n```")
	s, err := summary.New(&summary.Config{Model: m, Clock: func() time.Time { return time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		fmt.Println(err)
		return
	}
	prompts, err := s.Summarize(context.Background(), recordRun())
	if err != nil {
		fmt.Println(err)
	}
	_ = prompts.WriteText(os.Stdout)
	// Output:
	// prompt at run run-1 seq 1: "migrate the billing service"
	//   work: 1 model call, 2 tool calls (read_file, shell), 1 error, 8s
	//   confidence: low
	//   summary: The agent ran the migration and read the schema; the migration failed and the token budget ran out.
	//   tools rationale: shell to run the migration, read_file to check the schema
	//   key findings:
	//     - make migrate exits with status 2
	//
	// prompts: 1, 1 summarized, 0 failed; 1.00 model calls per prompt; confidence low 1
}

func ExampleSplit() {
	for _, p := range summary.Split(recordRun()) {
		fmt.Printf("run %s seq %d %q: tools %v, %d errors\n", p.RunID, p.Seq, p.Query, p.Tools, p.ToolErrors)
	}
	// Output:
	// run run-1 seq 1 "migrate the billing service": tools [read_file shell], 1 errors
}

// Online summarizes each prompt once its run has ended, while records go
// on to the sink it wraps; the summary is then found by conversation and
// turn. Give it to lookout.Config.Recorder through recorder.New to use it
// with an adapter.
func ExampleOnline() {
	s, err := summary.New(&summary.Config{Model: answering(`{"summary":"Ran the migration.","confidence":"low"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	online, err := summary.NewOnline(summary.OnlineConfig{Summarizer: s, Next: recorder.NewMemorySink()})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, rec := range recordRun() {
		if err := online.Write(ctx, &rec); err != nil {
			fmt.Println(err)
		}
	}
	if err := online.Close(ctx); err != nil {
		fmt.Println(err)
	}
	p, ok := online.Lookup("run-1", 0)
	fmt.Println(ok, p.Query, "->", p.Summary, p.Confidence)
	// Output:
	// true migrate the billing service -> Ran the migration. low
}
