package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// travelResult runs a small scenario with a tool call, on a fixed clock.
func travelResult(t *testing.T) *Result {
	t.Helper()
	sc := &Scenario{
		Name: "trip", Goal: "book a trip", ConversationID: "conv-1",
		Persona:  Persona{Name: "Ana", Description: "traveller"},
		Metadata: map[string]any{"suite": "smoke"},
		Graph: &Graph{Start: "ask", Terminals: []string{"book"}, Steps: []Step{
			{ID: "ask", Instruction: "ask for flights", Hints: []string{"May"}},
			{ID: "book", Instruction: "book", Preconditions: []Precondition{After("ask"), When("has flights", func(context.Context, Progress) (bool, error) { return true, nil })}, MaxAttempts: 2, Timeout: time.Minute},
		}},
		Goals: []Goal{ToolCalled("search")},
	}
	r := &Runner{UserModel: stepUser(), Ranker: fixedRanking(), Clock: newClock(time.Second).Now}
	res, err := r.Run(context.Background(), sc, toolTarget(func(int) string { return "search" }))
	require.NoError(t, err)
	require.Len(t, res.Traces, 1, "the goal is met in the first turn")
	return res
}

func TestJSONLFormat(t *testing.T) {
	res := travelResult(t)
	var buf bytes.Buffer
	require.NoError(t, res.WriteJSONL(&buf))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, 1)

	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &raw))
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"conversationId", "stepIndex", "input", "output", "timestamp", "metadata"}, keys)

	want := `{
	  "conversationId": "conv-1",
	  "stepIndex": 0,
	  "input": {"role": "user", "content": "I want to ask for flights"},
	  "output": [
	    {"role": "assistant", "content": "", "tool_calls": [{"id": "call-search", "type": "function", "function": {"name": "search", "arguments": "{\"city\":\"Lisbon\"}"}}]},
	    {"role": "tool", "content": "search done", "name": "search", "tool_call_id": "call-search"},
	    {"role": "assistant", "content": "done with search"}
	  ],
	  "timestamp": "2025-01-02T03:04:07Z"
	}`
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &got))
	meta := got["metadata"].(map[string]any)
	delete(got, "metadata")
	assert.JSONEq(t, want, mustJSON(t, got))
	assert.Equal(t, "ask", meta["stepId"])
	assert.Equal(t, "start", meta["selection"])
	assert.Equal(t, map[string]any{"suite": "smoke"}, meta["scenario"])
	assert.Equal(t, "goal-reached", meta["end"].(map[string]any)["reason"])

	back, err := ReadJSONL(strings.NewReader(buf.String() + "\n" + buf.String()))
	require.NoError(t, err)
	require.Len(t, back, 2, "concatenated files read as one dataset")
	assert.Equal(t, res.Lines()[0].Output, back[0].Output)
	m := back[0].Output[1].Message()
	assert.Equal(t, schema.Tool, m.Role)
	assert.Equal(t, "search", m.ToolName)
	assert.Equal(t, "call-search", m.ToolCallID)
	assert.Equal(t, "search", back[0].Output[0].Message().ToolCalls[0].Function.Name)
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestReadJSONLReportsTheBadLine(t *testing.T) {
	in := `{"conversationId":"a","stepIndex":0}` + "\n\n" + `{"conversationId":` + "\n"
	lines, err := ReadJSONL(strings.NewReader(in))
	assert.ErrorIs(t, err, ErrMalformedLine)
	assert.Contains(t, err.Error(), "line 3")
	assert.Len(t, lines, 1)
}

func TestReadJSONLRejectsALineThatIsNotAnObject(t *testing.T) {
	for _, bad := range []string{"null", "  null  ", "[]", `"turn"`, "42"} {
		in := `{"conversationId":"a","stepIndex":0}` + "\n" + bad + "\n"
		lines, err := ReadJSONL(strings.NewReader(in))
		assert.ErrorIs(t, err, ErrMalformedLine, bad)
		assert.ErrorContains(t, err, "line 2", bad)
		assert.Len(t, lines, 1, bad)
	}
}

func FuzzReadJSONL(f *testing.F) {
	f.Add(`{"conversationId":"a","stepIndex":0,"input":{"role":"user","content":"hi"},"output":[],"timestamp":"2025-01-02T03:04:05Z"}`)
	f.Add("{}\n{\"output\":[{\"tool_calls\":[{}]}]}")
	f.Add(`{"timestamp":"nope"}`)
	f.Fuzz(func(t *testing.T, s string) {
		lines, err := ReadJSONL(strings.NewReader(s))
		if err != nil && !errors.Is(err, ErrMalformedLine) {
			t.Fatalf("unexpected error %v", err)
		}
		for _, l := range lines {
			for _, o := range l.Output {
				_ = o.Message()
			}
		}
	})
}

func TestToOpenAI(t *testing.T) {
	m := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "look"},
		{Type: schema.ChatMessagePartTypeImageURL},
		{Type: schema.ChatMessagePartTypeText, Text: "here"},
	}}
	assert.Equal(t, OpenAIMessage{Role: "user", Content: "look\nhere"}, ToOpenAI(m))
	assert.Equal(t, OpenAIMessage{}, ToOpenAI(nil))
}

func TestToOpenAIPutsTheToolNameOfAToolMessageInName(t *testing.T) {
	m := schema.ToolMessage("12°C", "call-1", schema.WithToolName("weather"))
	m.Name = "assistant"
	o := ToOpenAI(m)
	assert.Equal(t, OpenAIMessage{Role: "tool", Content: "12°C", Name: "weather", ToolCallID: "call-1"}, o)
	back := o.Message()
	assert.Equal(t, "weather", back.ToolName)
	assert.Equal(t, "call-1", back.ToolCallID)

	t.Run("a tool message without a tool name keeps its name", func(t *testing.T) {
		m := schema.ToolMessage("ok", "call-2")
		m.Name = "lookup"
		assert.Equal(t, "lookup", ToOpenAI(m).Name)
	})
}

func TestConversationAndSummary(t *testing.T) {
	res := travelResult(t)
	conv := res.Conversation()
	require.Len(t, conv, 4)
	assert.Equal(t, schema.User, conv[0].Role)
	assert.Equal(t, schema.Tool, conv[2].Role)
	assert.Equal(t, "conv-1: stopped with goal-reached after 1 turn; goal completed.\n"+
		"Steps: ask satisfied (1 attempt), book skipped.\n"+
		"Goals: called search met in turn 0.", res.Summary())
}

func TestArtifacts(t *testing.T) {
	res := travelResult(t)
	root := t.TempDir()
	dir, err := WriteArtifacts(root, res)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "conv-1"), dir)

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{ConversationFile, TracesFile, MetaFile}, sortedCopy(names))
	if runtime.GOOS != "windows" {
		for _, n := range names {
			fi, err := os.Stat(filepath.Join(dir, n))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), n)
		}
		fi, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	}

	conv, err := os.ReadFile(filepath.Join(dir, ConversationFile))
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, res.WriteJSONL(&buf))
	assert.Equal(t, buf.String(), string(conv))

	var traces []StepTrace
	b, err := os.ReadFile(filepath.Join(dir, TracesFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &traces))
	require.Len(t, traces, 1)
	assert.Equal(t, MethodStart, traces[0].Selection.Method)
	assert.Equal(t, "ask", traces[0].StepID)
	assert.Len(t, traces[0].Agent, 3)
	require.NotNil(t, traces[0].End)
	assert.Equal(t, StopGoalReached, traces[0].End.Reason)

	b, err = os.ReadFile(filepath.Join(dir, MetaFile))
	require.NoError(t, err)
	wantMeta := `{
	  "conversationId": "conv-1", "name": "trip", "goal": "book a trip",
	  "persona": {"name": "Ana", "description": "traveller"},
	  "steps": {
	    "start": "ask", "terminals": ["book"],
	    "steps": [
	      {"id": "ask", "instruction": "ask for flights", "hints": ["May"], "satisfaction": "default"},
	      {"id": "book", "instruction": "book", "maxAttempts": 2, "timeoutMs": 60000, "satisfaction": "default",
	       "preconditions": [{"type": "stepSatisfied", "stepId": "ask"}, {"type": "custom", "name": "has flights"}]}
	    ]
	  },
	  "maxTurns": 10, "loopLimit": 3, "goals": ["called search"],
	  "metadata": {"suite": "smoke"},
	  "stepStates": [
	    {"stepId": "ask", "status": "satisfied", "attempts": 1, "lastUpdatedAt": "2025-01-02T03:04:09Z"},
	    {"stepId": "book", "status": "skipped", "attempts": 0, "lastUpdatedAt": "2025-01-02T03:04:10Z"}
	  ],
	  "end": {"reason": "goal-reached", "completed": true, "passed": true, "turns": 1, "summary": ` + mustJSON(t, res.End.Summary) + `,
	          "goals": [{"name": "called search", "met": true, "turn": 0}]},
	  "usage": {"user": {"calls": 1, "attempts": 1, "promptTokens": 0, "completionTokens": 0},
	            "agent": {"calls": 2, "attempts": 2, "promptTokens": 0, "completionTokens": 0}}
	}`
	assert.JSONEq(t, wantMeta, string(b))
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestArtifactFoldersNeverEscapeTheRoot(t *testing.T) {
	root := t.TempDir()
	for _, id := range []string{"../../etc/passwd", "..", ".", "", "/abs/path", `C:\x`, "a/../../b", ".hidden", strings.Repeat("x", 500)} {
		res := &Result{ConversationID: id}
		dir, err := WriteArtifacts(root, res)
		require.NoError(t, err, id)
		rel, err := filepath.Rel(root, dir)
		require.NoError(t, err)
		assert.True(t, filepath.IsLocal(rel), "%q -> %q", id, rel)
		assert.NotContains(t, rel, string(filepath.Separator), id)
	}
	assert.Equal(t, "_._etc_passwd", SafeName("../etc/passwd"))
	assert.Equal(t, "_", SafeName(""))
	assert.Equal(t, "trip-r0", SafeName("trip-r0"))
}

func TestReadJSONLReadsLinesOfAnyLength(t *testing.T) {
	// A line just over the 64 MiB a line could hold before. Trailing blanks
	// make it long while keeping the JSON decoding cheap under -race.
	var in bytes.Buffer
	in.WriteString(`{"conversationId":"big","output":[{"role":"assistant","content":"file"}]}`)
	in.Write(bytes.Repeat([]byte(" "), 64<<20))
	in.WriteString("\n" + `{"conversationId":"big","stepIndex":1}` + "\n")
	lines, err := ReadJSONL(&in)
	require.NoError(t, err)
	require.Len(t, lines, 2)
	assert.Equal(t, "file", lines[0].Output[0].Content)
	assert.Equal(t, 1, lines[1].StepIndex)
}

func TestReadJSONLReportsAReaderFailure(t *testing.T) {
	r := io.MultiReader(strings.NewReader(`{"conversationId":"a"}`+"\n"+`{"conversa`), iotest.ErrReader(errors.New("disk gone")))
	lines, err := ReadJSONL(r)
	assert.ErrorIs(t, err, ErrMalformedLine)
	assert.ErrorContains(t, err, "line 2: disk gone")
	assert.Len(t, lines, 1)
}

func TestSafeName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"café", "café"},
		{"予約-r0", "予約-r0"},
		{"Zürich.2025", "Zürich.2025"},
		{"cafe\u0301", "cafe\u0301"}, // a decomposed accent keeps its mark
		{"order #42", "order__42"},
		{"a/b\\c", "a_b_c"},
		{"../../etc", "_._.._etc"},
		{"..", "__"},
		{"name.", "name_"},
		{"a\x00b\x7f", "a_b_"},
		{"a\xffb", "a_b"},
		{"\u202eevil", "_evil"}, // a bidi override is a format character
		{"a\u2028b", "a_b"},
		{"🙂", "_"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, SafeName(c.in), "%q", c.in)
	}

	long := strings.Repeat("é", 100)
	a, b := SafeName(long+"a"), SafeName(long+"b")
	assert.NotEqual(t, a, b, "names that differ past the cut stay distinct")
	assert.LessOrEqual(t, len(a), maxNameLen)
	assert.True(t, utf8.ValidString(a), "the cut keeps runes whole")
	assert.Equal(t, a, SafeName(a))
}

func FuzzSafeName(f *testing.F) {
	for _, s := range []string{"", ".", "..", "../x", "café", "a\x00b", strings.Repeat("日本", 80), "x."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := SafeName(s)
		if !filepath.IsLocal(n) || strings.ContainsAny(n, `/\`) || n == "." || n == ".." {
			t.Fatalf("SafeName(%q) = %q is not one local path element", s, n)
		}
		if len(n) == 0 || len(n) > maxNameLen || !utf8.ValidString(n) {
			t.Fatalf("SafeName(%q) = %q: bad length or encoding", s, n)
		}
		if SafeName(n) != n {
			t.Fatalf("SafeName(%q) = %q, but SafeName of that is %q", s, n, SafeName(n))
		}
	})
}
