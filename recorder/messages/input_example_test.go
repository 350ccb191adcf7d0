package messages_test

import (
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/messages"
)

// The input of a run's last model call, as the model received it: the
// conversation so far, the failed tool's result as it read it, and the
// messages Lookout injected into that call.
func ExampleModelInput() {
	var records []recorder.Record
	add := func(p recorder.Payload) {
		records = append(records, recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: uint64(len(records)), RunID: "run-1", Payload: p})
	}
	add(&recorder.Message{Message: schema.UserMessage("Deploy the service.")})
	add(&recorder.ModelRequest{Injected: []recorder.InjectedMessage{}})
	add(&recorder.ModelResponse{Message: schema.AssistantMessage("", []schema.ToolCall{
		{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "deploy", Arguments: `{}`}},
	})})
	add(&recorder.ToolEnded{CallID: "c1", Name: "deploy", Result: "Error: disk full", IsError: true, Error: "disk full"})
	add(&recorder.ModelRequest{Injected: []recorder.InjectedMessage{
		{Kind: recorder.InjectedWrapUp, Role: "user", Content: "## Budget nearly spent"},
	}})
	add(&recorder.ModelResponse{Message: schema.AssistantMessage("The deploy failed: the disk is full.", nil)})

	input, err := messages.ModelInput(records, nil, -1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range input {
		fmt.Printf("%s: %q\n", m.Role, m.Content.Text)
	}
	// Output:
	// user: "Deploy the service."
	// assistant: ""
	// tool: "Error: disk full"
	// user: "## Budget nearly spent"
}
