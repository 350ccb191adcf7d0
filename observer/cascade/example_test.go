package cascade_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
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
	p, _ := newExamplePipeline(cascade.New())
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

func ExampleDetector_mixed() {
	p, _ := newExamplePipeline(cascade.New())
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
