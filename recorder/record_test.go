package recorder_test

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)

func everyKind() []recorder.Payload {
	return []recorder.Payload{
		&recorder.RunStarted{AgentName: "planner", ParentToolCallID: "call-7", Limits: recorder.RunLimits{Timeout: time.Minute, Deadline: t0.Add(time.Hour), MaxTokens: 50_000, MaxToolCalls: 100}, Thresholds: &recorder.Thresholds{CautionAt: 0.3, WarningAt: 0.1}, Metadata: map[string]string{"env": "test"}},
		&recorder.RunEnded{Outcome: recorder.OutcomeBudgetExceeded, Error: "budget exceeded: tokens", StopReason: "tokens", Usage: recorder.RunUsage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, ToolCalls: 2, ModelCalls: 3}},
		&recorder.ModelRequest{Model: "gpt-test", MessageCount: 4, Tools: []string{"ls", "cat"}, ToolDefinitions: []recorder.ToolDefinition{
			{Name: "ls", Description: "List a <directory>.", Parameters: json.RawMessage(`{"type":"object","properties":{"dir":{"type":"string"}},"required":["dir"]}`)},
			{Name: "cat"},
		}, ToolsWithheld: true, Stream: true},
		&recorder.ModelResponse{
			Message: &schema.Message{
				Role: schema.Assistant, Content: "looking", ReasoningContent: "think <first>",
				ToolCalls:    []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "ls", Arguments: `{"dir":"/"}`}}},
				ResponseMeta: &schema.ResponseMeta{FinishReason: "tool_calls", Usage: &schema.TokenUsage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}},
			},
			Usage: recorder.TokenUsage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}, UsageReported: true, FinishReason: "tool_calls", Latency: 1500 * time.Millisecond,
		},
		&recorder.Message{Message: schema.UserMessage("hello & <welcome>"), Origin: recorder.OriginQuery},
		&recorder.ToolStarted{CallID: "c1", Name: "ls", Arguments: `{"dir":"/"}`, ArgumentsBytes: 11, CallIndex: 7},
		&recorder.ToolStarted{CallID: "c2", Name: "fs_ls", Arguments: `{}`, CallIndex: 8, MCPServer: "files <local>", MCPTool: "ls"},
		&recorder.ToolEnded{CallID: "c1", Name: "ls", Result: "a\nb", ResultBytes: 9000, Truncated: true, IsError: true, Error: "exit 1", Duration: time.Second, CallIndex: 7},
		&recorder.AssessmentRecord{Markdown: "## Run status\n- 3 calls left", AfterCallIndex: 7, Observers: []recorder.ObserverNote{{Name: "resource", Severity: "warning"}}},
		&recorder.BudgetRecord{Event: recorder.BudgetExceeded, Resource: "tokens", Amount: 10, Used: 110, Limit: 100},
		&recorder.Extension{Name: "my.note", Body: json.RawMessage(`{"x":[1,2]}`)},
	}
}

func TestEveryKindRoundTripsThroughJSON(t *testing.T) {
	for _, p := range everyKind() {
		t.Run(string(p.Kind()), func(t *testing.T) {
			in := recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: 3, RunID: "r1", ParentRunID: "p0", Depth: 1, RecordedAt: t0, Payload: p}
			line, err := json.Marshal(in)
			require.NoError(t, err)
			var out recorder.Record
			require.NoError(t, json.Unmarshal(line, &out))
			assert.Equal(t, in.Kind(), out.Kind())
			assert.Equal(t, in.Seq, out.Seq)
			assert.Equal(t, in.RunID, out.RunID)
			assert.Equal(t, in.ParentRunID, out.ParentRunID)
			assert.Equal(t, in.Depth, out.Depth)
			assert.True(t, in.RecordedAt.Equal(out.RecordedAt))
			assert.Equal(t, reflect.TypeOf(p), reflect.TypeOf(out.Payload))
			again, err := out.AppendJSON(nil)
			require.NoError(t, err)
			first, err := in.AppendJSON(nil)
			require.NoError(t, err)
			assert.Equal(t, string(first), string(again), "decode then encode gives the same bytes")
		})
	}
}

func TestEnvelopeFieldsAreWrittenInAFixedOrder(t *testing.T) {
	r := recorder.Record{SchemaVersion: 1, Seq: 2, RunID: "r\"1", Depth: 0, RecordedAt: t0.In(time.FixedZone("x", 3600)), Payload: &recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: 1, Used: 1, Limit: 2}}
	b, err := r.AppendJSON(nil)
	require.NoError(t, err)
	assert.Equal(t, `{"schema_version":1,"seq":2,"run_id":"r\"1","parent_run_id":"","depth":0,"recorded_at":"2025-01-02T03:04:05.000000006Z","kind":"budget","payload":{"event":"charged","resource":"tokens","amount":1,"used":1,"limit":2}}`, string(b))
}

func TestHTMLCharactersAreNotEscaped(t *testing.T) {
	r := recorder.Record{RunID: "<r&>", Payload: &recorder.AssessmentRecord{Markdown: "<system-reminder>a & b</system-reminder>"}}
	b, err := r.AppendJSON(nil)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"run_id":"<r&>"`)
	assert.Contains(t, string(b), `"markdown":"<system-reminder>a & b</system-reminder>"`)
}

func TestStringsEncodeLikeEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctl\x00\x01\x1f\t\r\n", "bad utf8 \xff\xfe end", "sep \u2028 \u2029", "émoji 🎉"} {
		r := recorder.Record{RunID: s, Payload: &recorder.BudgetRecord{}}
		b, err := r.AppendJSON(nil)
		require.NoError(t, err)
		var back recorder.Record
		require.NoError(t, json.Unmarshal(b, &back), "line %q", b)
		std, err := json.Marshal(s)
		require.NoError(t, err)
		var want string
		require.NoError(t, json.Unmarshal(std, &want))
		assert.Equal(t, want, back.RunID)
	}
}

func TestUnknownKindRoundTripsByteForByte(t *testing.T) {
	line := `{"schema_version":1,"seq":4,"run_id":"r1","parent_run_id":"","depth":0,"recorded_at":"2025-01-02T03:04:05.000000006Z","kind":"future_thing","payload":{"z":1,  "a":[true,null,"<x>"],"nested":{"k":"v"}}}`
	var r recorder.Record
	require.NoError(t, json.Unmarshal([]byte(line), &r))
	u, ok := r.Payload.(*recorder.Unknown)
	require.True(t, ok, "payload is %T", r.Payload)
	assert.Equal(t, recorder.Kind("future_thing"), u.Kind())
	b, err := r.AppendJSON(nil)
	require.NoError(t, err)
	assert.Equal(t, line, string(b))
}

func TestUnknownKindWithoutPayloadRoundTrips(t *testing.T) {
	line := `{"schema_version":1,"seq":0,"run_id":"r","parent_run_id":"","depth":0,"recorded_at":"2025-01-02T03:04:05.000000006Z","kind":"ping"}`
	var r recorder.Record
	require.NoError(t, json.Unmarshal([]byte(line), &r))
	b, err := r.AppendJSON(nil)
	require.NoError(t, err)
	assert.Equal(t, line, string(b))
}

func TestMissingSchemaVersionReadsAsZero(t *testing.T) {
	var r recorder.Record
	require.NoError(t, json.Unmarshal([]byte(`{"seq":7,"run_id":"old","kind":"message","payload":{"message":{"role":"user","content":"hi"}}}`), &r))
	assert.Equal(t, 0, r.SchemaVersion)
	assert.Equal(t, uint64(7), r.Seq)
	assert.Equal(t, "hi", r.Payload.(*recorder.Message).Message.Content)
}

func TestNewerSchemaVersionIsRejectedWithBothVersions(t *testing.T) {
	var r recorder.Record
	err := json.Unmarshal([]byte(`{"schema_version":9,"seq":0,"kind":"message"}`), &r)
	require.ErrorIs(t, err, recorder.ErrNewerVersion)
	var ve *recorder.VersionError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, 9, ve.Seen)
	assert.Equal(t, recorder.SchemaVersion, ve.Supported)
	assert.Contains(t, err.Error(), "9")
	assert.Contains(t, err.Error(), "1")
}

func TestMalformedRecordsAreRejected(t *testing.T) {
	for name, line := range map[string]string{
		"not an object":           `[1,2]`,
		"missing kind":            `{"schema_version":1,"seq":0}`,
		"payload of wrong shape":  `{"schema_version":1,"kind":"tool_ended","payload":{"call_index":"seven"}}`,
		"negative version":        `{"schema_version":-1,"kind":"message"}`,
		"seq of wrong type":       `{"seq":"zero","kind":"message"}`,
		"timestamp not RFC 3339":  `{"kind":"message","recorded_at":"yesterday"}`,
		"payload is not a object": `{"kind":"budget","payload":"x"}`,
	} {
		t.Run(name, func(t *testing.T) {
			var r recorder.Record
			err := json.Unmarshal([]byte(line), &r)
			assert.ErrorIs(t, err, recorder.ErrMalformed)
		})
	}
}

func TestNullPayloadOfAKnownKindDecodesAsEmpty(t *testing.T) {
	var r recorder.Record
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"budget","payload":null}`), &r))
	assert.Equal(t, &recorder.BudgetRecord{}, r.Payload)
}

func TestEncodingFailuresAreErrorsNotPanics(t *testing.T) {
	cases := map[string]recorder.Payload{
		"no payload":               nil,
		"invalid extension body":   &recorder.Extension{Name: "x", Body: json.RawMessage(`{bad`)},
		"invalid unknown body":     &recorder.Unknown{Name: "x", Body: json.RawMessage(`{bad`)},
		"unencodable message data": &recorder.Message{Message: &schema.Message{Role: schema.User, Extra: map[string]any{"ch": make(chan int)}}},
		"panicking marshaler":      &recorder.Message{Message: &schema.Message{Role: schema.User, Extra: map[string]any{"p": panicker{}}}},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			r := recorder.Record{Payload: p}
			prefix := []byte("keep")
			b, err := r.AppendJSON(prefix)
			require.ErrorIs(t, err, recorder.ErrEncode)
			assert.Equal(t, "keep", string(b), "the buffer is returned unchanged")
		})
	}
}

type panicker struct{}

func (panicker) MarshalJSON() ([]byte, error) { panic("boom") }

func TestErrorsUnwrapToTheirSentinels(t *testing.T) {
	sinkErr := errors.New("disk full")
	se := &recorder.SinkError{RunID: "r", Seq: 1, Kind: recorder.KindMessage, Err: sinkErr}
	assert.ErrorIs(t, se, recorder.ErrSinkFailed)
	assert.ErrorIs(t, se, sinkErr)
	assert.Contains(t, se.Error(), "disk full")
	le := &recorder.LineError{Line: 3, Offset: 10, Err: recorder.ErrMalformed}
	assert.ErrorIs(t, le, recorder.ErrMalformed)
	assert.Contains(t, le.Error(), "line 3")
}

func TestTheEnvelopeScannerHandlesWhatThisPackageWrites(t *testing.T) {
	for _, p := range everyKind() {
		r := recorder.Record{SchemaVersion: 1, Seq: 9, RunID: "r", ParentRunID: "p", Depth: 3, RecordedAt: t0, Payload: p}
		line, err := r.AppendJSON(nil)
		require.NoError(t, err)
		assert.True(t, recorder.ScanEnvelope(line), "kind %s", p.Kind())
	}
}

func FuzzDecodeAgreesWithEncodingJSON(f *testing.F) {
	for _, p := range everyKind() {
		r := recorder.Record{SchemaVersion: 1, Seq: 9, RunID: "r", ParentRunID: "p", Depth: 3, RecordedAt: t0, Payload: p}
		line, err := r.AppendJSON(nil)
		require.NoError(f, err)
		f.Add(line)
	}
	f.Add([]byte(`{"seq":01,"kind":"x"}`))
	f.Add([]byte(`{"seq":1e3,"kind":"x","payload":[1,2}`))
	f.Add([]byte(` {"kind":"x","run_id":"\u00e9","recorded_at":"2025-01-02T03:04:05+01:00"} `))
	f.Add([]byte(`{"kind":"budget","payload":{"amount":1},"kind":"message"}`))
	f.Add([]byte(`{"kind":"00000000000","payload":}`))
	f.Add([]byte(`{"kind":"tool_ended","payload":{"name":"a\"b\\c\/d\n\t\r\b\f","result":"\u00e9\ud83d\ude00","is_error":true,"duration_ns":-5,"call_index":2147483648}}`))
	f.Add([]byte(`{"kind":"tool_started","payload":{"name":"x","arguments":"\x","arguments_truncated":falsey,"Name":"y"}}`))
	f.Add([]byte(`{"kind":"budget","payload":{"event":"charged","amount":1.5,"used":null,"limit":-0}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow recorder.Record
		errFast := fast.UnmarshalJSON(data)
		errSlow := recorder.DecodeWithEncodingJSON(data, &slow)
		if (errFast == nil) != (errSlow == nil) {
			t.Fatalf("scanner and encoding/json disagree on %q: %v vs %v", data, errFast, errSlow)
		}
		if errFast != nil {
			return
		}
		a, errA := fast.AppendJSON(nil)
		b, errB := slow.AppendJSON(nil)
		if (errA == nil) != (errB == nil) || string(a) != string(b) {
			t.Fatalf("scanner and encoding/json decode %q differently:\n%s\n%s", data, a, b)
		}
	})
}

func FuzzPayloadsEncodeLikeEncodingJSON(f *testing.F) {
	f.Add("c1", "ls", `{"dir":"/"}`, "exit \b\f\x01 \u2028 <&>", int64(-3), true, 0.1)
	f.Add("", "", "", "\xff", int64(0), false, 1e-7)
	f.Fuzz(func(t *testing.T, id, name, text, errText string, n int64, flag bool, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			x = 0
		}
		index := int(n)
		payloads := []recorder.Payload{
			&recorder.ToolStarted{CallID: id, Name: name, Arguments: text, ArgumentsBytes: int(int32(n)), ArgumentsTruncated: flag, CallIndex: int(int32(n)), MCPServer: errText, MCPTool: text},
			&recorder.ToolEnded{CallID: id, Name: name, Result: text, ResultBytes: int(int32(n)), Truncated: flag, IsError: !flag, Error: errText, Duration: time.Duration(n), CallIndex: int(int32(n))},
			&recorder.BudgetRecord{Event: recorder.BudgetEvent(id), Resource: name, Amount: n, Used: -n, Limit: n / 2},
			&recorder.ModelRequest{Model: name, MessageCount: index, Tools: []string{id, name}, Injected: []recorder.InjectedMessage{{Kind: id, Role: name, Content: text, AfterCallIndex: index}}},
			&recorder.ModelResponse{Message: &schema.Message{Role: schema.RoleType(id), Content: text, ReasoningContent: errText,
				ToolCalls: []schema.ToolCall{{Index: &index, ID: id, Type: name, Function: schema.FunctionCall{Name: name, Arguments: text}}},
				Extra:     map[string]any{text: errText, name: x, id: n}}, CostUSD: x, Latency: time.Duration(n), Error: errText},
			&recorder.AssessmentRecord{Markdown: text, AfterCallIndex: index, Observers: []recorder.ObserverNote{{Name: name, Severity: errText}}},
			&recorder.RunEnded{Outcome: recorder.Outcome(id), Error: errText, Usage: recorder.RunUsage{PromptTokens: n, CostUSD: x}},
		}
		for _, p := range payloads {
			r := recorder.Record{Payload: p}
			line, err := r.AppendJSON(nil)
			require.NoError(t, err)
			var buf strings.Builder
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode(p))
			want := strings.TrimSuffix(buf.String(), "\n")
			got := string(line[strings.Index(string(line), `"payload":`)+len(`"payload":`) : len(line)-1])
			if got != want {
				t.Fatalf("%s payload encodes as\n%s\nencoding/json gives\n%s", p.Kind(), got, want)
			}
		}
	})
}

// TestAnUnknownPayloadWithNewlinesStaysOnItsLine checks that an *Unknown
// built in code with indented JSON is written on one line, as JSON Lines
// requires, rather than splitting the record into lines no reader can
// decode.
func TestAnUnknownPayloadWithNewlinesStaysOnItsLine(t *testing.T) {
	body := "{\n  \"a\": [1,\n    2],\n  \"s\": \"x y\"\n}\n"
	r := recorder.Record{SchemaVersion: 1, RunID: "r", RecordedAt: t0, Payload: &recorder.Unknown{Name: "mine", Body: json.RawMessage(body)}}
	b, err := r.AppendJSON(nil)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "\n")

	recs, tear, err := recorder.ReadAll(strings.NewReader(string(b) + "\n"))
	require.NoError(t, err)
	require.Nil(t, tear)
	require.Len(t, recs, 1)
	assert.JSONEq(t, body, string(recs[0].Payload.(*recorder.Unknown).Body))
}

// TestATimeRFC3339CannotWriteIsAnEncodingError checks that a record whose
// time has a year outside 0–9999, which RFC 3339 cannot write and so no
// reader can read back, fails to encode rather than being written as a
// line that stops every reader.
func TestATimeRFC3339CannotWriteIsAnEncodingError(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("east", -2*3600)), // year 10000 in UTC
	} {
		r := recorder.Record{RunID: "r", RecordedAt: at, Payload: &recorder.BudgetRecord{}}
		b, err := r.AppendJSON([]byte("keep"))
		require.ErrorIs(t, err, recorder.ErrEncode, "%v", at)
		assert.Equal(t, "keep", string(b), "the buffer is returned unchanged")
	}
	for _, at := range []time.Time{{}, time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)} {
		r := recorder.Record{RunID: "r", RecordedAt: at, Payload: &recorder.BudgetRecord{}}
		b, err := r.AppendJSON(nil)
		require.NoError(t, err)
		var back recorder.Record
		require.NoError(t, json.Unmarshal(b, &back))
		assert.True(t, at.Equal(back.RecordedAt))
	}
}
