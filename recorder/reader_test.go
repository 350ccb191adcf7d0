package recorder_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

// jsonl encodes records as JSON Lines.
func jsonl(t testing.TB, recs ...*recorder.Record) []byte {
	t.Helper()
	var b []byte
	for _, r := range recs {
		var err error
		b, err = r.AppendJSON(b)
		require.NoError(t, err)
		b = append(b, '\n')
	}
	return b
}

func threeRecords(t testing.TB) []byte {
	return jsonl(t, budgetRecord(0), budgetRecord(1), &recorder.Record{
		SchemaVersion: 1, Seq: 2, RunID: "r", RecordedAt: t0,
		Payload: &recorder.ToolEnded{Name: "cat", Result: "line one\nline \"two\"", ResultBytes: 19},
	})
}

func TestReaderReadsEveryRecordInOrder(t *testing.T) {
	recs, tear, err := recorder.ReadAll(bytes.NewReader(threeRecords(t)))
	require.NoError(t, err)
	assert.Nil(t, tear)
	assert.Equal(t, []uint64{0, 1, 2}, seqs(recs))
	assert.Equal(t, "line one\nline \"two\"", recs[2].Payload.(*recorder.ToolEnded).Result)
}

func TestReaderReturnsEveryEarlierRecordWhenTheLastLineIsTornAtAnyByte(t *testing.T) {
	data := threeRecords(t)
	lastStart := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	lastLen := len(data) - 1 - lastStart // without its newline
	for cut := lastStart + 1; cut < lastStart+lastLen; cut++ {
		recs, tear, err := recorder.ReadAll(bytes.NewReader(data[:cut]))
		require.NoError(t, err, "cut at %d", cut)
		require.Equal(t, []uint64{0, 1}, seqs(recs), "cut at %d", cut)
		require.NotNil(t, tear, "cut at %d", cut)
		require.Equal(t, recorder.Tear{Line: 3, Offset: int64(lastStart), Bytes: cut - lastStart}, *tear, "cut at %d", cut)
	}
}

func TestReaderAcceptsAMissingFinalNewline(t *testing.T) {
	data := threeRecords(t)
	recs, tear, err := recorder.ReadAll(bytes.NewReader(data[:len(data)-1]))
	require.NoError(t, err)
	assert.Nil(t, tear)
	assert.Len(t, recs, 3)
}

func TestReaderNamesTheLineOfGarbageInTheMiddle(t *testing.T) {
	good := jsonl(t, budgetRecord(0))
	data := append(append(append([]byte{}, good...), "{not json\n"...), jsonl(t, budgetRecord(1))...)
	recs, tear, err := recorder.ReadAll(bytes.NewReader(data))
	assert.Equal(t, []uint64{0}, seqs(recs), "records before the bad line are returned")
	assert.Nil(t, tear)
	var le *recorder.LineError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 2, le.Line)
	assert.Equal(t, int64(len(good)), le.Offset)
	assert.ErrorIs(t, err, recorder.ErrMalformed)
	assert.Contains(t, err.Error(), "line 2")
	assert.Equal(t, 1, strings.Count(err.Error(), "recorder:"), "the prefix is said once: %v", err)
}

func TestReaderCanGoOnAfterABadLine(t *testing.T) {
	data := append(append([]byte("garbage\n"), `{"schema_version":99,"kind":"budget"}`+"\n"...), jsonl(t, budgetRecord(4))...)
	r := recorder.NewReader(bytes.NewReader(data))
	_, err := r.Next()
	assert.ErrorIs(t, err, recorder.ErrMalformed)
	_, err = r.Next()
	assert.ErrorIs(t, err, recorder.ErrNewerVersion)
	var le *recorder.LineError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 2, le.Line)
	rec, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, uint64(4), rec.Seq)
	_, err = r.Next()
	assert.Equal(t, io.EOF, err)
	_, err = r.Next()
	assert.Equal(t, io.EOF, err, "EOF is sticky")
}

// TestReaderMovesAParentToolCallOutOfMetadata holds that a run_started
// of an older file, whose parent tool call is in its metadata, reads with
// ParentToolCallID set and the key gone from Metadata, and that the
// field, when written, wins over the key.
func TestReaderMovesAParentToolCallOutOfMetadata(t *testing.T) {
	lines := strings.Join([]string{
		`{"schema_version":1,"seq":0,"run_id":"kid","parent_run_id":"root","depth":1,"recorded_at":"2025-01-02T03:04:05Z","kind":"run_started","payload":{"agent_name":"researcher","limits":{},"metadata":{"parent_tool_call_id":"call-1"}}}`,
		`{"schema_version":1,"seq":0,"run_id":"kid2","parent_run_id":"root","depth":1,"recorded_at":"2025-01-02T03:04:05Z","kind":"run_started","payload":{"limits":{},"metadata":{"parent_tool_call_id":"call-2","team":"infra"}}}`,
		`{"schema_version":1,"seq":0,"run_id":"kid3","parent_run_id":"root","depth":1,"recorded_at":"2025-01-02T03:04:05Z","kind":"run_started","payload":{"parent_tool_call_id":"call-3","limits":{},"metadata":{"parent_tool_call_id":"mine"}}}`,
	}, "\n")
	recs, tear, err := recorder.ReadAll(strings.NewReader(lines))
	require.NoError(t, err)
	require.Nil(t, tear)
	require.Len(t, recs, 3)
	assert.Equal(t, &recorder.RunStarted{AgentName: "researcher", ParentToolCallID: "call-1"}, recs[0].Payload)
	assert.Equal(t, &recorder.RunStarted{ParentToolCallID: "call-2", Metadata: map[string]string{"team": "infra"}}, recs[1].Payload)
	assert.Equal(t, &recorder.RunStarted{ParentToolCallID: "call-3", Metadata: map[string]string{"parent_tool_call_id": "mine"}}, recs[2].Payload)

	line, err := recs[0].AppendJSON(nil)
	require.NoError(t, err)
	assert.Contains(t, string(line), `"payload":{"agent_name":"researcher","parent_tool_call_id":"call-1","limits":{}}`)
}

func TestReaderSkipsBlankLines(t *testing.T) {
	data := append(append([]byte("\n  \r\n"), jsonl(t, budgetRecord(0))...), "\n\t"...)
	recs, tear, err := recorder.ReadAll(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Nil(t, tear)
	assert.Len(t, recs, 1)
}

func TestReaderReadsCRLFLines(t *testing.T) {
	data := bytes.ReplaceAll(threeRecords(t), []byte("\n"), []byte("\r\n"))
	recs, _, err := recorder.ReadAll(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Len(t, recs, 3)
}

func TestReaderRejectsOverlongLinesAndGoesOn(t *testing.T) {
	long := `{"kind":"extension","payload":{"name":"` + strings.Repeat("x", 400) + `"}}` + "\n"
	data := append(append([]byte(long), jsonl(t, budgetRecord(1))...), long[:len(long)-1]...)
	r := recorder.NewReader(bytes.NewReader(data))
	recorder.SetMaxLine(r, 300)
	_, err := r.Next()
	assert.ErrorIs(t, err, recorder.ErrLineTooLong)
	rec, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, uint64(1), rec.Seq)
	_, err = r.Next()
	var le *recorder.LineError
	require.ErrorAs(t, err, &le, "an overlong unterminated last line is reported too")
	assert.ErrorIs(t, err, recorder.ErrLineTooLong)
	assert.Equal(t, 3, le.Line)
	_, err = r.Next()
	assert.Equal(t, io.EOF, err)
}

func TestReaderReadsLinesLongerThanItsBuffer(t *testing.T) {
	big := &recorder.Record{Payload: &recorder.ToolEnded{Result: strings.Repeat("y", 200_000)}}
	recs, _, err := recorder.ReadAll(bytes.NewReader(jsonl(t, big, budgetRecord(1))))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Len(t, recs[0].Payload.(*recorder.ToolEnded).Result, 200_000)
}

func TestReaderPassesOnReadErrors(t *testing.T) {
	errDisk := errors.New("read failed")
	src := io.MultiReader(bytes.NewReader(jsonl(t, budgetRecord(0))), iotest.ErrReader(errDisk))
	r := recorder.NewReader(src)
	_, err := r.Next()
	require.NoError(t, err)
	_, err = r.Next()
	assert.ErrorIs(t, err, errDisk)
	_, err = r.Next()
	assert.ErrorIs(t, err, errDisk, "the error is sticky")
}

func TestAllYieldsRecordsAndLineErrorsThenStops(t *testing.T) {
	data := append(append(jsonl(t, budgetRecord(0)), "junk\n"...), jsonl(t, budgetRecord(2))...)
	data = append(data, `{"kind":"bud`...)
	r := recorder.NewReader(bytes.NewReader(data))
	var got []string
	for rec, err := range r.All() {
		if err != nil {
			got = append(got, "error")
			continue
		}
		got = append(got, string(rec.Kind()))
	}
	assert.Equal(t, []string{"budget", "error", "budget"}, got)
	require.NotNil(t, r.Tear())
	assert.Equal(t, 4, r.Tear().Line)
}

func TestAllStopsWhenTheLoopBreaks(t *testing.T) {
	r := recorder.NewReader(bytes.NewReader(threeRecords(t)))
	n := 0
	for range r.All() {
		n++
		break
	}
	assert.Equal(t, 1, n)
	rec, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, uint64(1), rec.Seq, "the reader resumes where the loop stopped")
}

func TestAllStopsAfterAReadError(t *testing.T) {
	r := recorder.NewReader(iotest.ErrReader(errors.New("gone")))
	n := 0
	for _, err := range r.All() {
		require.Error(t, err)
		n++
	}
	assert.Equal(t, 1, n)
}

func TestReadFileReportsAMissingFile(t *testing.T) {
	_, _, err := recorder.ReadFile(filepath.Join(t.TempDir(), "none.jsonl"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestSixtyFourWritersIntoAFileReadBackDense(t *testing.T) {
	// The conformance kit covers 64 x 1000 records for every sink; this
	// test checks the same through StartRun, with run_started at seq 0.
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	s, err := recorder.NewFileSink(path, nil)
	require.NoError(t, err)
	rec := newRec(t, s, &recorder.Options{Policy: recorder.Escalate, Block: true, BlockTimeout: time.Minute})
	run, err := rec.StartRun(ctx, recorder.RunInfo{})
	require.NoError(t, err)
	done := make(chan error)
	for g := range 64 {
		go func() {
			for i := range 100 {
				if err := run.ToolStarted(ctx, recorder.ToolStarted{Name: "t", CallIndex: g*100 + i}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 64 {
		require.NoError(t, <-done)
	}
	require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
	require.NoError(t, rec.Close(ctx))
	recs, tear, err := recorder.ReadFile(path)
	require.NoError(t, err)
	require.Nil(t, tear)
	require.Len(t, recs, 6402)
	calls := map[int]bool{}
	for i, r := range recs {
		require.Equal(t, uint64(i), r.Seq)
		if p, ok := r.Payload.(*recorder.ToolStarted); ok {
			calls[p.CallIndex] = true
		}
	}
	assert.Len(t, calls, 6400, "every call index arrived once")
	assert.Equal(t, recorder.KindRunStarted, recs[0].Kind())
	assert.Equal(t, recorder.KindRunEnded, recs[6401].Kind())
}

func FuzzReader(f *testing.F) {
	f.Add(threeRecords(f))
	f.Add([]byte(`{"kind":"x","payload":{"a":[1,{"b":null}]}}`))
	f.Add([]byte("{\"schema_version\":2,\"kind\":\"budget\"}\n{\"seq\":-1}\n\n"))
	f.Add([]byte(`{"kind":"message","payload":{"message":{"role":"user","content":"\u00e9"}}}` + "\n{\"ki"))
	f.Add([]byte("\xff\xfe\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := recorder.NewReader(bytes.NewReader(data))
		recorder.SetMaxLine(r, 4096)
		for i := 0; i <= len(data)+1; i++ {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				if tear := r.Tear(); tear != nil && (tear.Offset < 0 || int(tear.Offset)+tear.Bytes != len(data)) {
					t.Fatalf("tear %+v does not end at the end of the %d input bytes", tear, len(data))
				}
				return
			}
			if err != nil {
				var le *recorder.LineError
				if !errors.As(err, &le) {
					t.Fatalf("error %v is not a *LineError", err)
				}
				continue
			}
			// A record that was read can be written again and read back.
			line, err := rec.AppendJSON(nil)
			if err != nil {
				continue // e.g. an extension body that is not valid JSON cannot arise, but stay lenient
			}
			var back recorder.Record
			if err := back.UnmarshalJSON(line); err != nil {
				t.Fatalf("re-encoded record does not decode: %v\n%s", err, line)
			}
		}
		t.Fatal("reader did not reach the end")
	})
}
