package simtarget

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/simulate"
)

// BenchmarkBatchADK runs the simulation throughput target end to end: 200
// conversations of 10 turns at concurrency 8, each against its own ADK
// ChatModelAgent on a scripted model that calls one tool per turn and then
// answers.
func BenchmarkBatchADK(b *testing.B) {
	const conversations, turns = 200, 10
	scs := make([]*simulate.Scenario, conversations)
	for i := range scs {
		scs[i] = &simulate.Scenario{Name: fmt.Sprintf("s%03d", i), Goal: "plan a trip", MaxTurns: turns}
	}
	agentTurn := scripted.Func(func(_ context.Context, in []*schema.Message, _ *model.Options) (*schema.Message, error) {
		if in[len(in)-1].Role == schema.Tool {
			return schema.AssistantMessage("TP123 leaves at 09:00.", nil), nil
		}
		return schema.AssistantMessage("", []schema.ToolCall{{Function: schema.FunctionCall{Name: "search_flights", Arguments: `{"to":"LIS"}`}}}), nil
	})
	setup := func(ctx context.Context, _ simulate.Job) (*simulate.Runner, simulate.Target, error) {
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "travel", Description: "plans trips", Instruction: "You plan trips.",
			Model:       scripted.New(scripted.Forever(agentTurn)).WithCapture(false),
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: travelTools()[:1]}},
		})
		if err != nil {
			return nil, nil, err
		}
		user := scripted.New(scripted.Forever(scripted.Reply("Any flights to Lisbon?"))).WithCapture(false)
		return &simulate.Runner{UserModel: user}, Agent(ctx, agent), nil
	}
	b.ReportAllocs()
	for b.Loop() {
		batch := &simulate.Batch{Scenarios: scs, Concurrency: 8, Setup: setup, Progress: io.Discard}
		rep, err := batch.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if rep.Ran != conversations || rep.Failed != 0 {
			b.Fatalf("ran %d, failed %d", rep.Ran, rep.Failed)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*conversations*turns), "ns/turn")
}
