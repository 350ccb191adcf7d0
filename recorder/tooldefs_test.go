package recorder_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

func TestToolDefinitionsDecodeWithTheirSchemaIntact(t *testing.T) {
	const line = `{"schema_version":1,"seq":2,"run_id":"r","parent_run_id":"","depth":0,"recorded_at":"2025-06-01T12:00:00Z","kind":"model_request",` +
		`"payload":{"model":"m","message_count":3,"tools":["search","now"],"tool_definitions":[` +
		`{"name":"search","description":"Search the web.","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}},` +
		`{"name":"now"}]}}`
	var r recorder.Record
	require.NoError(t, json.Unmarshal([]byte(line), &r))
	req := r.Payload.(*recorder.ModelRequest)
	require.Len(t, req.ToolDefinitions, 2)
	assert.Equal(t, "search", req.ToolDefinitions[0].Name)
	assert.Equal(t, "Search the web.", req.ToolDefinitions[0].Description)
	assert.JSONEq(t, `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`, string(req.ToolDefinitions[0].Parameters))
	assert.Equal(t, recorder.ToolDefinition{Name: "now"}, req.ToolDefinitions[1], "a tool without parameters has none")

	again, err := r.AppendJSON(nil)
	require.NoError(t, err)
	assert.Equal(t, line, string(again))
}

func TestModelRequestsWrittenBeforeToolDefinitionsStillDecode(t *testing.T) {
	for _, line := range []string{
		`{"schema_version":1,"seq":2,"run_id":"r","parent_run_id":"","depth":0,"recorded_at":"2025-06-01T12:00:00Z","kind":"model_request","payload":{"model":"gpt-test","message_count":4,"tools":["ls","cat"],"tools_withheld":true}}`,
		`{"seq":2,"run_id":"r","kind":"model_request","payload":{"model":"gpt-test","message_count":4,"tools":["ls","cat"],"tools_withheld":true}}`,
	} {
		var r recorder.Record
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		req := r.Payload.(*recorder.ModelRequest)
		assert.Equal(t, &recorder.ModelRequest{Model: "gpt-test", MessageCount: 4, Tools: []string{"ls", "cat"}, ToolsWithheld: true}, req)
		out, err := r.AppendJSON(nil)
		require.NoError(t, err)
		assert.NotContains(t, string(out), "tool_definitions", "no definitions are made up")
	}
}

func TestToolDescriptionsAndSchemasAreRedacted(t *testing.T) {
	ctx := context.Background()
	const secret = "sk-abcdefghijklmnopqrstuvwx"
	rec, sink := newMem(t, nil)
	run := rec.ResumeRun(recorder.RunInfo{}, 0)
	defs := []recorder.ToolDefinition{
		{Name: "clean", Description: "Nothing to hide.", Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "leaky", Description: "Call with key " + secret, Parameters: json.RawMessage(`{"type":"object","properties":{"k":{"type":"string","default":"` + secret + `"}}}`)},
	}
	before, err := json.Marshal(defs)
	require.NoError(t, err)
	require.NoError(t, run.ModelRequest(ctx, recorder.ModelRequest{Tools: []string{"clean", "leaky"}, ToolDefinitions: defs}))

	got := sink.Records()[0].Payload.(*recorder.ModelRequest).ToolDefinitions
	require.Len(t, got, 2)
	assert.Equal(t, defs[0], got[0], "clean definitions pass unchanged")
	assert.Equal(t, "Call with key "+recorder.Redacted, got[1].Description)
	assert.NotContains(t, string(got[1].Parameters), "abcdefghijklmnop")
	assert.True(t, json.Valid(got[1].Parameters))
	after, err := json.Marshal(defs)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the caller's definitions are not edited")
}

func TestAToolSchemaThatStopsBeingJSONAfterRedactionIsKeptAsAString(t *testing.T) {
	ctx := context.Background()
	breakJSON := recorder.RedactFunc(func(s string) string { return strings.ReplaceAll(s, "secret", `"`) })
	rec, sink := newMem(t, &recorder.Options{Redactors: []recorder.Redactor{breakJSON}})
	run := rec.ResumeRun(recorder.RunInfo{}, 0)
	require.NoError(t, run.ModelRequest(ctx, recorder.ModelRequest{ToolDefinitions: []recorder.ToolDefinition{
		{Name: "t", Parameters: json.RawMessage(`{"a":"secret"}`)},
	}}))
	params := sink.Records()[0].Payload.(*recorder.ModelRequest).ToolDefinitions[0].Parameters
	var s string
	require.NoError(t, json.Unmarshal(params, &s), "the record still encodes")
	assert.Equal(t, `{"a":"""}`, s)
}
