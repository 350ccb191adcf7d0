package simulate_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/adapters/simtarget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
	"github.com/lookout-go/lookout/simulate"
)

// The examples of this file are the snippets of docs/simulate.md, which
// TestEverySnippetOfTheDocIsAnExample holds to them.

// newAgent is a travel agent on a scripted model that answers every turn.
func newAgent() adk.Agent {
	a, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: "travel", Description: "plans trips",
		Model: scripted.New(scripted.Forever(scripted.Reply("Sure, TP123 on Friday."))),
	})
	if err != nil {
		panic(err)
	}
	return a
}

// A policy that stops the run when the agent asks for a password.
func ExamplePolicyFunc() {
	noPasswords := simulate.PolicyFunc(func(ctx context.Context, s simulate.Progress) (simulate.Verdict, error) {
		last := s.Traces[len(s.Traces)-1]
		for _, m := range last.Agent {
			if strings.Contains(strings.ToLower(m.Content), "password") {
				return simulate.Verdict{Stop: true, Reason: simulate.StopPolicyViolation, Note: "agent asked for a password"}, nil
			}
		}
		return simulate.DefaultPolicy{}.Evaluate(ctx, s)
	})
	nosy := simulate.TargetFunc(func(context.Context, []*schema.Message) ([]*schema.Message, error) {
		return []*schema.Message{schema.AssistantMessage("What is your password?", nil)}, nil
	})
	runner := &simulate.Runner{UserModel: &lines{says: []string{"hi"}}, Policy: noPasswords}
	res, _ := runner.Run(context.Background(), &simulate.Scenario{Goal: "g", ConversationID: "c"}, nosy)
	fmt.Println(res.End.Summary)
	// Output:
	// c: stopped with policy-violation after 1 turn; goal not completed. agent asked for a password.
}

// Goals over what the agent did: its tool calls, with their arguments and
// results.
func ExampleGoal() {
	scenario := &simulate.Scenario{
		Goal:     "book a trip to Lisbon",
		MaxTurns: 1,
		Goals: []simulate.Goal{
			simulate.ToolCalledWith("book", func(c simulate.ToolCall) bool {
				var b struct{ Flight, Hotel string }
				return c.Args(&b) == nil && b.Flight == "TP663" && b.Hotel == "Baixa Sol"
			}),
			simulate.ToolCalled("send_itinerary"), // called, and a result that is not an error came back
			{Name: "refund issued", Met: func(ctx context.Context, e simulate.Evidence) (bool, error) {
				return len(e.Calls("refund")) > 0, nil
			}},
		},
	}
	res, _ := (&simulate.Runner{UserModel: &lines{says: []string{"Please book TP123."}}}).Run(context.Background(), scenario, bookingAgent)
	for _, g := range res.End.Goals {
		fmt.Println(g.Name, g.Met)
	}
	// Output:
	// called book false
	// called send_itinerary false
	// refund issued false
}

// A batch whose ranker and judge have models of their own, each job with
// its own agent and a time limit.
func ExampleBatch_roles() {
	ctx := context.Background()
	outDir, _ := os.MkdirTemp("", "batch")
	defer os.RemoveAll(outDir)
	scenarios := []*simulate.Scenario{{Name: "trip", Goal: "book a flight", MaxTurns: 2, Criteria: []string{"the agent offers a flight"}}}
	userModel := scripted.New(scripted.Forever(scripted.Reply("Any flights to Lisbon?")))
	rankModel := scripted.New(scripted.Forever(scripted.Reply(`{"scores":[]}`)))
	judgeModel := scripted.New(scripted.Forever(scripted.Reply(`{"criteria":[{"index":1,"passed":true,"score":1,"reason":"it offers TP123"}]}`)))
	batch := &simulate.Batch{
		Scenarios:   scenarios,
		Repetitions: 5,
		Concurrency: 8,
		OutDir:      outDir,
		JobTimeout:  10 * time.Minute,
		Setup: func(ctx context.Context, j simulate.Job) (*simulate.Runner, simulate.Target, error) {
			runner := &simulate.Runner{
				UserModel: userModel,
				Ranker:    simulate.NewRanker(rankModel),
				Judge:     simulate.NewJudge(judgeModel),
			}
			return runner, simtarget.Agent(ctx, newAgent()), nil
		},
	}
	report, err := batch.Run(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report.Ran, "runs,", report.Failed, "failed; user model calls:", userModel.Calls(), "judge calls:", judgeModel.Calls())
	// Output:
	// 5 runs, 0 failed; user model calls: 10 judge calls: 5
}

// A shard of a batch in a pod of a Kubernetes Indexed Job.
func ExampleShardFromEnv_kubernetes() {
	os.Setenv(simulate.EnvShard, "3")
	os.Setenv(simulate.EnvShards, "8")
	defer os.Unsetenv(simulate.EnvShard)
	defer os.Unsetenv(simulate.EnvShards)
	batch := &simulate.Batch{}
	shard, shards, err := simulate.ShardFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	batch.Shard, batch.Shards = shard, shards
	batch.OutDir = filepath.Join("/results", fmt.Sprintf("shard-%d", shard))
	fmt.Println(batch.Shard, batch.Shards, filepath.ToSlash(batch.OutDir))
	// Output:
	// 3 8 /results/shard-3
}

// A rate limit shared by the models of one provider, and the cache of
// the simulator's replies.
func ExampleLimitModel() {
	cacheDir, _ := os.MkdirTemp("", "cache")
	defer os.RemoveAll(cacheDir)
	start := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	userModel := scripted.New(scripted.Forever(scripted.Reply("Any flights to Lisbon?")))
	rankModel := scripted.New(scripted.Forever(scripted.Reply(`{"scores":[]}`)))
	judgeModel := scripted.New(scripted.Forever(scripted.Reply(`{"criteria":[]}`)))
	limit := &simulate.RateLimit{RequestsPerMinute: 500, TokensPerMinute: 200_000}
	runner := &simulate.Runner{
		UserModel: simulate.LimitModel(userModel, limit),
		Ranker:    simulate.NewRanker(simulate.LimitModel(rankModel, limit)),
		Judge:     simulate.NewJudge(simulate.LimitModel(judgeModel, limit)),
		CacheDir:  cacheDir,
		Clock:     func() time.Time { return start },
	}
	sc := &simulate.Scenario{Goal: "find a flight", ConversationID: "c1", MaxTurns: 2}
	for range 2 {
		res, _ := runner.Run(context.Background(), sc, bookingAgent)
		fmt.Println(res.End.Reason, "user model calls so far:", userModel.Calls())
	}
	// Output:
	// max-turns user model calls so far: 2
	// max-turns user model calls so far: 2
}

// The conversation controls: fixed messages, a stop signal, criteria for a
// judge and answers to interrupts.
func ExampleScenario_controls() {
	scenario := &simulate.Scenario{
		Goal:       "book a flight to Lisbon",
		Opening:    "Hi! I need to get to Lisbon on Friday.",         // turn 0, as written
		Script:     map[int]string{3: "Actually, make it Saturday."}, // turn 3, as written
		StopSignal: "###DONE###",
		Goals:      []simulate.Goal{simulate.ToolCalled("book")},
		Criteria: []string{
			"The agent confirms the booking reference",
			"The agent never asks for the card number",
		},
		Interrupts: simulate.InterruptPolicy{
			"book":   {Action: simulate.InterruptApprove},
			"refund": {Action: simulate.InterruptReject, Text: "no refunds in this test"},
		},
	}
	judge := simulate.JudgeFunc(func(_ context.Context, in simulate.JudgeInput) ([]simulate.CriterionResult, error) {
		var out []simulate.CriterionResult
		for _, c := range in.Criteria {
			out = append(out, simulate.CriterionResult{Criterion: c, Passed: true, Score: 1, Reason: "seen"})
		}
		return out, nil
	})
	user := &lines{says: []string{"Any flights?", "Please book TP123.", "###DONE###"}}
	res, _ := (&simulate.Runner{UserModel: user, Judge: judge}).Run(context.Background(), scenario, bookingAgent)
	for _, t := range res.Traces {
		fmt.Println(t.User.Content)
	}
	fmt.Println(res.End.Reason, res.End.Passed)
	// Output:
	// Hi! I need to get to Lisbon on Friday.
	// Any flights?
	// Please book TP123.
	// goal-reached true
}

// Summaries written online, after each prompt, looked up by conversation
// and turn.
func ExampleScenario_onlineSummaries() {
	ctx := context.Background()
	summaryModel := scripted.New(scripted.Forever(scripted.Reply(`{"summary":"The agent offered TP123.","confidence":"high"}`)))
	fileSink := recorder.NewMemorySink()
	conversationID, turn := "trip-1", 0

	s, _ := summary.New(&summary.Config{Model: summaryModel})
	online, _ := summary.NewOnline(summary.OnlineConfig{Summarizer: s, Next: fileSink})
	defer online.Close(ctx)
	rec := recorder.New(online, nil)
	defer rec.Close(ctx)
	mw, _ := lookoutadk.New(ctx, &lookout.Config{Recorder: rec})
	// ... the agent runs with mw in its Handlers, wrapped by mw.Agent ...
	p, ok := online.Lookup(conversationID, turn)

	fmt.Println("before the run:", ok)
	agent, _ := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "travel", Description: "plans trips", Handlers: []adk.ChatModelAgentMiddleware{mw},
		Model: scripted.New(scripted.Forever(scripted.Reply("TP123 on Friday."))),
	})
	sc := &simulate.Scenario{Goal: "find a flight", ConversationID: conversationID, MaxTurns: 1}
	if _, err := (&simulate.Runner{UserModel: &lines{says: []string{"Any flights?"}}}).Run(ctx, sc, simtarget.Agent(ctx, mw.Agent(agent))); err != nil {
		fmt.Println(err)
		return
	}
	_ = rec.Flush(ctx)
	_ = online.Flush(ctx)
	p, ok = online.Lookup(conversationID, turn)
	fmt.Println(ok, p.Summary)
	// Output:
	// before the run: false
	// true The agent offered TP123.
}
