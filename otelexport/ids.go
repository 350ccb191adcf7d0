package otelexport

import (
	"crypto/sha256"
	"strconv"

	"go.opentelemetry.io/otel/trace"
)

// Ids are cut from a SHA-256 of a label, the run id and, for a call, the
// seq of the record that started it. The label keeps the three kinds of
// id apart, and the NUL bytes keep "a"+"bc" apart from "ab"+"c".

// TraceID returns the trace id of the run tree whose root run is rootRunID.
// Every span of that tree carries it, in the live sink and in the offline
// export alike.
func TraceID(rootRunID string) trace.TraceID {
	var id trace.TraceID
	sum := sha256.Sum256([]byte("lookout trace\x00" + rootRunID))
	copy(id[:], sum[:])
	if !id.IsValid() {
		id[len(id)-1] = 1
	}
	return id
}

// RunSpanID returns the span id of run runID's invoke_agent span.
func RunSpanID(runID string) trace.SpanID {
	return spanID("lookout run\x00" + runID)
}

// CallSpanID returns the span id of the chat or execute_tool span that the
// record at seq of run runID started: a model_request or a tool_started
// record, or the model_response or tool_ended record of a call whose start
// was not recorded.
func CallSpanID(runID string, seq uint64) trace.SpanID {
	return spanID("lookout call\x00" + runID + "\x00" + strconv.FormatUint(seq, 10))
}

func spanID(label string) trace.SpanID {
	var id trace.SpanID
	sum := sha256.Sum256([]byte(label))
	copy(id[:], sum[:])
	if !id.IsValid() {
		id[len(id)-1] = 1
	}
	return id
}
