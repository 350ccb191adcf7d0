package atif

import (
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// legacyUserRecord is a message record whose user input is in Eino's
// deprecated multi_content field, as programs written against older Eino
// versions still send it.
const legacyUserRecord = `{"schema_version":1,"seq":1,"run_id":"r","parent_run_id":"","depth":0,` +
	`"recorded_at":"2025-10-11T10:30:01Z","kind":"message","payload":{"message":{"role":"user","content":"",` +
	`"multi_content":[{"type":"text","text":"what is this?"},` +
	`{"type":"image_url","image_url":{"url":"https://example.com/cat.png","mime_type":"image/png"}},` +
	`{"type":"video_url","video_url":{"url":"https://example.com/v.mp4"}}]}}}`

func TestFromRecordsKeepsUserInputInTheDeprecatedMultiContent(t *testing.T) {
	var rec recorder.Record
	if err := rec.UnmarshalJSON([]byte(legacyUserRecord)); err != nil {
		t.Fatal(err)
	}
	tp := newTape().start("r", "", "a", "")
	tp.records = append(tp.records, rec)
	tr := export(t, tp.records, nil)
	msg := tr.Steps[0].Message
	if !msg.IsParts() || len(msg.Parts) != 3 {
		t.Fatalf("message = %+v, want three parts", msg)
	}
	if p := msg.Parts[0]; p.Type != PartText || p.Text != "what is this?" {
		t.Errorf("part 0 = %+v", p)
	}
	if p := msg.Parts[1]; p.Type != PartImage || p.Source == nil || p.Source.Path != "https://example.com/cat.png" || p.Source.MediaType != "image/png" {
		t.Errorf("part 1 = %+v", p)
	}
	if p := msg.Parts[2]; p.Type != PartText || p.Text != "[video_url omitted]" {
		t.Errorf("part 2 = %+v", p)
	}
}

func TestFromRecordsKeepsAnAnswerGivenAsOutputParts(t *testing.T) {
	// A model may answer in assistant output parts and leave content
	// empty; the text is still the step's message.
	msg := &schema.Message{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "the answer"},
	}}
	tp := newTape().start("r", "", "a", "")
	tp.add("r", &recorder.ModelResponse{Message: msg})
	tp.add("r", &recorder.Message{Message: msg})
	tr := export(t, tp.records, nil)
	for i, s := range tr.Steps {
		if s.Message.PlainText() != "the answer" {
			t.Errorf("step %d message = %q, want the text of the output parts", i+1, s.Message.PlainText())
		}
	}
}
