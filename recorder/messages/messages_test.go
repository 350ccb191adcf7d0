package messages

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// runTape appends records with dense seqs per run.
type runTape struct {
	seqs    map[string]uint64
	parents map[string]string
	records []recorder.Record
}

func newRunTape() *runTape {
	return &runTape{seqs: map[string]uint64{}, parents: map[string]string{}}
}

func (tp *runTape) add(run string, p recorder.Payload) *runTape {
	tp.records = append(tp.records, recorder.Record{
		SchemaVersion: recorder.SchemaVersion, Seq: tp.seqs[run], RunID: run, ParentRunID: tp.parents[run],
		RecordedAt: time.Unix(int64(len(tp.records)), 0), Payload: p,
	})
	tp.seqs[run]++
	return tp
}

func (tp *runTape) msg(run string, m *schema.Message) *runTape {
	return tp.add(run, &recorder.Message{Message: m})
}

func call(id, name, args string) schema.ToolCall {
	return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
}

func (tp *runTape) reply(run, text string, calls ...schema.ToolCall) *runTape {
	return tp.add(run, &recorder.ModelResponse{Message: schema.AssistantMessage(text, calls)})
}

func (tp *runTape) result(run, id, text string) *runTape {
	return tp.add(run, &recorder.ToolEnded{CallID: id, Name: "t", Result: text})
}

func jsonl(t *testing.T, msgs []Message) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, msgs); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestFromRecordsOrdersToolResultsByCall(t *testing.T) {
	tp := newRunTape().
		add("r", &recorder.RunStarted{AgentName: "a"}).
		msg("r", schema.SystemMessage("be brief")).
		msg("r", schema.UserMessage("price & volume?")).
		add("r", &recorder.ModelRequest{Model: "m"}).
		reply("r", "", call("c1", "quote", `{"m":"price"}`), call("c2", "quote", `{"m":"volume"}`)).
		add("r", &recorder.ToolStarted{CallID: "c1", Name: "quote"}).
		result("r", "c2", "1.5M").
		add("r", &recorder.ToolEnded{CallID: "c1", Name: "quote", IsError: true, Error: "<timeout>"}).
		reply("r", "Volume is 1.5M; price unavailable.").
		add("r", &recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	msgs, err := FromRecords(tp.records, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"system","content":"be brief"}
{"role":"user","content":"price & volume?"}
{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"quote","arguments":"{\"m\":\"price\"}"}},{"id":"c2","type":"function","function":{"name":"quote","arguments":"{\"m\":\"volume\"}"}}]}
{"role":"tool","content":"<timeout>","tool_call_id":"c1"}
{"role":"tool","content":"1.5M","tool_call_id":"c2"}
{"role":"assistant","content":"Volume is 1.5M; price unavailable."}
`
	if got := jsonl(t, msgs); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestFromRecordsKeepsStrayResultsInPlaceAsUserMessages(t *testing.T) {
	// A tool message must answer a call of the assistant message before
	// it; a result no call waits for is kept where it came, as what the
	// model read.
	tp := newRunTape().
		msg("r", schema.UserMessage("hi")).
		result("r", "", "tick").
		reply("r", "", call("c1", "f", "")).
		result("r", "c9", "unknown call").
		result("r", "c1", "first").
		result("r", "c1", "duplicate")
	msgs, err := FromRecords(tp.records, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"user","content":"hi"}
{"role":"user","content":"tick"}
{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}
{"role":"tool","content":"first","tool_call_id":"c1"}
{"role":"user","content":"unknown call"}
{"role":"user","content":"duplicate"}
`
	if got := jsonl(t, msgs); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestFromRecordsMessageRolesAndParts(t *testing.T) {
	url, data := "https://example.com/a.png", "AAAA"
	user := &schema.Message{Role: schema.User, Name: "ana", UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "what are these?"},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}, Detail: schema.ImageURLDetailLow}},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: "image/png"}}},
		{Type: schema.ChatMessagePartTypeAudioURL},
	}}
	history := schema.AssistantMessage("earlier", []schema.ToolCall{call("c0", "f", `{}`)})
	history.ReasoningContent = "hidden"
	tp := newRunTape().msg("r", user).msg("r", history).msg("r", schema.ToolMessage("old", "c0"))
	msgs, err := FromRecords(tp.records, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"user","content":[{"type":"text","text":"what are these?"},{"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"low"}},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"[audio_url omitted]"}],"name":"ana"}
{"role":"assistant","content":"earlier","tool_calls":[{"id":"c0","type":"function","function":{"name":"f","arguments":"{}"}}]}
{"role":"tool","content":"old","tool_call_id":"c0"}
`
	if got := jsonl(t, msgs); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestFromRecordsOptions(t *testing.T) {
	m := schema.AssistantMessage("the key is sk-123", nil)
	m.ReasoningContent = "sk-123 looks right"
	tp := newRunTape().
		msg("r", schema.UserMessage("use sk-123")).
		add("r", &recorder.AssessmentRecord{Markdown: "**stall** suspected"}).
		add("r", &recorder.ModelResponse{Message: m})
	hide := recorder.RedactFunc(func(s string) string { return strings.ReplaceAll(s, "sk-123", "[REDACTED]") })

	plain, _ := FromRecords(tp.records, nil)
	if len(plain) != 2 || plain[1].ReasoningContent != "" {
		t.Errorf("defaults: %+v, want no assessment and no reasoning", plain)
	}
	all, err := FromRecords(tp.records, &Options{Reasoning: true, Assessments: true, Redactor: hide})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"user","content":"use [REDACTED]"}
{"role":"system","content":"**stall** suspected"}
{"role":"assistant","content":"the key is [REDACTED]","reasoning_content":"[REDACTED] looks right"}
`
	if got := jsonl(t, all); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestFromRecordsPicksARun(t *testing.T) {
	tp := newRunTape().msg("root", schema.UserMessage("delegate"))
	tp.parents["child"] = "root"
	tp.msg("child", schema.UserMessage("inner task")).reply("child", "inner answer")
	tp.reply("root", "done")

	root, err := FromRecords(tp.records, nil)
	if err != nil || len(root) != 2 || root[1].Content.Text != "done" {
		t.Errorf("root run = %+v, %v", root, err)
	}
	child, err := FromRecords(tp.records, &Options{RunID: "child"})
	if err != nil || len(child) != 2 || child[0].Content.Text != "inner task" {
		t.Errorf("child run = %+v, %v", child, err)
	}
	if _, err := FromRecords(tp.records, &Options{RunID: "nope"}); !errors.Is(err, ErrNoRootRun) {
		t.Errorf("unknown run: %v", err)
	}
	if _, err := FromRecords(nil, nil); !errors.Is(err, ErrNoRootRun) {
		t.Errorf("no records: %v", err)
	}
	tp.msg("other", schema.UserMessage("second conversation"))
	_, err = FromRecords(tp.records, nil)
	var amb *AmbiguousRootError
	if !errors.As(err, &amb) || !reflect.DeepEqual(amb.RunIDs, []string{"root", "other"}) {
		t.Errorf("two roots: %v", err)
	}
}

func TestWriteAndReadRoundTrip(t *testing.T) {
	msgs := []Message{
		{Role: RoleSystem, Content: Content{Text: "a <b> & c"}},
		{Role: RoleUser, Content: Content{Parts: []Part{{Type: "text", Text: "x"}, {Type: "image_url", ImageURL: &ImageURL{URL: "u"}}}}},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Type: "function", Function: Function{Name: "f", Arguments: "{}"}}}},
		{Role: RoleTool, Content: Content{Text: "line\nbreak"}, ToolCallID: "c"},
	}
	var buf bytes.Buffer
	if err := Write(&buf, msgs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "a <b> & c") {
		t.Errorf("HTML was escaped: %s", buf.String())
	}
	if n := strings.Count(buf.String(), "\n"); n != len(msgs) {
		t.Errorf("%d lines for %d messages", n, len(msgs))
	}
	back, err := Read(strings.NewReader("\n" + buf.String() + "\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, msgs) {
		t.Errorf("read back %+v\nwant %+v", back, msgs)
	}
}

func TestReadReportsTheBadLine(t *testing.T) {
	input := `{"role":"user","content":"ok"}
{"role":"robot","content":"?"}
`
	msgs, err := Read(strings.NewReader(input))
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || !errors.Is(err, ErrMalformed) || len(msgs) != 1 {
		t.Errorf("msgs %v, err %v; want line 2 malformed after one message", msgs, err)
	}
	_, err = Read(strings.NewReader(`{"role":"user","content":7}`))
	if !errors.As(err, &le) || le.Line != 1 {
		t.Errorf("numeric content: %v", err)
	}
	msgs, err = Read(strings.NewReader(`{"role":"assistant","content":null}`))
	if err != nil || msgs[0].Content.Text != "" {
		t.Errorf("null content: %+v %v", msgs, err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"role":"user","content":"hi"}` + "\n" + `{"role":"tool","content":[{"type":"text","text":"x"}],"tool_call_id":"c"}`))
	f.Add([]byte(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`))
	f.Add([]byte("[\n]{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, msgs); err != nil {
			t.Fatalf("read messages do not write: %v", err)
		}
		again, err := Read(&buf)
		if err != nil || len(again) != len(msgs) {
			t.Fatalf("written messages do not read back: %d vs %d, %v", len(again), len(msgs), err)
		}
	})
}

func TestFromRecordsAnswersEveryCall(t *testing.T) {
	// A call whose result was never recorded still gets a tool message,
	// which the API requires before the next message.
	tp := newRunTape().
		reply("r", "", call("c1", "f", "{}"), call("c2", "g", "{}")).
		result("r", "c2", "ok").
		reply("r", "done")
	msgs, err := FromRecords(tp.records, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]}
{"role":"tool","content":"[no result was recorded for this call]","tool_call_id":"c1"}
{"role":"tool","content":"ok","tool_call_id":"c2"}
{"role":"assistant","content":"done"}
`
	if got := jsonl(t, msgs); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestATextPartAlwaysCarriesItsText(t *testing.T) {
	got, err := json.Marshal(Content{Parts: []Part{{Type: "text"}}})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `[{"type":"text","text":""}]` {
		t.Errorf("got %s", got)
	}
}

func TestFromRecordsGivesInlineWAVAndMP3AsInputAudio(t *testing.T) {
	wav, ogg := "UklGRg==", "T2dnUw=="
	m := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeAudioURL, Audio: &schema.MessageInputAudio{MessagePartCommon: schema.MessagePartCommon{Base64Data: &wav, MIMEType: "audio/wav"}}},
		{Type: schema.ChatMessagePartTypeAudioURL, Audio: &schema.MessageInputAudio{MessagePartCommon: schema.MessagePartCommon{Base64Data: &ogg, MIMEType: "audio/ogg"}}},
	}}
	msgs, err := FromRecords(newRunTape().msg("r", m).records, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},{"type":"text","text":"[audio_url omitted]"}]}
`
	if got := jsonl(t, msgs); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A model call attempt that failed says nothing: the retry's reply is the
// assistant's only message.
func TestFromRecordsLeavesOutAFailedAttempt(t *testing.T) {
	tp := newRunTape().
		add("r", &recorder.RunStarted{AgentName: "a"}).
		msg("r", schema.UserMessage("hi")).
		add("r", &recorder.ModelRequest{Model: "m"}).
		add("r", &recorder.ModelResponse{Error: "HTTP 500"}).
		add("r", &recorder.ModelRequest{Model: "m"}).
		reply("r", "hello").
		add("r", &recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	msgs, err := FromRecords(tp.records, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"user","content":"hi"}
{"role":"assistant","content":"hello"}
`
	if got := jsonl(t, msgs); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
