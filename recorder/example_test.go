package recorder_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

func Example() {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{
		Clock: func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) },
	})

	run, _ := rec.StartRun(ctx, recorder.RunInfo{RunID: "run-1", AgentName: "migrator", Limits: recorder.RunLimits{MaxToolCalls: 100}})
	_ = run.Message(ctx, schema.UserMessage("migrate the billing service"))
	_ = run.ToolStarted(ctx, recorder.ToolStarted{CallID: "c1", Name: "shell", Arguments: `{"cmd":"env"}`})
	_ = run.ToolEnded(ctx, recorder.ToolEnded{CallID: "c1", Name: "shell", Result: "OPENAI_API_KEY=sk-live0123456789abcdefXYZ", Duration: 40 * time.Millisecond})
	_ = run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted, Usage: recorder.RunUsage{ToolCalls: 1}})
	// Close hands every queued record to the sink, closes it and stops the
	// recorder's goroutine.
	_ = rec.Close(ctx)

	for _, r := range sink.Records() {
		line, _ := r.AppendJSON(nil)
		fmt.Println(string(line))
	}
	// Output:
	// {"schema_version":1,"seq":0,"run_id":"run-1","parent_run_id":"","depth":0,"recorded_at":"2025-06-01T12:00:00Z","kind":"run_started","payload":{"agent_name":"migrator","limits":{"max_tool_calls":100}}}
	// {"schema_version":1,"seq":1,"run_id":"run-1","parent_run_id":"","depth":0,"recorded_at":"2025-06-01T12:00:00Z","kind":"message","payload":{"message":{"role":"user","content":"migrate the billing service"}}}
	// {"schema_version":1,"seq":2,"run_id":"run-1","parent_run_id":"","depth":0,"recorded_at":"2025-06-01T12:00:00Z","kind":"tool_started","payload":{"call_id":"c1","name":"shell","arguments":"{\"cmd\":\"env\"}","arguments_bytes":13,"call_index":0}}
	// {"schema_version":1,"seq":3,"run_id":"run-1","parent_run_id":"","depth":0,"recorded_at":"2025-06-01T12:00:00Z","kind":"tool_ended","payload":{"call_id":"c1","name":"shell","result":"OPENAI_API_KEY=[REDACTED]","result_bytes":41,"duration_ns":40000000,"call_index":0}}
	// {"schema_version":1,"seq":4,"run_id":"run-1","parent_run_id":"","depth":0,"recorded_at":"2025-06-01T12:00:00Z","kind":"run_ended","payload":{"outcome":"completed","usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"tool_calls":1,"model_calls":0}}}
}

func ExampleNewFileSink() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "trajectories")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run-1.jsonl")

	sink, err := recorder.NewFileSink(path, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := recorder.New(sink, nil)
	run, _ := rec.StartRun(ctx, recorder.RunInfo{RunID: "run-1"})
	_ = run.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: 120, Used: 120, Limit: 50_000})
	_ = run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	if err := rec.Close(ctx); err != nil { // writes out the queue and closes the file
		fmt.Println(err)
		return
	}

	info, _ := os.Stat(path)
	records, tear, err := recorder.ReadFile(path)
	fmt.Println(info.Mode().Perm(), len(records), tear, err)
	for _, r := range records {
		fmt.Println(r.Seq, r.Kind())
	}
	// Output:
	// -rw------- 3 <nil> <nil>
	// 0 run_started
	// 1 budget
	// 2 run_ended
}

func ExampleReadAll() {
	// A crash in the middle of the third line left it unfinished.
	data := `{"schema_version":1,"seq":0,"run_id":"r","kind":"run_started","payload":{"limits":{}}}
{"schema_version":1,"seq":1,"run_id":"r","kind":"budget","payload":{"event":"charged","resource":"tokens","amount":5,"used":5,"limit":0}}
{"schema_version":1,"seq":2,"run_id":"r","kind":"tool_en`
	records, tear, err := recorder.ReadAll(strings.NewReader(data))
	fmt.Println(len(records), err)
	fmt.Printf("torn line %d at byte %d, %d bytes\n", tear.Line, tear.Offset, tear.Bytes)
	// Output:
	// 2 <nil>
	// torn line 3 at byte 225, 56 bytes
}

func ExampleRecord_UnmarshalJSON() {
	var r recorder.Record
	err := json.Unmarshal([]byte(`{"schema_version":7,"seq":0,"kind":"budget"}`), &r)
	var ve *recorder.VersionError
	fmt.Println(errors.Is(err, recorder.ErrNewerVersion), errors.As(err, &ve) && ve.Seen == 7)
	fmt.Println(err)

	err = json.Unmarshal([]byte(`{"seq":3,"kind":"budget","payload":{"resource":"tokens"}}`), &r)
	fmt.Println(err, r.SchemaVersion, r.Seq, r.Kind())
	// Output:
	// true true
	// recorder: record schema version 7 is newer than supported version 1; upgrade the reader
	// <nil> 0 3 budget
}

func ExampleSecrets() {
	r := recorder.Secrets()
	fmt.Println(r.Redact(`curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9" "https://api.example.com/v1?api_key=abc123&page=2"`))
	fmt.Println(r.Redact(`{"user":"ann","password":"hunter2","retries":3}`))
	// Output:
	// curl -H "Authorization: Bearer [REDACTED]" "https://api.example.com/v1?api_key=[REDACTED]&page=2"
	// {"user":"ann","password":"[REDACTED]","retries":3}
}

func ExampleOptions_escalate() {
	ctx := context.Background()
	failing := recorder.FanOut(recorder.NewMemorySink(), brokenSink{})
	rec := recorder.New(failing, &recorder.Options{Policy: recorder.Escalate})
	defer rec.Close(ctx)
	run, err := rec.StartRun(ctx, recorder.RunInfo{RunID: "r"})
	fmt.Println(err) // the write fails later, on the recorder's goroutine
	_ = rec.Flush(ctx)
	err = run.Budget(ctx, recorder.BudgetRecord{Resource: "tokens"})
	fmt.Println(errors.Is(err, recorder.ErrSinkFailed), errors.Is(err, errDiskFull))
	// From now on every call returns the first failure; the run can end.
	// Output:
	// <nil>
	// true true
}

var errDiskFull = errors.New("disk full")

type brokenSink struct{}

func (brokenSink) Write(context.Context, *recorder.Record) error { return errDiskFull }
