package openaicheck

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTheChatMessageSchemaRefusesWhatTheAPIRefuses(t *testing.T) {
	schema, ok := Find()
	if !ok {
		t.Skip("chat message schema not found next to the module")
	}
	tests := []struct {
		msg  string
		want string // a problem that must be reported; empty for valid
	}{
		{`{"role":"user","content":"hi"}`, ""},
		{`{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"https://x/a.png"}}]}`, ""},
		{`{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`, ""},
		{`{"role":"tool","content":"42","tool_call_id":"c1"}`, ""},
		{`{"role":"tool","content":"42"}`, `missing required "tool_call_id"`},
		{`{"role":"user","content":[{"type":"text"}]}`, `missing required "text"`},
		{`{"role":"user","content":[]}`, "0 items, want at least 1"},
		{`{"role":"robot","content":"hi"}`, "matches none"},
	}
	for _, tt := range tests {
		var v any
		dec := json.NewDecoder(strings.NewReader(tt.msg))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		problems := strings.Join(schema.Validate(v), "\n")
		if tt.want == "" && problems != "" {
			t.Errorf("%s: %s", tt.msg, problems)
		}
		if tt.want != "" && !strings.Contains(problems, tt.want) {
			t.Errorf("%s: problems %q do not say %q", tt.msg, problems, tt.want)
		}
	}
}
