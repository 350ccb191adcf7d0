package messages_test

import (
	"fmt"
	"os"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/messages"
)

func ExampleFromRecords() {
	var records []recorder.Record
	add := func(p recorder.Payload) {
		records = append(records, recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: uint64(len(records)), RunID: "run-1", Payload: p})
	}
	add(&recorder.Message{Message: schema.UserMessage("What is 6 × 7?")})
	add(&recorder.ModelResponse{Message: schema.AssistantMessage("", []schema.ToolCall{
		{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "multiply", Arguments: `{"a":6,"b":7}`}},
	})})
	add(&recorder.ToolEnded{CallID: "c1", Name: "multiply", Result: "42"})
	add(&recorder.ModelResponse{Message: schema.AssistantMessage("42", nil)})

	msgs, err := messages.FromRecords(records, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := messages.Write(os.Stdout, msgs); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"role":"user","content":"What is 6 × 7?"}
	// {"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"multiply","arguments":"{\"a\":6,\"b\":7}"}}]}
	// {"role":"tool","content":"42","tool_call_id":"c1"}
	// {"role":"assistant","content":"42"}
}
