package messages_test

import (
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/messages"
)

// A supervisor's query: the root holds the query, and the agent it
// transferred to, a child run, holds what its model was given, Eino's
// hand-over included.
func ExampleRuns() {
	var records []recorder.Record
	add := func(run, parent string, p recorder.Payload) {
		records = append(records, recorder.Record{SchemaVersion: recorder.SchemaVersion, RunID: run, ParentRunID: parent, Payload: p})
	}
	add("root", "", &recorder.RunStarted{AgentName: "supervisor"})
	add("root", "", &recorder.Message{Message: schema.UserMessage("Find x."), Origin: recorder.OriginQuery})
	add("child", "root", &recorder.RunStarted{AgentName: "researcher"})
	add("child", "root", &recorder.Message{Message: schema.UserMessage("Find x."), Origin: recorder.OriginQuery})
	add("child", "root", &recorder.Message{Message: schema.UserMessage("For context: [supervisor] handed over."), Origin: recorder.OriginContext})
	add("child", "root", &recorder.ModelResponse{Message: schema.AssistantMessage("x is 42.", nil)})

	runs, err := messages.Runs(records, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range runs {
		fmt.Printf("%s (%s, started by %q):\n", r.ID, r.Agent, r.ParentID)
		for _, m := range r.Messages {
			fmt.Printf("  %s: %s\n", m.Role, m.Content.Text)
		}
	}
	// Output:
	// root (supervisor, started by ""):
	//   user: Find x.
	// child (researcher, started by "root"):
	//   user: Find x.
	//   user: For context: [supervisor] handed over.
	//   assistant: x is 42.
}
