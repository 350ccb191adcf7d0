package report_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/report"
)

// jsonlOf is records as JSON Lines.
func jsonlOf(t *testing.T, records []recorder.Record) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, r := range records {
		line, err := r.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	return b.Bytes()
}

func TestWriteJSONLWritesThePageWriteWrites(t *testing.T) {
	for _, c := range []struct {
		name    string
		records []recorder.Record
	}{
		{"a batch of queries", batchRun(3_000)},
		{"a long run", longRun(3_000)},
		{"a run of hostile text", untrustedConversation()},
	} {
		t.Run(c.name, func(t *testing.T) {
			var fromJSONL strings.Builder
			if err := report.WriteJSONL(&fromJSONL, bytes.NewReader(jsonlOf(t, c.records)), nil); err != nil {
				t.Fatal(err)
			}
			// What Write shows of the records as read back from JSON Lines.
			read, _, err := recorder.ReadAll(bytes.NewReader(jsonlOf(t, c.records)))
			if err != nil {
				t.Fatal(err)
			}
			if want := render(t, read, nil); fromJSONL.String() != want {
				t.Errorf("WriteJSONL's page differs from Write's: %d bytes, want %d", fromJSONL.Len(), len(want))
			}
		})
	}
}

func TestWriteJSONLLeavesOutATornLastLine(t *testing.T) {
	records := batchRun(100)
	data := jsonlOf(t, records)
	torn := append(append([]byte(nil), data...), `{"schema_version":1,"seq":99,"run_id":"q0","kind":"mes`...)
	var whole, cut strings.Builder
	if err := report.WriteJSONL(&whole, bytes.NewReader(data), nil); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJSONL(&cut, bytes.NewReader(torn), nil); err != nil {
		t.Fatalf("a torn last line: %v", err)
	}
	if whole.String() != cut.String() {
		t.Error("a torn last line changes the page")
	}
}

func TestWriteJSONLRefusesALineThatIsNotARecord(t *testing.T) {
	data := jsonlOf(t, batchRun(100))
	bad := append([]byte("{\"seq\":\n"), data...)
	var b strings.Builder
	err := report.WriteJSONL(&b, bytes.NewReader(bad), nil)
	if !errors.Is(err, recorder.ErrMalformed) || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("got %v, want a malformed line 1", err)
	}
}

func TestWriteJSONLRefusesNoRecords(t *testing.T) {
	var b strings.Builder
	if err := report.WriteJSONL(&b, bytes.NewReader([]byte("\n\n")), nil); !errors.Is(err, report.ErrNoRecords) {
		t.Errorf("got %v, want ErrNoRecords", err)
	}
}
