package atif_test

import (
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// Two runs that share a session are two turns of one conversation,
// exported as one document and as a chain of two.
func ExampleFromConversation() {
	var records []recorder.Record
	turn := func(run string, n int, user, answer string) {
		add := func(p recorder.Payload) {
			records = append(records, recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: uint64(len(records)), RunID: run, Payload: p})
		}
		add(&recorder.RunStarted{AgentName: "travel", ConversationID: "conv-1", Turn: n})
		add(&recorder.Message{Message: schema.UserMessage(user)})
		add(&recorder.ModelResponse{Message: schema.AssistantMessage(answer, nil)})
		add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	}
	turn("run-1", 0, "Flights to Lisbon?", "TP123 at 09:00.")
	turn("run-2", 1, "Book it.", "Booked.")

	t, err := atif.FromConversation(records, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("session", t.SessionID)
	for _, s := range t.Steps {
		fmt.Printf("step %d %s %q\n", s.StepID, s.Source, s.Message.PlainText())
	}
	chain, _ := atif.ConversationChain(records, nil, "conv.trajectory.json")
	for _, d := range chain {
		fmt.Printf("%s: %d steps, continued in %q\n", d.Name, len(d.Trajectory.Steps), d.Trajectory.ContinuedTrajectoryRef)
	}
	// Output:
	// session conv-1
	// step 1 user "Flights to Lisbon?"
	// step 2 agent "TP123 at 09:00."
	// step 3 user "Book it."
	// step 4 agent "Booked."
	// conv.trajectory.json: 2 steps, continued in "conv.trajectory.cont-1.json"
	// conv.trajectory.cont-1.json: 4 steps, continued in ""
}
