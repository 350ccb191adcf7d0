package otelexport_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/lookout-go/lookout/otelexport"
)

// UnmarshalJSON never panics, and what it reads MarshalJSON writes back
// so that it reads the same again.
func FuzzUnmarshalJSON(f *testing.F) {
	var out bytes.Buffer
	if err := otelexport.WriteJSON(&out, tree(f), nil); err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00","spanId":"zz"}]}]}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := otelexport.UnmarshalJSON(line)
		if err != nil {
			return
		}
		again, err := otelexport.MarshalJSON(req)
		if err != nil {
			t.Fatalf("MarshalJSON of what UnmarshalJSON read: %v", err)
		}
		back, err := otelexport.UnmarshalJSON(again)
		if err != nil {
			t.Fatalf("UnmarshalJSON of %s: %v", again, err)
		}
		if !proto.Equal(req, back) {
			t.Fatalf("read back differs:\n%v\n%v", req, back)
		}
	})
}
