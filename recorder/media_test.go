package recorder

import (
	"bytes"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
)

func TestToolResultPartsAndExtrasSurviveTheirJSONForm(t *testing.T) {
	in := Record{SchemaVersion: SchemaVersion, RunID: "r", RecordedAt: time.Unix(1, 0).UTC(), Payload: &ToolEnded{
		CallID: "c1", Name: "screenshot", Result: "see image",
		Parts: []Part{
			{Type: PartText, Text: "see image"},
			{Type: PartImage, Media: &Media{MIMEType: "image/png", Data: []byte{1, 2, 3}}},
			{Type: PartImage, Media: &Media{MIMEType: "image/png", URL: "/big.png", SHA256: "ab", Size: 9 << 20}},
		},
		Extra: Extras{ExtraATIF: map[string]any{"k": "v"}},
	}}
	line, err := in.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(line), `"data":"AQID"`) {
		t.Errorf("inline media is not base64 in %s", line)
	}
	var out Record
	if err := out.UnmarshalJSON(line); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("read back %+v\nwant      %+v", out.Payload, in.Payload)
	}
}

func TestRedactionReachesTheTextPartsOfAToolResult(t *testing.T) {
	rs := redaction{others: []Redactor{RedactFunc(func(s string) string { return strings.ReplaceAll(s, "secret", "[x]") })}}
	p := &ToolEnded{Result: "a secret", Parts: []Part{{Type: PartText, Text: "a secret"}, {Type: PartImage, Media: &Media{MIMEType: "image/png", Data: []byte{1}}}}}
	got := rs.toolEnded(p)
	if got.Parts[0].Text != "a [x]" || p.Parts[0].Text != "a secret" {
		t.Errorf("parts = %+v (original %+v), want the text part redacted in a copy", got.Parts, p.Parts)
	}
}

func TestMediaOverTheLimitIsKeptByHashAndSize(t *testing.T) {
	sink := NewMemorySink()
	rec := New(sink, &Options{MaxMediaBytes: 4})
	run, err := rec.StartRun(t.Context(), RunInfo{RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	small, big := []byte{1, 2, 3}, []byte("0123456789")
	parts := []Part{{Type: PartImage, Media: &Media{MIMEType: "image/png", Data: small}}, {Type: PartImage, Media: &Media{MIMEType: "image/png", Data: big}}}
	if err := run.ToolEnded(t.Context(), ToolEnded{Name: "camera", Parts: parts}); err != nil {
		t.Fatal(err)
	}
	inline := base64.StdEncoding.EncodeToString(big)
	msg := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &inline, MIMEType: "image/png"}}},
	}}
	if err := run.Message(t.Context(), msg); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	const bigHash = "84d89877f0d4041efb6bf91a16f0248f2fd573e6af05c19f96bedb9f882f7882"
	records := sink.Records()
	got := records[1].Payload.(*ToolEnded).Parts
	if !bytes.Equal(got[0].Media.Data, small) {
		t.Errorf("small image = %+v, want it inline", got[0].Media)
	}
	if m := got[1].Media; m.Data != nil || m.SHA256 != bigHash || m.Size != 10 {
		t.Errorf("big image = %+v, want its hash and size only", m)
	}
	if parts[1].Media.Data == nil {
		t.Error("the caller's parts were changed")
	}
	in := records[2].Payload.(*Message).Message.UserInputMultiContent[0]
	if in.Image.Base64Data != nil || in.Extra["sha256"] != bigHash || in.Extra["size"] != 10 {
		t.Errorf("big input image = %+v %v, want its hash and size only", in.Image, in.Extra)
	}
	if msg.UserInputMultiContent[0].Image.Base64Data == nil {
		t.Error("the caller's message was changed")
	}
}

func TestTheTextPartsOfALongResultAreCutAndRedactedLikeItsText(t *testing.T) {
	sink := NewMemorySink()
	rec := New(sink, &Options{MaxFieldBytes: 16})
	run, err := rec.StartRun(t.Context(), RunInfo{RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	long := "key sk-abcdefghijklmnopqrstuvwxyz0123 and then a great deal more text"
	parts := []Part{{Type: PartText, Text: long}, {Type: PartImage, Media: &Media{MIMEType: "image/png", Data: []byte{1}}}}
	if err := run.ToolEnded(t.Context(), ToolEnded{Name: "camera", Result: "short", Parts: parts}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := sink.Records()[1].Payload.(*ToolEnded)
	if !got.Truncated || len(got.Parts[0].Text) > 16 || strings.Contains(got.Parts[0].Text, "sk-") {
		t.Errorf("text part = %q (truncated %v), want it redacted and cut to 16 bytes", got.Parts[0].Text, got.Truncated)
	}
	if parts[0].Text != long {
		t.Error("the caller's parts were changed")
	}
}
