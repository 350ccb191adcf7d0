package messages

import (
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

func TestFromRecordsOrdersResultsOfCallsWithoutIDsByCall(t *testing.T) {
	// Some providers leave tool call ids empty: each result still follows
	// the assistant message, in the order of its calls, matched by tool,
	// and each call gets an id its tool message names.
	tp := newRunTape().
		msg("r", schema.UserMessage("find it")).
		reply("r", "", call("", "search", `{"q":"x"}`), call("", "fetch", `{"u":"y"}`)).
		add("r", &recorder.ToolEnded{Name: "fetch", Result: "page"}).
		add("r", &recorder.ToolEnded{Name: "search", Result: "hits"}).
		reply("r", "done")
	msgs, err := FromRecords(tp.records, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"user","content":"find it"}
{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{\"q\":\"x\"}"}},{"id":"call_2","type":"function","function":{"name":"fetch","arguments":"{\"u\":\"y\"}"}}]}
{"role":"tool","content":"hits","tool_call_id":"call_1"}
{"role":"tool","content":"page","tool_call_id":"call_2"}
{"role":"assistant","content":"done"}
`
	if got := jsonl(t, msgs); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFromRecordsKeepsResultsOfCallsThatShareAnIDWithTheirMessage(t *testing.T) {
	// Two calls with one id: the first result is the first call's, and
	// both follow the assistant message before anything recorded later.
	tp := newRunTape().
		reply("r", "", call("dup", "fetch", `{"u":"a"}`), call("dup", "fetch", `{"u":"b"}`)).
		result("r", "dup", "A").
		add("r", &recorder.AssessmentRecord{Markdown: "note"}).
		result("r", "dup", "B")
	msgs, err := FromRecords(tp.records, &Options{Assessments: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Role)+":"+m.Content.Text)
	}
	want := []string{"assistant:", "tool:A", "tool:B", "system:note"}
	if len(got) != len(want) {
		t.Fatalf("messages = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("messages = %q, want %q", got, want)
			break
		}
	}
}
