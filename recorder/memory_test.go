package recorder_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// TestMemorySinkKeepsEveryField sets every field of a Record, whatever
// fields it has, and checks the sink gives each back: the sink holds
// records in a form of its own, so a field added to Record and not to
// that form fails here.
func TestMemorySinkKeepsEveryField(t *testing.T) {
	var in recorder.Record
	v := reflect.ValueOf(&in).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Uint64:
			f.SetUint(uint64(i + 1))
		case reflect.String:
			f.SetString(v.Type().Field(i).Name)
		default:
			switch f.Type() {
			case reflect.TypeFor[time.Time]():
				f.Set(reflect.ValueOf(time.Date(2025, 6, 1, 2, 3, 4, 5, time.FixedZone("X", 3600))))
			case reflect.TypeFor[recorder.Payload]():
				f.Set(reflect.ValueOf(&recorder.ToolEnded{CallID: "c1", Name: "ls"}))
			default:
				t.Fatalf("Record.%s has a type this test cannot fill: %s", v.Type().Field(i).Name, f.Type())
			}
		}
		if f.IsZero() {
			t.Fatalf("Record.%s was left zero", v.Type().Field(i).Name)
		}
	}
	s := recorder.NewMemorySink()
	if err := s.Write(context.Background(), &in); err != nil {
		t.Fatal(err)
	}
	out := s.Records()
	if len(out) != 1 || !reflect.DeepEqual(out[0], in) {
		t.Fatalf("kept %+v, want %+v", out, in)
	}
}

func TestMemorySinkKeepsOrderAcrossManyChunks(t *testing.T) {
	const n = 5000
	s := recorder.NewMemorySink()
	for i := range n {
		r := recorder.Record{Seq: uint64(i), Payload: &recorder.ToolEnded{CallIndex: i}}
		if err := s.Write(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
	}
	recs := s.Records()
	if len(recs) != n || s.Len() != n {
		t.Fatalf("holds %d records (Len %d), want %d", len(recs), s.Len(), n)
	}
	for i, r := range recs {
		if r.Seq != uint64(i) || r.Payload.(*recorder.ToolEnded).CallIndex != i {
			t.Fatalf("record %d has seq %d", i, r.Seq)
		}
	}
}

func TestMemorySinkKeepsEachRecordsRunWhenRunsInterleave(t *testing.T) {
	s := recorder.NewMemorySink()
	runs := []recorder.Record{
		{SchemaVersion: 1, RunID: "a"},
		{SchemaVersion: 1, RunID: "b", ParentRunID: "a", Depth: 1},
		{SchemaVersion: 1, RunID: "c", ParentRunID: "b", Depth: 2},
	}
	var want []recorder.Record
	for i := range 30 {
		r := runs[i*7%len(runs)]
		r.Seq = uint64(i)
		r.Payload = &recorder.ToolEnded{CallIndex: i}
		if err := s.Write(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	if got := s.Records(); !reflect.DeepEqual(got, want) {
		t.Fatalf("kept %+v\nwant %+v", got, want)
	}
}

// wrappedMemorySink has a Write of its own, so a Recorder writes to it
// record by record through Write, as it does to any sink.
type wrappedMemorySink struct{ *recorder.MemorySink }

func (s wrappedMemorySink) Write(ctx context.Context, r *recorder.Record) error {
	return s.MemorySink.Write(ctx, r)
}

// TestMemorySinkDirectWritesAsWrite records the same interleaved runs,
// with flushes between them, to a MemorySink a Recorder writes to
// directly, a batch under one lock, and to one it writes to through
// Write, and checks both hold the same records.
func TestMemorySinkDirectWritesAsWrite(t *testing.T) {
	ctx := context.Background()
	record := func(sink recorder.Sink) {
		t.Helper()
		var tick int64
		clock := func() time.Time { tick++; return time.Unix(1700000000, tick) }
		rec := recorder.New(sink, &recorder.Options{Clock: clock, QueueSize: 5000, NewRunID: seqRunIDs()})
		a, err := rec.StartRun(ctx, recorder.RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := a.StartChild(ctx, recorder.RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3000 {
			run := a
			if i%3 == 0 {
				run = b
			}
			if err := run.ToolEnded(ctx, recorder.ToolEnded{CallID: "c", Name: "ls", CallIndex: i}); err != nil {
				t.Fatal(err)
			}
			if i%700 == 0 {
				if err := rec.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := rec.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	direct, written := recorder.NewMemorySink(), recorder.NewMemorySink()
	record(direct)
	record(wrappedMemorySink{written})
	got, want := direct.Records(), written.Records()
	if len(want) < 3000 || !reflect.DeepEqual(got, want) {
		t.Fatalf("direct writes kept %d records, Write kept %d, or they differ", len(got), len(want))
	}
}

// seqRunIDs returns a NewRunID that numbers runs from 1.
func seqRunIDs() func() string {
	n := 0
	return func() string { n++; return "run" + string(rune('0'+n)) }
}

// TestMemorySinkClosedLosesDirectWrites checks that a Recorder writing
// directly to a closed MemorySink loses and reports each record.
func TestMemorySinkClosedLosesDirectWrites(t *testing.T) {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	if err := sink.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var errs []error
	rec := recorder.New(sink, &recorder.Options{OnError: func(_ context.Context, err error) { errs = append(errs, err) }})
	run, err := rec.StartRun(ctx, recorder.RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		_ = run.ToolEnded(ctx, recorder.ToolEnded{CallIndex: i})
	}
	_ = rec.Flush(ctx)
	_ = rec.Close(ctx)
	if run.Dropped() != 4 || len(errs) != 4 || !errors.Is(errs[3], recorder.ErrClosed) || sink.Len() != 0 {
		t.Fatalf("dropped %d, errors %v, kept %d", run.Dropped(), errs, sink.Len())
	}
}
