package observer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// SlowCalls reports tool calls that took longer than Limit among the last
// ten. It keeps no state of its own: it reads the call log backward and
// stops after ten calls, so its cost does not grow with the run.
type SlowCalls struct{ Limit time.Duration }

func (s SlowCalls) Name() string { return "Slow calls" }

// ShouldRun declines when there is nothing to say, so the last assessment
// is not replaced by an empty one.
func (s SlowCalls) ShouldRun(_ context.Context, oc *observer.Context) bool {
	return len(s.slow(oc)) > 0
}

func (s SlowCalls) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	slow := s.slow(oc)
	var evidence strings.Builder
	for i, r := range slow {
		if i > 0 {
			evidence.WriteByte('\n')
		}
		fmt.Fprintf(&evidence, "#%d %s %s took %s", r.CallIndex, r.ToolName, r.ParamsSummary, observer.FormatDuration(r.Duration))
	}
	severity := observer.Caution
	if oc.Trend(s.Name()) == observer.Escalating || len(slow) > 5 {
		severity = observer.Warning
	}
	return observer.Assessment{
		Summary:  fmt.Sprintf("%d of your last 10 calls took longer than %s.", len(slow), observer.FormatDuration(s.Limit)),
		Severity: severity,
		Observations: []observer.Observation{{
			Category:    "slow_call",
			Description: "These calls spent much of your time budget.",
			Evidence:    evidence.String(),
		}},
		Suggestions: []string{"Prefer narrower calls: a smaller range, fewer files at once."},
	}, nil
}

// slow returns the slow calls among the last ten, oldest first.
func (s SlowCalls) slow(oc *observer.Context) []observer.ToolCallRecord {
	var out []observer.ToolCallRecord
	n := 0
	for _, r := range oc.Calls().Backward() {
		if n == 10 {
			break
		}
		n++
		if r.Duration > s.Limit {
			out = append(out, r)
		}
	}
	slices.Reverse(out)
	return out
}

// Writing your own observer: SlowCalls, above, run every five calls.
func Example_customObserver() {
	store := session.New(nil)
	p, err := observer.NewPipeline(store, []observer.Spec{{
		Observer: SlowCalls{Limit: 30 * time.Second},
		Trigger:  observer.Trigger{EveryNCalls: 5},
	}}, nil)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for i, d := range []time.Duration{2 * time.Second, 45 * time.Second, 3 * time.Second, 70 * time.Second, time.Second} {
		p.AfterToolCall(ctx, observer.ToolCallRecord{
			ToolName: "search", ParamsSummary: fmt.Sprintf("q=part-%d", i+1), Success: true, Duration: d,
		})
	}
	fmt.Print(observer.BuildContext(store, observer.DefaultMaxAgeCalls))
	// Output:
	// ## Trajectory Assessment
	//
	// _Generated after tool call #5_
	//
	// ### Slow calls [caution]
	//
	// 2 of your last 10 calls took longer than 30 seconds.
	//
	// **slow_call**: These calls spent much of your time budget.
	// ```
	// #2 search q=part-2 took 45 seconds
	// #4 search q=part-4 took 1 minute
	// ```
	//
	// **Suggestions**:
	// - Prefer narrower calls: a smaller range, fewer files at once.
}

// index is an observer whose data source is down.
type index struct{}

func (index) Name() string                                      { return "Index" }
func (index) ShouldRun(context.Context, *observer.Context) bool { return true }
func (index) Observe(context.Context, *observer.Context) (observer.Assessment, error) {
	return observer.Assessment{}, errors.New("search index unavailable")
}

// An observer that fails is reported to OnError and stands in the block as
// an observer_error observation; the run and the other observers go on.
func ExamplePipeline_AfterToolCall_observerError() {
	p, err := observer.NewPipeline(session.New(nil), []observer.Spec{{
		Observer: index{},
		Trigger:  observer.Trigger{OnEveryCall: true},
	}}, &observer.PipelineOptions{
		OnError: func(_ context.Context, err error) { fmt.Println("reported:", err) },
	})
	if err != nil {
		panic(err)
	}
	_, current := p.AfterToolCall(context.Background(), observer.ToolCallRecord{ToolName: "search", Success: true})
	fmt.Println(current.Assessments[0].Render())
	// Output:
	// reported: observer "Index": observe: search index unavailable
	// ### Index [info]
	//
	// This observer failed; its view of the run is missing from this assessment.
	//
	// **observer_error**: observer "Index": observe: search index unavailable
}
