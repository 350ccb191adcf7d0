package atif_test

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// records returns a short run: a question, one model turn with two
// parallel tool calls, and the answer.
func records() []recorder.Record {
	at := time.Date(2025, 10, 11, 10, 30, 0, 0, time.UTC)
	var out []recorder.Record
	add := func(p recorder.Payload) {
		out = append(out, recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: uint64(len(out)),
			RunID: "run-1", RecordedAt: at.Add(time.Duration(len(out)) * time.Second), Payload: p})
	}
	call := func(id, metric string) schema.ToolCall {
		return schema.ToolCall{ID: id, Type: "function",
			Function: schema.FunctionCall{Name: "quote", Arguments: `{"ticker":"GOOGL","metric":"` + metric + `"}`}}
	}
	add(&recorder.RunStarted{AgentName: "analyst"})
	add(&recorder.Message{Message: schema.UserMessage("Price and volume of GOOGL?")})
	add(&recorder.ModelRequest{Model: "gpt-4o"})
	add(&recorder.ModelResponse{
		Message:       schema.AssistantMessage("", []schema.ToolCall{call("c1", "price"), call("c2", "volume")}),
		Usage:         recorder.TokenUsage{PromptTokens: 520, CompletionTokens: 80},
		UsageReported: true,
	})
	add(&recorder.ToolEnded{CallID: "c2", Name: "quote", Result: "1.5M shares"})
	add(&recorder.ToolEnded{CallID: "c1", Name: "quote", Result: "$185.35"})
	add(&recorder.ModelRequest{Model: "gpt-4o"})
	add(&recorder.ModelResponse{
		Message:       schema.AssistantMessage("GOOGL trades at $185.35 on 1.5M shares.", nil),
		Usage:         recorder.TokenUsage{PromptTokens: 600, CompletionTokens: 44},
		UsageReported: true,
	})
	add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	return out
}

func ExampleFromRecords() {
	t, err := atif.FromRecords(records(), &atif.Options{AgentVersion: "v1.0.0"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range t.Steps {
		fmt.Printf("step %d %s %q", s.StepID, s.Source, s.Message.PlainText())
		for _, c := range s.ToolCalls {
			fmt.Printf(" call %s%s", c.ID, c.Arguments)
		}
		if s.Observation != nil {
			for _, r := range s.Observation.Results {
				fmt.Printf(" result %s=%q", r.SourceCallID, r.Content.PlainText())
			}
		}
		fmt.Println()
	}
	fmt.Println("tokens:", *t.FinalMetrics.TotalPromptTokens, *t.FinalMetrics.TotalCompletionTokens)
	fmt.Println("valid:", t.Validate() == nil)
	// Output:
	// step 1 user "Price and volume of GOOGL?"
	// step 2 agent "" call c1{"ticker":"GOOGL","metric":"price"} call c2{"ticker":"GOOGL","metric":"volume"} result c1="$185.35" result c2="1.5M shares"
	// step 3 agent "GOOGL trades at $185.35 on 1.5M shares."
	// tokens: 1120 124
	// valid: true
}

func ExampleValidate() {
	doc := `{
	  "schema_version": "ATIF-v1.8",
	  "agent": {"name": "demo", "version": "1"},
	  "steps": [
	    {"step_id": 1, "source": "user", "message": "hi", "model_name": "gpt-4o"},
	    {"step_id": 3, "source": "agent", "message": "",
	     "tool_calls": [{"tool_call_id": "a", "function_name": "f", "arguments": {}}],
	     "observation": {"results": [{"source_call_id": "b", "content": "?"}]}}
	  ]
	}`
	for _, p := range atif.Validate([]byte(doc)) {
		fmt.Println(p.Path, p.Rule)
	}
	// Output:
	// steps[0].model_name agent_only
	// steps[1].step_id step_order
	// steps[1].observation.results[0].source_call_id source_call_id
}

func ExampleToRecords() {
	t, _ := atif.FromRecords(records(), &atif.Options{AgentVersion: "v1.0.0"})
	back, err := atif.ToRecords(t)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range back {
		fmt.Println(r.Seq, r.Kind())
	}
	// Output:
	// 0 run_started
	// 1 message
	// 2 model_request
	// 3 model_response
	// 4 tool_started
	// 5 tool_started
	// 6 tool_ended
	// 7 tool_ended
	// 8 model_request
	// 9 model_response
	// 10 run_ended
}

func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "atif-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	t, _ := atif.FromRecords(records(), nil)

	_, err = atif.WriteFile(dir, "../outside.json", t)
	fmt.Println(errors.Is(err, atif.ErrUnsafePath))

	path, err := atif.WriteFile(dir, "run-1.trajectory.json", t)
	fmt.Println(err)
	problems, _ := atif.ValidateFile(path, nil)
	fmt.Println(len(problems), "problems")
	// Output:
	// true
	// <nil>
	// 0 problems
}
