package stall_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

var start = time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)

func newExamplePipeline(observers ...observer.Observer) (*observer.Pipeline, *session.Store) {
	now := start
	store := session.New(&session.StoreOptions{Now: func() time.Time { now = now.Add(time.Second); return now }})
	var configs []observer.Spec
	for _, o := range observers {
		configs = append(configs, observer.Spec{Observer: o, Trigger: observer.Trigger{OnEveryCall: true}})
	}
	p, err := observer.NewPipeline(store, configs, nil)
	if err != nil {
		panic(err)
	}
	return p, store
}

func ExampleDetector() {
	p, store := newExamplePipeline(stall.New())
	for range 4 {
		p.AfterToolCall(context.Background(), observer.ToolCallRecord{
			ToolName: "read_file", Arguments: `{"path":"go.mod"}`, Result: "module example.com/app", Success: true,
		})
	}
	fmt.Print(observer.BuildContext(store, 0))
	// Output:
	// ## Trajectory Assessment
	//
	// _Generated after tool call #4_
	//
	// ### Stall [info]
	//
	// You are repeating a call that keeps giving the same result.
	//
	// **repeat**: `read_file` was called 4 times with the same arguments and returned the same result each time (calls #1 to #4).
	// ```
	// #1 read_file path=go.mod
	// #2 read_file path=go.mod
	// #3 read_file path=go.mod
	// #4 read_file path=go.mod
	// ```
	//
	// **Suggestions**:
	// - Use the result you already have: calling again will not change it.
	// - If it does not answer your question, change the arguments or use a different tool.
}

func ExampleDetector_failing() {
	p, _ := newExamplePipeline(stall.New())
	var current *observer.CurrentAssessment
	for range 10 {
		_, current = p.AfterToolCall(context.Background(), observer.ToolCallRecord{
			ToolName: "write_file", Arguments: `{"path":"/etc/app.conf","content":"port: 8080"}`,
			ErrorMessage: "open /etc/app.conf: permission denied",
		})
	}
	fmt.Println(current.Assessments[0].Render())
	// Output:
	// ### Stall [warning]
	//
	// You are repeating a call that keeps failing the same way.
	//
	// **repeat**: `write_file` was called 10 times with the same arguments and failed the same way each time (calls #1 to #10).
	// ```
	// #1 write_file path=/etc/app.conf content=port: 8080 (failed: open /etc/app.conf: permission denied)
	// … 6 more calls …
	// #8 write_file path=/etc/app.conf content=port: 8080 (failed: open /etc/app.conf: permission denied)
	// #9 write_file path=/etc/app.conf content=port: 8080 (failed: open /etc/app.conf: permission denied)
	// #10 write_file path=/etc/app.conf content=port: 8080 (failed: open /etc/app.conf: permission denied)
	// ```
	//
	// **Suggestions**:
	// - Calling it again will not help: read the error, then change the call or try another approach.
	// - If you cannot make progress this way, stop and report what is blocking you.
}

func ExampleDetector_oscillation() {
	p, _ := newExamplePipeline(stall.New())
	read := observer.ToolCallRecord{ToolName: "read_file", Arguments: `{"path":"pay.go"}`, Result: "package pay", Success: true}
	test := observer.ToolCallRecord{ToolName: "run_tests", Arguments: `{"package":"./pay"}`, Result: "FAIL TestRound", Success: true}
	var current *observer.CurrentAssessment
	for range 3 {
		p.AfterToolCall(context.Background(), read)
		_, current = p.AfterToolCall(context.Background(), test)
	}
	fmt.Println(current.Assessments[0].Render())
	// Output:
	// ### Stall [info]
	//
	// You are alternating between two calls that keep giving the same results.
	//
	// **oscillation**: The last 6 calls alternated between `read_file path=pay.go` and `run_tests package=./pay`, with the same results each time.
	// ```
	// #1 read_file path=pay.go
	// #2 run_tests package=./pay
	// #3 read_file path=pay.go
	// #4 run_tests package=./pay
	// #5 read_file path=pay.go
	// #6 run_tests package=./pay
	// ```
	//
	// **Suggestions**:
	// - Decide what you need from these two calls and move on: switching between them is not making progress.
}

func ExampleDetector_writeBack() {
	p, _ := newExamplePipeline(stall.New())
	read := observer.ToolCallRecord{ToolName: "read_file", Arguments: `{"path":"config.yaml"}`, Result: "port: 80", Success: true}
	write := observer.ToolCallRecord{ToolName: "write_file", Arguments: `{"path":"config.yaml","content":"port: 8080"}`, Result: "ok", Success: true}
	var current *observer.CurrentAssessment
	for _, rec := range []observer.ToolCallRecord{read, write, read, write} {
		_, current = p.AfterToolCall(context.Background(), rec)
	}
	fmt.Println(current.Assessments[0].Render())
	// Output:
	// ### Stall [info]
	//
	// You keep reading and rewriting `config.yaml` without making progress.
	//
	// **write_back**: `config.yaml` was read and written in turn 4 times (calls #1 to #4), and the cycle repeats itself: the same write, or the same content read back.
	// ```
	// #1 read_file path=config.yaml
	// #2 write_file path=config.yaml content=port: 8080
	// #3 read_file path=config.yaml
	// #4 write_file path=config.yaml content=port: 8080
	// ```
	//
	// **Suggestions**:
	// - Stop rewriting `config.yaml`: check what the last write did, then make one deliberate change.
}

// A declared polling tool may be called again and again; ten polls in a
// row with the same answer are reported as no progress.
func ExampleDetector_polling() {
	p, store := newExamplePipeline(&stall.Detector{PollingTools: []string{"job_status"}})
	for range stall.DefaultPollingCap {
		p.AfterToolCall(context.Background(), observer.ToolCallRecord{
			ToolName: "job_status", Arguments: `{"job_id":"j-8812"}`, Result: `{"state":"running"}`, Success: true,
		})
	}
	fmt.Print(observer.BuildContext(store, 0))
	// Output:
	// ## Trajectory Assessment
	//
	// _Generated after tool call #10_
	//
	// ### Stall [info]
	//
	// You keep polling, and nothing has changed.
	//
	// **no_progress**: `job_status` was called 10 times with the same arguments and returned the same result each time (calls #1 to #10).
	// ```
	// #1 job_status job_id=j-8812
	// … 6 more calls …
	// #8 job_status job_id=j-8812
	// #9 job_status job_id=j-8812
	// #10 job_status job_id=j-8812
	// ```
	//
	// **Suggestions**:
	// - Polling again will not change it: check whether what you are waiting for is stuck, or do other work before you poll again.
}
