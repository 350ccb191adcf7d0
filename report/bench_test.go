package report_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/report"
)

// longRun is a run of n records, shaped like a long agent session: each
// turn a model request, a response with a short thought and two tool
// calls, a token charge, and the calls with their results (mostly a few
// hundred bytes, one in fifty 20 KB, one in a hundred failing); every
// tenth turn an assessment, added to every model call's input until the
// next, and an efficacy extension.
func longRun(n int) []recorder.Record {
	var out []recorder.Record
	eachLongRunRecord(n, func(rec recorder.Record) { out = append(out, rec) })
	return out
}

// eachLongRunRecord gives emit the records of longRun(n), one at a time.
func eachLongRunRecord(n int, emit func(recorder.Record)) {
	tr := newTrajectory()
	count := 0
	tr.emit = func(rec recorder.Record) {
		if count < n-1 {
			emit(rec)
		}
		count++
	}
	r := tr.run("long-run", nil)
	r.add(&recorder.RunStarted{AgentName: "soak", Limits: recorder.RunLimits{
		Timeout: 24 * time.Hour, MaxTokens: 50_000_000, MaxToolCalls: 40_000, MaxModelCalls: 20_000}})
	r.add(&recorder.Message{Message: schema.UserMessage("Keep the service healthy: check it, fix what breaks, report hourly.")})
	thought := strings.Repeat("Checking the logs for the next failure. ", 5)
	small := strings.Repeat("ok: 200 GET /healthz 3ms\n", 12)
	big := strings.Repeat("2025-06-01T12:00:00Z INFO request served in 3ms\n", 420)
	var used int64
	injected := []recorder.InjectedMessage{}
	for turn := 0; count < n-1; turn++ {
		if turn%10 == 9 {
			block := "## Trajectory Assessment\n\n### Resources [info]\n\n" +
				"You have used " + fmt.Sprint(used) + " tokens. " + strings.Repeat("Keep going at this pace. ", 8)
			r.add(&recorder.AssessmentRecord{Markdown: block,
				AfterCallIndex: turn * 2, Observers: []recorder.ObserverNote{{Name: "Resources", Severity: "info"}}})
			// The block is added to every model call's input until the next.
			injected = []recorder.InjectedMessage{{Kind: recorder.InjectedAssessment, Role: "user", Content: block, AfterCallIndex: turn * 2}}
		}
		calls := []schema.ToolCall{
			{ID: fmt.Sprintf("c%d-0", turn), Function: schema.FunctionCall{Name: "http_get", Arguments: `{"url":"http://svc/healthz"}`}},
			{ID: fmt.Sprintf("c%d-1", turn), Function: schema.FunctionCall{Name: "read_log", Arguments: `{"path":"/var/log/svc.log","tail":400}`}},
		}
		r.add(&recorder.ModelRequest{Model: "gpt-4o-mini", MessageCount: 2 + turn*3, Tools: []string{"http_get", "read_log"}, Injected: injected})
		r.add(&recorder.ModelResponse{Message: schema.AssistantMessage(thought, calls), UsageReported: true, FinishReason: "tool_calls",
			Usage: recorder.TokenUsage{PromptTokens: 2000, CompletionTokens: 40, TotalTokens: 2040, CachedTokens: 1500}, Latency: 800 * time.Millisecond,
			Model: "gpt-4o-mini-2024-07-18", Provider: "OpenAI", CostUSD: 0.000266})
		used += 2040
		r.add(&recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: 2040, Used: used, Limit: 50_000_000})
		for i, c := range calls {
			r.add(&recorder.ToolStarted{CallID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments, CallIndex: turn*2 + i})
			end := &recorder.ToolEnded{CallID: c.ID, Name: c.Function.Name, Result: small, Duration: 3 * time.Millisecond, CallIndex: turn*2 + i}
			switch {
			case turn%50 == 7 && i == 1:
				end.Result = big
			case turn%100 == 3 && i == 0:
				end.Result, end.IsError, end.Error = "", true, "connection refused"
			}
			r.add(end)
		}
		if turn%10 == 9 {
			r.add(&recorder.Extension{Name: "lookout.efficacy", Body: []byte(`{"observer":"Resources","reaction":"carried_on"}`)})
		}
	}
	tr.emit = emit
	r.seq = uint64(n - 1)
	r.add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted, StopReason: "final answer"})
}

// countingWriter counts what is written to it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// maxPageBytes is the size a report of 100,000 records stays under: 10 MB.
const maxPageBytes = 10_000_000

func TestAReportOf100000RecordsStaysUnder10MB(t *testing.T) {
	records := longRun(100_000)
	var w countingWriter
	if err := report.Write(&w, records, nil); err != nil {
		t.Fatal(err)
	}
	if w.n >= maxPageBytes {
		t.Errorf("the page is %d bytes, want under %d", w.n, maxPageBytes)
	}
	t.Logf("%d records: %d bytes", len(records), w.n)
}

func BenchmarkWrite100000Records(b *testing.B) {
	records := longRun(100_000)
	b.ReportAllocs()
	var size int64
	for b.Loop() {
		var w countingWriter
		if err := report.Write(&w, records, nil); err != nil {
			b.Fatal(err)
		}
		size = w.n
	}
	b.ReportMetric(float64(size)/(1<<20), "MiB/page")
}
