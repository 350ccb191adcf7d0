package observer_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// newExamplePipeline returns a pipeline running observers on every call,
// with a clock that moves a second per call.
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

// Four identical reads, each returning the same content: Stall nudges.
func ExampleStall() {
	p, store := newExamplePipeline(observer.NewStall())
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

// A call that keeps failing the same way, ten times over: the severity has
// risen to warning and the evidence is abbreviated.
func ExampleStall_failing() {
	p, _ := newExamplePipeline(observer.NewStall())
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

// Reading a file and running the tests, over and over, with nothing
// changing in between.
func ExampleStall_oscillation() {
	p, _ := newExamplePipeline(observer.NewStall())
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

// Writing the same content back after reading what the last write did.
func ExampleStall_writeBack() {
	p, _ := newExamplePipeline(observer.NewStall())
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

// A job-status tool declared as polling can be called with the same
// arguments and get the same answer as often as needed.
func ExampleStall_polling() {
	p, _ := newExamplePipeline(&observer.Stall{PollingTools: []string{"job_status"}})
	fired := 0
	for range 12 {
		if _, current := p.AfterToolCall(context.Background(), observer.ToolCallRecord{
			ToolName: "job_status", Arguments: `{"job_id":"j-8812"}`, Result: `{"state":"running"}`, Success: true,
		}); current != nil {
			fired++
		}
	}
	fmt.Println("assessments:", fired)
	// Output:
	// assessments: 0
}

// Seven of the last ten calls failed, all for one reason.
func ExampleErrorCascade() {
	p, _ := newExamplePipeline(observer.NewErrorCascade())
	var current *observer.CurrentAssessment
	for i, c := range "foffoffoff" {
		rec := observer.ToolCallRecord{ToolName: "read_file", Arguments: `{"path":"README.md"}`, Result: "# app", Success: true}
		if c == 'f' {
			path := fmt.Sprintf("/srv/data/part-%d.csv", i)
			rec = observer.ToolCallRecord{ToolName: "write_file", Arguments: `{"path":"` + path + `"}`, ErrorMessage: "permission denied: " + path}
		}
		_, current = p.AfterToolCall(context.Background(), rec)
	}
	fmt.Println(current.Assessments[0].Render())
	// Output:
	// ### Errors [caution]
	//
	// 7 of the last 10 calls failed with `permission denied: <path>`.
	//
	// **error_rate**: The failures share one cause, so retrying the same way is unlikely to succeed.
	// ```
	// permission denied: <path> (7 calls)
	//   … 4 earlier calls
	//   #7 write_file path=/srv/data/part-6.csv
	//   #9 write_file path=/srv/data/part-8.csv
	//   #10 write_file path=/srv/data/part-9.csv
	// ```
	//
	// **Suggestions**:
	// - Stop and reassess your approach before the next call.
	// - Deal with the cause (`permission denied: <path>`) first, or find a way around it.
}

// Failures in a row with different messages: the most common cause is
// named.
func ExampleErrorCascade_mixed() {
	p, _ := newExamplePipeline(observer.NewErrorCascade())
	var current *observer.CurrentAssessment
	for _, rec := range []observer.ToolCallRecord{
		{ToolName: "http_get", Arguments: `{"url":"http://10.0.0.7:8080/health"}`, ErrorMessage: "dial tcp 10.0.0.7:8080: connection refused"},
		{ToolName: "write_file", Arguments: `{"path":"/etc/app/a.conf"}`, ErrorMessage: "open /etc/app/a.conf: permission denied"},
		{ToolName: "http_get", Arguments: `{"url":"http://10.0.0.9:8080/health"}`, ErrorMessage: "dial tcp 10.0.0.9:8080: connection refused"},
		{ToolName: "write_file", Arguments: `{"path":"/etc/app/b.conf"}`, ErrorMessage: "open /etc/app/b.conf: permission denied"},
		{ToolName: "write_file", Arguments: `{"path":"/var/lib/app/c.db"}`, ErrorMessage: "open /var/lib/app/c.db: permission denied"},
	} {
		_, current = p.AfterToolCall(context.Background(), rec)
	}
	fmt.Println(current.Assessments[0].Render())
	// Output:
	// ### Errors [caution]
	//
	// The last 5 calls all failed; 3 of them with `open <path>: permission denied`.
	//
	// **error_cascade**: The most common cause is `open <path>: permission denied` (3 of 5 failures); 2 different errors in all.
	// ```
	// open <path>: permission denied (3 calls)
	//   #2 write_file path=/etc/app/a.conf
	//   #4 write_file path=/etc/app/b.conf
	//   #5 write_file path=/var/lib/app/c.db
	// dial tcp <addr>: connection refused (2 calls)
	//   #1 http_get url=http://10.0.0.7:8080/health
	//   #3 http_get url=http://10.0.0.9:8080/health
	// ```
	//
	// **Suggestions**:
	// - Stop and reassess your approach before the next call.
	// - Deal with the cause (`open <path>: permission denied`) first, or find a way around it.
}

// The task is about the billing service; after a few calls there, the
// agent wanders into the marketing site. The first five calls add to the
// scope the prompt names.
func ExampleDrift() {
	p, store := newExamplePipeline(observer.NewDrift())
	session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: "Fix the rounding bug in services/billing/invoice.go."})
	read := func(path string) observer.ToolCallRecord {
		return observer.ToolCallRecord{ToolName: "read_file", Arguments: `{"path":"` + path + `"}`, Result: "…", Success: true}
	}
	for _, path := range []string{"services/billing/invoice.go", "services/billing/invoice_test.go", "go.mod", "services/billing/money.go", "services/billing/money_test.go"} {
		p.AfterToolCall(context.Background(), read(path))
	}
	var current *observer.CurrentAssessment
	for i := range 6 {
		_, current = p.AfterToolCall(context.Background(), read(fmt.Sprintf("web/marketing/page%d.tsx", i)))
	}
	fmt.Println(current.Assessments[0].Render())
	// Output:
	// ### Drift [info]
	//
	// Most of your recent work is outside the task's scope.
	//
	// **drift**: 6 of the last 10 calls that named a file, host or resource were outside the scope taken from the task (services/billing, go.mod).
	// ```
	// #6 read_file path=web/marketing/page0.tsx
	// #7 read_file path=web/marketing/page1.tsx
	// #8 read_file path=web/marketing/page2.tsx
	// #9 read_file path=web/marketing/page3.tsx
	// #10 read_file path=web/marketing/page4.tsx
	// #11 read_file path=web/marketing/page5.tsx
	// ```
	//
	// **Suggestions**:
	// - Check that this work serves the task: "Fix the rounding bug in services/billing/invoice.go".
	// - If it does not, return to the task; if it does, say why before going further.
}

func ExampleNormalizer_Normalize() {
	var n observer.Normalizer
	fmt.Println(n.Normalize(`{"url":"https://api.example.com/v1/orders","page":2,"request_id":"r-81f3","since":"2026-01-15T14:03:07Z"}`))
	fmt.Println(n.Normalize(`{"since": "2026-01-16T09:00:00Z", "page": 2, "url": "https://api.example.com/v1/orders"}`))
	fmt.Println(n.Normalize(`{"out":"/tmp/tmpa8x2k9/report.json"}`))
	fmt.Println(n.Normalize("curl -s https://example.com/x?trace=3fa85f64-5717-4562-b3fc-2c963f66afa6"))
	// Output:
	// {"page":2,"since":"<time>","url":"https://api.example.com/v1/orders"}
	// {"page":2,"since":"<time>","url":"https://api.example.com/v1/orders"}
	// {"out":"<tmp>/report.json"}
	// ~curl -s https://example.com/x?trace=<uuid>
}

// An observer's own assessments and the agent's reactions to them: the
// model is shown a stall, and its next call repeats it anyway.
func ExamplePipeline_Inject() {
	p, _ := newExamplePipeline(observer.NewStall())
	ctx := context.Background()
	read := observer.ToolCallRecord{ToolName: "read_file", Arguments: `{"path":"go.mod"}`, Result: "module x", Success: true}
	for range 4 {
		p.AfterToolCall(ctx, read)
	}
	block := p.Inject(ctx, observer.DefaultMaxAgeCalls) // put block into the model input
	fmt.Println(len(block) > 0)
	p.ModelResponded(ctx, 1) // the model answered with one tool call
	p.AfterToolCall(ctx, read)
	fmt.Printf("%+v\n", p.Efficacy().ByObserver["Stall"])
	// Output:
	// true
	// {Shown:1 ChangedCourse:0 WrappedUp:0 CarriedOn:1}
}
