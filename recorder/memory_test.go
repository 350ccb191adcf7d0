package recorder_test

import (
	"context"
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
