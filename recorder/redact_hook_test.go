package recorder_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/internal/recordhook"
	"github.com/lookout-go/lookout/recorder"
)

// codeWritten is a body as the adapters write one: fixed keys, names and
// numbers around one JSON string from elsewhere, name. It returns the
// body and where that string starts and ends.
func codeWritten(name string) (body []byte, from, to int) {
	q, _ := json.Marshal(name)
	body = append(body, `{"observer":`...)
	from = len(body)
	body = append(body, q...)
	to = len(body)
	body = append(body, `,"severity":"warning","assessment_call_index":11,"reaction":"carried_on","counts":{"shown":8,"changed_course":0,"wrapped_up":0,"carried_on":8}}`...)
	return body, from, to
}

// TestACodeWrittenExtensionIsRecordedAsEmitRecordsIt: an extension handed
// over through recordhook.EmitExtension is recorded byte for byte as Emit
// records it, secrets in its one string from elsewhere redacted, with the
// built-in redactor, without it and with redactors of one's own.
func TestACodeWrittenExtensionIsRecordedAsEmitRecordsIt(t *testing.T) {
	ctx := context.Background()
	names := []string{
		"Stall", "", "password", "token: sk-abcdefghijklmnop0123", "sk-abcdefghijklmnop0123", `a"password":"hunter22`,
		`password=hunter22`, `x\"token\": \"abcdefgh\"`, "Bearer abcdefghijklmnop", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIE", "https://user:pw@host", "curl -u me:pw x", "--token abc", "SKabcdef0123456789abcdef0123456789ab",
	}
	upper := recorder.RedactFunc(strings.ToUpper)
	for _, opts := range []*recorder.Options{nil, {KeepSecrets: true}, {Redactors: []recorder.Redactor{upper}}} {
		for _, name := range names {
			body, from, to := codeWritten(name)
			viaHook, hookSink := newMem(t, opts)
			viaEmit, emitSink := newMem(t, opts)
			run := viaHook.ResumeRun(recorder.RunInfo{}, 0)
			require.NoError(t, recordhook.EmitExtension(ctx, run, &recorder.Extension{Name: "x", Body: body}, from, to))
			require.NoError(t, viaEmit.ResumeRun(recorder.RunInfo{}, 0).Emit(ctx, &recorder.Extension{Name: "x", Body: body}))
			got, want := hookSink.Records()[0].Payload.(*recorder.Extension), emitSink.Records()[0].Payload.(*recorder.Extension)
			assert.Equal(t, string(want.Body), string(got.Body), "name %q, options %+v", name, opts)
			if opts == nil {
				assert.NotContains(t, string(got.Body), "abcdefghijklmnop")
			}
		}
	}
}

// TestOnlyTheStringFromElsewhereOfACodeWrittenExtensionIsScanned: the
// built-in redactor reads the one string the adapter says came from
// elsewhere, and leaves the code's own text unread.
func TestOnlyTheStringFromElsewhereOfACodeWrittenExtensionIsScanned(t *testing.T) {
	ctx := context.Background()
	rec, sink := newMem(t, nil)
	body := []byte(`{"name":"Stall","key":"sk-abcdefghijklmnop0123"}`)
	from := strings.Index(string(body), `"Stall"`)
	run := rec.ResumeRun(recorder.RunInfo{}, 0)
	require.NoError(t, recordhook.EmitExtension(ctx, run, &recorder.Extension{Name: "x", Body: body}, from, from+len(`"Stall"`)))
	assert.Equal(t, string(body), string(sink.Records()[0].Payload.(*recorder.Extension).Body))
}

// TestACodeWrittenExtensionOfANilTraceIsDropped: as Emit does on a nil
// *Trace, EmitExtension does nothing.
func TestACodeWrittenExtensionOfANilTraceIsDropped(t *testing.T) {
	body, from, to := codeWritten("Stall")
	assert.NoError(t, recordhook.EmitExtension(context.Background(), (*recorder.Trace)(nil), &recorder.Extension{Name: "x", Body: body}, from, to))
}
