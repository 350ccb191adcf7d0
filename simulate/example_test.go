package simulate_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/simulate"
)

// lines is a user model that says its lines in order, then repeats the last.
type lines struct {
	mu   sync.Mutex
	says []string
}

func (l *lines) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.says[0]
	if len(l.says) > 1 {
		l.says = l.says[1:]
	}
	return schema.AssistantMessage(s, nil), nil
}

func (l *lines) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := l.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{m}), nil
}

// bookingAgent searches when asked about flights and books when asked to.
var bookingAgent = simulate.TargetFunc(func(_ context.Context, h []*schema.Message) ([]*schema.Message, error) {
	q := h[len(h)-1].Content
	call := func(name, args, result, reply string) []*schema.Message {
		return []*schema.Message{
			schema.AssistantMessage("", []schema.ToolCall{{ID: name + "-1", Function: schema.FunctionCall{Name: name, Arguments: args}}}),
			schema.ToolMessage(result, name+"-1", schema.WithToolName(name)),
			schema.AssistantMessage(reply, nil),
		}
	}
	switch {
	case strings.Contains(q, "flights"):
		return call("search_flights", `{"to":"LIS"}`, "TP123 09:00 €120", "TP123 leaves at 09:00 for €120."), nil
	case strings.Contains(q, "book"):
		return call("book", `{"flight":"TP123"}`, "confirmation ABC", "Booked, confirmation ABC."), nil
	}
	return []*schema.Message{schema.AssistantMessage("How can I help?", nil)}, nil
})

func Example() {
	ctx := context.Background()
	scenario := &simulate.Scenario{
		Goal:           "book a flight to Lisbon",
		Persona:        simulate.Persona{Name: "Ana", Description: "a busy nurse", Guardrails: []string{"never give card numbers"}},
		ConversationID: "example-1",
		Graph: &simulate.Graph{
			Start:     "search",
			Terminals: []string{"book"},
			Steps: []simulate.Step{
				{ID: "search", Instruction: "ask for flights to Lisbon"},
				{ID: "book", Instruction: "ask to book the cheapest", Preconditions: []simulate.Precondition{simulate.After("search")}},
			},
		},
		// Reaching the "book" step is not enough: the agent must really book.
		Goals: []simulate.Goal{simulate.ToolCalled("book")},
	}
	runner := &simulate.Runner{
		UserModel: &lines{says: []string{"Any flights to Lisbon on Friday?", "Please book TP123."}},
	}
	res, err := runner.Run(ctx, scenario, bookingAgent)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range res.Traces {
		fmt.Printf("turn %d [%s via %s] user: %s\n", t.Turn, t.StepID, t.Selection.Method, t.User.Content)
		fmt.Printf("  agent: %s\n", t.Agent[len(t.Agent)-1].Content)
	}
	fmt.Println(res.End.Reason, res.End.Completed)
	fmt.Println(res.Summary())
	// Output:
	// turn 0 [search via start] user: Any flights to Lisbon on Friday?
	//   agent: TP123 leaves at 09:00 for €120.
	// turn 1 [book via preconditions-ordered] user: Please book TP123.
	//   agent: Booked, confirmation ABC.
	// goal-reached true
	// example-1: stopped with goal-reached after 2 turns; goal completed.
	// Steps: search satisfied (1 attempt), book satisfied (1 attempt).
	// Goals: called book met in turn 1.
}

func ExampleResult_WriteJSONL() {
	clock := func() time.Time { return time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC) }
	runner := &simulate.Runner{UserModel: &lines{says: []string{"Any flights to Lisbon?"}}, Clock: clock}
	res, _ := runner.Run(context.Background(), &simulate.Scenario{Goal: "find a flight", ConversationID: "c1", MaxTurns: 1}, bookingAgent)
	res.WriteJSONL(os.Stdout)
	// Output:
	// {"conversationId":"c1","stepIndex":0,"input":{"role":"user","content":"Any flights to Lisbon?"},"output":[{"role":"assistant","content":"","tool_calls":[{"id":"search_flights-1","type":"function","function":{"name":"search_flights","arguments":"{\"to\":\"LIS\"}"}}]},{"role":"tool","content":"TP123 09:00 €120","name":"search_flights","tool_call_id":"search_flights-1"},{"role":"assistant","content":"TP123 leaves at 09:00 for €120."}],"timestamp":"2025-05-01T12:00:00Z","metadata":{"end":{"reason":"max-turns","completed":false,"summary":"c1: stopped with max-turns after 1 turn; goal not completed.","turns":1},"selection":"none"}}
}

func ExampleBatch() {
	out, _ := os.MkdirTemp("", "simulate-example")
	defer os.RemoveAll(out)
	batch := &simulate.Batch{
		Scenarios: []*simulate.Scenario{
			{Name: "lisbon", Goal: "find a flight to Lisbon", MaxTurns: 2},
			{Name: "chat", Goal: "say hello", MaxTurns: 1},
		},
		Repetitions: 2,
		Concurrency: 4,
		OutDir:      out,
		// Scripted models keep state, so each run gets its own.
		Setup: func(context.Context, simulate.Job) (*simulate.Runner, simulate.Target, error) {
			return &simulate.Runner{UserModel: &lines{says: []string{"flights to Lisbon?"}}}, bookingAgent, nil
		},
		Progress: io.Discard,
	}
	rep, err := batch.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range rep.Jobs {
		fmt.Println(j.Job.Index, j.Job.ID, j.End.Reason)
	}
	// Running again resumes: every run already has its done marker.
	rep, _ = batch.Run(context.Background())
	fmt.Printf("ran %d, skipped %d\n", rep.Ran, rep.Skipped)
	// Output:
	// 0 lisbon-r0 max-turns
	// 1 lisbon-r1 max-turns
	// 2 chat-r0 max-turns
	// 3 chat-r1 max-turns
	// ran 0, skipped 4
}

func ExampleToolCalledWith() {
	toLisbon := simulate.ToolCalledWith("search_flights", func(c simulate.ToolCall) bool {
		var args struct{ To string }
		return c.Args(&args) == nil && args.To == "LIS"
	})
	runner := &simulate.Runner{UserModel: &lines{says: []string{"hi", "flights please"}}}
	res, _ := runner.Run(context.Background(), &simulate.Scenario{Goal: "find a flight", Goals: []simulate.Goal{toLisbon}}, bookingAgent)
	fmt.Println(res.End.Reason, "after", res.End.Turns, "turns")
	// Output:
	// goal-reached after 2 turns
}
