package drift_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/drift"
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
	p, store := newExamplePipeline(drift.New())
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
