package observer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/stall"
)

// Progress traces: runs that make progress with calls that trip naive
// detectors. Not one detector may fire on any of them.
func TestProgressTracesStayQuiet(t *testing.T) {
	tests := []struct {
		name  string
		task  observer.Task
		stall *stall.Detector
		calls []observer.ToolCallRecord
	}{
		{
			name:  "paginated reads with changing arguments",
			task:  observer.Task{Prompt: "Find orders over $1,000 in the `orders` table and summarise them."},
			stall: stall.New(),
			calls: func() []observer.ToolCallRecord {
				var out []observer.ToolCallRecord
				for page := 1; page <= 30; page++ {
					out = append(out, succeeded("sql_query",
						fmt.Sprintf(`{"table":"orders","page":%d,"page_size":50,"request_id":"req-%d"}`, page, page*7),
						fmt.Sprintf(`{"rows":[{"id":%d}],"page":%d}`, page*50, page)))
				}
				for offset := 0; offset < 20*4000; offset += 4000 {
					out = append(out, succeeded("read_file",
						fmt.Sprintf(`{"path":"exports/orders.csv","offset":%d,"limit":4000}`, offset),
						fmt.Sprintf("row %d,...", offset)))
				}
				return out
			}(),
		},
		{
			name:  "polling a declared job-status tool until the job finishes, its progress moving on",
			task:  observer.Task{Prompt: "Run the nightly build and report the result."},
			stall: &stall.Detector{PollingTools: []string{"job_status"}},
			calls: func() []observer.ToolCallRecord {
				out := []observer.ToolCallRecord{succeeded("start_job", `{"name":"nightly"}`, `{"job_id":"j-8812"}`)}
				for i := 0; i <= 100; i += 5 {
					out = append(out, succeeded("job_status", `{"job_id":"j-8812"}`,
						fmt.Sprintf(`{"state":"running","progress":%d,"checked_at":"2026-01-15T14:%02d:00Z"}`, i, i/5)))
				}
				return append(out,
					succeeded("job_status", `{"job_id":"j-8812"}`, `{"state":"succeeded"}`),
					succeeded("job_logs", `{"job_id":"j-8812"}`, "build ok"))
			}(),
		},
		{
			name:  "polling a declared polling tool that answers the same, fewer times than its cap, until done",
			task:  observer.Task{Prompt: "Deploy the release and wait for it to be live."},
			stall: &stall.Detector{PollingTools: []string{"deploy_status", "sleep"}},
			calls: func() []observer.ToolCallRecord {
				out := []observer.ToolCallRecord{succeeded("deploy", `{"release":"v2.4.0"}`, `{"id":"d-1"}`)}
				for range stall.DefaultPollingCap - 1 {
					out = append(out,
						succeeded("sleep", `{"seconds":10}`, "slept 10s"),
						succeeded("deploy_status", `{"id":"d-1"}`, `{"state":"in_progress"}`))
				}
				return append(out, succeeded("deploy_status", `{"id":"d-1"}`, `{"state":"live"}`))
			}(),
		},
		{
			name:  "editing many different files, testing after each edit",
			task:  observer.Task{Prompt: "Rename Money.Round to Money.RoundHalfEven across services/billing."},
			stall: stall.New(),
			calls: func() []observer.ToolCallRecord {
				var out []observer.ToolCallRecord
				for i := range 30 {
					path := fmt.Sprintf("services/billing/pkg%d/file%d.go", i%6, i)
					out = append(out,
						readFile(path, fmt.Sprintf("package pkg%d // uses Round", i%6)),
						succeeded("edit_file", fmt.Sprintf(`{"path":"%s","old":"Round(","new":"RoundHalfEven("}`, path), "edited 1 line"),
						succeeded("run_tests", `{"package":"./services/billing/..."}`, "ok  \tservices/billing\t0.412s"),
					)
				}
				return out
			}(),
		},
		{
			name:  "a test-driven loop where the tests fail until the fix lands",
			task:  observer.Task{Prompt: "Make TestRound in services/billing pass."},
			stall: stall.New(),
			calls: func() []observer.ToolCallRecord {
				var out []observer.ToolCallRecord
				for i := range 6 {
					out = append(out,
						succeeded("edit_file", fmt.Sprintf(`{"path":"services/billing/round.go","old":"v%d","new":"v%d"}`, i, i+1), "edited"),
						failed("run_tests", `{"package":"./services/billing"}`, fmt.Sprintf("--- FAIL: TestRound: got %d.%d, want 2.50", 2, 40+i)),
					)
				}
				return append(out, succeeded("run_tests", `{"package":"./services/billing"}`, "ok"))
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.stall, cascade.New(), drift.New()).task(tt.task)
			h.run(tt.calls...)
			assert.Empty(t, h.firings())
		})
	}
}

// The contrast: the same shapes of trace, stuck, do fire.
func TestStuckVariantsOfTheProgressTracesFire(t *testing.T) {
	t.Run("a page read again and again", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(times(5, succeeded("sql_query", `{"table":"orders","page":3}`, `{"rows":[]}`))...)
		assert.Contains(t, h.firings(), "Stall@4")
	})
	t.Run("the same edit and the same test result, again and again", func(t *testing.T) {
		edit := succeeded("edit_file", `{"path":"round.go","old":"a","new":"b"}`, "edited")
		test := succeeded("run_tests", `{"package":"./..."}`, "FAIL TestRound")
		h := newHarness(t, stall.New())
		h.run(edit, test, edit, test, edit, test)
		assert.Equal(t, []string{"Stall@6"}, h.firings())
	})
}
