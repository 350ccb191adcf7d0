package observer_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// newExamplePipeline returns a pipeline running observers on every call,

// with a clock that moves a second per call.

// Four identical reads, each returning the same content: Stall nudges.

// A call that keeps failing the same way, ten times over: the severity has

// risen to warning and the evidence is abbreviated.

// Reading a file and running the tests, over and over, with nothing

// changing in between.

// Writing the same content back after reading what the last write did.

// A job-status tool declared as polling can be called with the same

// arguments and get the same answer as often as needed.

// Seven of the last ten calls failed, all for one reason.

// Failures in a row with different messages: the most common cause is

// named.

// The task is about the billing service; after a few calls there, the

// agent wanders into the marketing site. The first five calls add to the

// scope the prompt names.

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
	p, _ := newExamplePipeline(stall.New())
	ctx := context.Background()
	read := observer.ToolCallRecord{ToolName: "read_file", Arguments: `{"path":"go.mod"}`, Result: "module x", Success: true}
	for range 4 {
		p.AfterToolCall(ctx, read)
	}
	block := p.Inject(ctx, observer.DefaultMaxAgeCalls) // put block into the model input
	fmt.Println(len(block) > 0)
	// The model repeats the read through the calls Stall judges: it did
	// not do what the assessment asked.
	for range observer.DefaultEfficacyCalls {
		p.AfterToolCall(ctx, read)
	}
	fmt.Printf("%+v\n", p.Efficacy().ByObserver["Stall"])
	// Output:
	// true
	// {Shown:1 ChangedCourse:0 WrappedUp:0 CarriedOn:1}
}

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
