package observer_test

import (
	"context"
	"fmt"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// ToolBudget reports a tool called more than Limit times in a session. It
// is incremental: the pipeline hands its state each call once, so a check
// costs the same at call 10 as at call 10,000.
type ToolBudget struct {
	Tool  string
	Limit int
}

func (t ToolBudget) Name() string { return "Tool budget" }

// NewCallState returns the count of one session.
func (t ToolBudget) NewCallState() observer.CallState { return &toolCount{tool: t.Tool} }

// toolCount counts a session's calls to one tool.
type toolCount struct {
	tool  string
	calls int
}

// CatchUp is 0: the count needs every call the log keeps.
func (c *toolCount) CatchUp() int { return 0 }

func (c *toolCount) Reset(*observer.Context) { c.calls = 0 }

func (c *toolCount) Add(_ *observer.Context, rec *observer.ToolCallRecord) {
	if rec.ToolName == c.tool {
		c.calls++
	}
}

func (t ToolBudget) ShouldRun(_ context.Context, oc *observer.Context) bool {
	c, ok := oc.CallState().(*toolCount)
	return ok && c.calls > t.Limit
}

func (t ToolBudget) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	c := oc.CallState().(*toolCount)
	return observer.Assessment{
		Summary:  fmt.Sprintf("You have called `%s` %d times; the plan allows %d.", t.Tool, c.calls, t.Limit),
		Severity: observer.Caution,
	}, nil
}

// An incremental observer keeps a count per session, brought up to date by
// the pipeline one call at a time.
func Example_incrementalObserver() {
	store := session.New(nil)
	p, err := observer.NewPipeline(store, []observer.Spec{{
		Observer: ToolBudget{Tool: "web_search", Limit: 2},
		// A sparse trigger: the state still sees every call.
		Trigger: observer.Trigger{EveryNCalls: 2},
	}}, nil)
	if err != nil {
		panic(err)
	}
	for _, tool := range []string{"web_search", "read_file", "web_search", "web_search"} {
		p.AfterToolCall(context.Background(), observer.ToolCallRecord{ToolName: tool, Success: true})
	}
	fmt.Print(observer.BuildContext(store, 0))
	// Output:
	// ## Trajectory Assessment
	//
	// _Generated after tool call #4_
	//
	// ### Tool budget [caution]
	//
	// You have called `web_search` 3 times; the plan allows 2.
}
