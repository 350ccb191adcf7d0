package recorder

import (
	"reflect"
	"strings"
	"testing"
	"time"
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
