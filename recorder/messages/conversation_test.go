package messages_test

import (
	"errors"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/messages"
)

func TestFromConversationJoinsTurnsAndRefusesWhatItCannotPick(t *testing.T) {
	var records []recorder.Record
	turn := func(run, conv string, n int, user string) {
		for i, p := range []recorder.Payload{
			&recorder.RunStarted{ConversationID: conv, Turn: n},
			&recorder.Message{Message: schema.UserMessage(user)},
			&recorder.ModelResponse{Message: schema.AssistantMessage("ok "+user, nil)},
		} {
			records = append(records, recorder.Record{Seq: uint64(i), RunID: run, Payload: p})
		}
	}
	turn("b", "c1", 1, "second") // recorded out of turn order
	turn("a", "c1", 0, "first")
	msgs, err := messages.FromConversation(records, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Content.Text)
	}
	if want := []string{"first", "ok first", "second", "ok second"}; len(got) != 4 || got[0] != want[0] || got[2] != want[2] || got[3] != want[3] {
		t.Errorf("messages = %q, want %q", got, want)
	}
	turn("c", "c2", 0, "other")
	if _, err := messages.FromConversation(records, "", nil); !errors.Is(err, messages.ErrAmbiguousRoot) {
		t.Errorf("two conversations, none picked: %v", err)
	}
	if _, err := messages.FromConversation(records, "c3", nil); !errors.Is(err, messages.ErrNoRootRun) {
		t.Errorf("a conversation not in the records: %v", err)
	}
}
