package otelexport_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/lookout-go/lookout/otelexport"
)

// The Collector's otlpjsonfile receiver reads each line with pdata's
// JSON unmarshaler; it reads the export's lines with their ids, kinds,
// statuses and attributes.
func TestTheCollectorsJSONUnmarshalerReadsTheExport(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, otelexport.WriteJSON(&out, tree(t), nil))
	lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
	require.Len(t, lines, 1)

	traces, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(lines[0])
	require.NoError(t, err)
	require.Equal(t, 7, traces.SpanCount())
	rs := traces.ResourceSpans().At(0)
	name, _ := rs.Resource().Attributes().Get("service.name")
	assert.Equal(t, "lookout", name.Str())
	ss := rs.ScopeSpans().At(0)
	assert.Equal(t, otelexport.ScopeName, ss.Scope().Name())
	assert.Equal(t, "https://opentelemetry.io/schemas/1.41.0", ss.SchemaUrl())

	root := ss.Spans().At(0)
	assert.Equal(t, "invoke_agent lead", root.Name())
	assert.Equal(t, [16]byte(otelexport.TraceID("run-lead")), [16]byte(root.TraceID()))
	assert.Equal(t, [8]byte(otelexport.RunSpanID("run-lead")), [8]byte(root.SpanID()))
	assert.True(t, root.ParentSpanID().IsEmpty())
	assert.Equal(t, ptrace.SpanKindInternal, root.Kind())
	assert.Equal(t, ptrace.StatusCodeError, root.Status().Code())
	tokens, _ := root.Attributes().Get("gen_ai.usage.input_tokens")
	assert.Equal(t, int64(1000), tokens.Int())
	assert.Equal(t, 2, root.Events().Len())

	for i := 1; i < ss.Spans().Len(); i++ {
		s := ss.Spans().At(i)
		assert.Equal(t, root.TraceID(), s.TraceID(), s.Name())
		assert.False(t, s.ParentSpanID().IsEmpty(), s.Name())
	}
	chat := ss.Spans().At(1)
	assert.Equal(t, "chat gpt-4o-mini", chat.Name())
	assert.Equal(t, ptrace.SpanKindClient, chat.Kind())
	assert.Equal(t, root.SpanID(), chat.ParentSpanID())

	// And writes them back as the export wrote them.
	again, err := (&ptrace.JSONMarshaler{}).MarshalTraces(traces)
	require.NoError(t, err)
	back, err := otelexport.UnmarshalJSON(again)
	require.NoError(t, err)
	want, err := otelexport.UnmarshalJSON(lines[0])
	require.NoError(t, err)
	assert.Equal(t, len(protoSpans(want)), len(protoSpans(back)))
}
