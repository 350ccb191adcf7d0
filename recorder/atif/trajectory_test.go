package atif

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeAndEncodeRoundTripEveryFixture(t *testing.T) {
	for _, file := range fixtureFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, tr := readFixture(t, file)
			out, err := Encode(tr)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(generic(t, data), generic(t, out)) {
				t.Errorf("re-encoded document differs from the fixture:\n%s", out)
			}
			if problems := Validate(out); problems != nil {
				t.Errorf("re-encoded document is invalid: %v", problems)
			}
		})
	}
}

func generic(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDecodeKeepsLargeIntegersInFreeFormMaps(t *testing.T) {
	doc := `{"schema_version":"ATIF-v1.8","agent":{"name":"a","version":"1","extra":{"seed":9007199254740993}},
		"steps":[{"step_id":1,"source":"user","message":"hi"}]}`
	tr, err := Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(tr.Agent.Extra)
	if string(out) != `{"seed":9007199254740993}` {
		t.Errorf("extra = %s, want the integer unchanged", out)
	}
}

func TestDecodeRejectsMalformedInput(t *testing.T) {
	for _, input := range []string{"", "{", `{"steps":"x"}`, `{"steps":[{"message":7}]}`, `{} x`} {
		if _, err := Decode([]byte(input)); !errors.Is(err, ErrMalformed) {
			t.Errorf("Decode(%q) error = %v, want ErrMalformed", input, err)
		}
	}
}

func TestContentEncodesAsStringOrList(t *testing.T) {
	tests := []struct {
		name    string
		content Content
		want    string
	}{
		{"zero value is the empty string", Content{}, `""`},
		{"text", Text("hi"), `"hi"`},
		{"no parts is an empty list", Parts(), `[]`},
		{"a text part always carries text", Parts(ContentPart{Type: PartText}), `[{"type":"text","text":""}]`},
		{"an image part carries its source", Parts(ContentPart{Type: PartImage, Source: &MediaSource{MediaType: "image/png", Path: "a.png"}}),
			`[{"type":"image","source":{"media_type":"image/png","path":"a.png"}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.content)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			var back Content
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tt.content) {
				t.Errorf("decoded %#v, want %#v", back, tt.content)
			}
		})
	}
}

func TestContentPlainText(t *testing.T) {
	c := Parts(
		ContentPart{Type: PartText, Text: "look"},
		ContentPart{Type: PartImage, Source: &MediaSource{MediaType: "image/png", Path: "a.png"}},
		ContentPart{Type: PartText, Text: "here"},
	)
	if got := c.PlainText(); got != "look\nhere" {
		t.Errorf("PlainText() = %q", got)
	}
	if got := Text("plain").PlainText(); got != "plain" {
		t.Errorf("PlainText() = %q", got)
	}
}

func TestEffortKeepsLabelsAndNumbersApart(t *testing.T) {
	for _, in := range []string{`"medium"`, `""`, `0.5`, `0`} {
		var e Effort
		if err := json.Unmarshal([]byte(in), &e); err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(e)
		if string(out) != in {
			t.Errorf("%s round-tripped to %s", in, out)
		}
	}
	var e Effort
	if err := json.Unmarshal([]byte(`true`), &e); err == nil {
		t.Error("a boolean effort decoded without error")
	}
}

func TestNilCollectionsEncodeAsRequired(t *testing.T) {
	step := Step{StepID: 1, Source: SourceAgent, ToolCalls: []ToolCall{{ID: "c", FunctionName: "f"}}, Observation: &Observation{}}
	out, err := json.Marshal(step)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"c","function_name":"f","arguments":{}}],"observation":{"results":[]}}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

func TestEncodeLeavesHTMLCharactersAlone(t *testing.T) {
	tr := &Trajectory{
		SchemaVersion: Version,
		Agent:         Agent{Name: "a & b", Version: "1"},
		Steps: []Step{{StepID: 1, Source: SourceAgent, Message: Text("<b>bold</b> & more"), ReasoningContent: "x < y",
			ToolCalls: []ToolCall{{ID: "c", FunctionName: "f", Arguments: json.RawMessage(`{"q":"<tag>"}`)}}}},
	}
	out, err := Encode(tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"a & b"`, `"<b>bold</b> & more"`, `"x < y"`, `"<tag>"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s not written as is:\n%s", want, out)
		}
	}
}

func TestDecodeTakesTheLastOfDuplicateKeys(t *testing.T) {
	doc := `{"agent":{"name":"a","version":"1"},"steps":[{"step_id":"one","step_id":1,"source":"user","message":7,"message":"hi"}]}`
	if p := Validate([]byte(doc)); p != nil {
		t.Fatalf("Validate: %v", p)
	}
	tr, err := Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Steps[0].StepID != 1 || tr.Steps[0].Message.Text != "hi" {
		t.Errorf("step = %+v", tr.Steps[0])
	}
}
