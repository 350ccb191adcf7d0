package atif

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

// conversationTape records a conversation of two turns, each with a tool
// call, a child run and the same assessment shown to the model.
func conversationTape() *tape {
	shown := []recorder.InjectedMessage{{Kind: recorder.InjectedAssessment, Role: "user", Content: "## Trajectory Assessment\n\nall well", AfterCallIndex: 0}}
	tp := newTape()
	for i, run := range []string{"turn-1", "turn-2"} {
		kid := "kid-" + run
		tp.add(run, &recorder.RunStarted{AgentName: "a", ConversationID: "conv", Turn: i}).user(run, "go").
			reply(run, "", 3, 1, "c1", "helper", `{}`).toolStart(run, "c1", "helper", "{}")
		tp.parents[kid] = run
		tp.add(kid, &recorder.RunStarted{AgentName: "helper", ParentToolCallID: "c1"}).reply(kid, "done", 1, 1).end(kid).
			toolEnd(run, "c1", "helper", "done").
			add(run, &recorder.AssessmentRecord{Markdown: shown[0].Content, AfterCallIndex: 0}).
			add(run, &recorder.ModelRequest{Injected: shown}).
			reply(run, "answer", 5, 2).end(run)
	}
	return tp
}

// A conversation document imports as its turns and exports again as
// itself, with no key path lost or added.
func TestAConversationDocumentRoundTrips(t *testing.T) {
	first, err := FromConversation(conversationTape().records, nil)
	if err != nil {
		t.Fatal(err)
	}
	records, err := ToRecords(first)
	if err != nil {
		t.Fatal(err)
	}
	if got := Conversations(records); len(got) != 1 || got[0] != "conv" {
		t.Fatalf("conversations = %v, want [conv]", got)
	}
	second, err := FromConversation(throughJSONL(t, records), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := plainJSON(t, first), plainJSON(t, second)
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		t.Errorf("the document changed:\n%s\nbecame\n%s", ja, jb)
	}
}

// plainJSON is tr encoded and decoded as plain JSON values.
func plainJSON(t *testing.T, tr *Trajectory) any {
	t.Helper()
	data, err := Encode(tr)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
