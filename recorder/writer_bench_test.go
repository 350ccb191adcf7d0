package recorder_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// agentMix is what a tool-using agent with observers records per model
// and tool call: the request with the assessment it injects, the response
// with its text and tool call, the budget charge and the tool call's
// start and end; and every tenth call, as the Resource observer fires by
// default, a new assessment. It averages 490 bytes a record.
type agentMix struct {
	request    recorder.ModelRequest
	response   recorder.ModelResponse
	budget     recorder.BudgetRecord
	started    recorder.ToolStarted
	ended      recorder.ToolEnded
	assessment recorder.AssessmentRecord
	ids        [100]string
}

const mixAssessment = "## Trajectory Assessment\n\n_Generated after tool call #10_\n\n### Resources [info]\n\n" +
	"You have 59 minutes remaining before the deadline. You have used 755 of 50,000 tokens (1% of budget).\n"

const mixReply = "I listed the service's directory. The billing handler lives in internal/billing/handler.go; " +
	"next I read it to find where invoices are rounded."

const mixArguments = `{"path":"internal/billing/handler.go","offset":0,"limit":200}`

const mixResult = `package billing` + "\n\n" + `// Handler serves invoices.` + "\n" +
	`func (h *Handler) Invoice(ctx context.Context, id string) (*Invoice, error) {` + "\n" +
	`	inv, err := h.store.Get(ctx, id)` + "\n" + `	if err != nil {` + "\n" + `		return nil, fmt.Errorf("get invoice %s: %w", id, err)` + "\n" +
	`	}` + "\n" + `	inv.Total = round(inv.Total, 2)` + "\n" + `	return inv, nil` + "\n" + `}` + "\n"

func newAgentMix() *agentMix {
	index := 0
	m := &agentMix{
		request: recorder.ModelRequest{Model: "gpt-4o-mini", Tools: []string{"read_file", "list_dir", "grep"},
			Injected: []recorder.InjectedMessage{{Kind: recorder.InjectedAssessment, Role: "user", Content: mixAssessment, AfterCallIndex: 10}}},
		response: recorder.ModelResponse{
			Message: &schema.Message{Role: schema.Assistant, Content: mixReply,
				ToolCalls:    []schema.ToolCall{{Index: &index, ID: "call_0", Type: "function", Function: schema.FunctionCall{Name: "read_file", Arguments: mixArguments}}},
				ResponseMeta: &schema.ResponseMeta{FinishReason: "tool_calls", Usage: &schema.TokenUsage{PromptTokens: 1510, CompletionTokens: 42, TotalTokens: 1552}}},
			Usage: recorder.TokenUsage{PromptTokens: 1510, CompletionTokens: 42, TotalTokens: 1552}, UsageReported: true,
			FinishReason: "tool_calls", Latency: 812 * time.Millisecond, Model: "gpt-4o-mini", Provider: "OpenAI",
		},
		budget:     recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: 1552, Used: 9310, Limit: 50000},
		started:    recorder.ToolStarted{CallID: "call_0", Name: "read_file", Arguments: mixArguments},
		ended:      recorder.ToolEnded{CallID: "call_0", Name: "read_file", Result: mixResult, Duration: 3 * time.Millisecond},
		assessment: recorder.AssessmentRecord{Markdown: mixAssessment, AfterCallIndex: 10, Observers: []recorder.ObserverNote{{Name: "resource", Severity: "info"}}},
	}
	for i := range m.ids {
		m.ids[i] = "call_" + strconv.Itoa(i)
	}
	return m
}

// mixRecords is how many records agentMix.emit writes for ten calls.
const mixRecords = 51

// emit records the mix for call i: 5 records, and 6 for every tenth call.
func (m *agentMix) emit(ctx context.Context, run *recorder.Trace, i int) error {
	id := m.ids[i%len(m.ids)]
	m.request.MessageCount = 2*i + 2
	if err := run.ModelRequest(ctx, m.request); err != nil {
		return err
	}
	if err := run.ModelResponse(ctx, m.response); err != nil {
		return err
	}
	if err := run.Budget(ctx, m.budget); err != nil {
		return err
	}
	m.started.CallID, m.started.CallIndex = id, i
	if err := run.ToolStarted(ctx, m.started); err != nil {
		return err
	}
	m.ended.CallID, m.ended.CallIndex = id, i
	if err := run.ToolEnded(ctx, m.ended); err != nil {
		return err
	}
	if i%10 != 9 {
		return nil
	}
	m.assessment.AfterCallIndex = i
	return run.Assessment(ctx, m.assessment)
}

// BenchmarkRecorderJSONL measures the Recorder writing an agent's record
// mix to a JSONL file, everything included: stamping, redaction, the
// queue, encoding and the file's writes. It reports records per second of
// the process's CPU time (every thread: the emitter, the Recorder's
// goroutine, the collector), which a busy machine does not change, and
// the records lost, none under Block.
func BenchmarkRecorderJSONL(b *testing.B) {
	ctx := context.Background()
	sink, err := recorder.NewFileSink(filepath.Join(b.TempDir(), "run.jsonl"), nil)
	if err != nil {
		b.Fatal(err)
	}
	rec := recorder.New(sink, &recorder.Options{Block: true, BlockTimeout: time.Minute})
	run, _ := rec.StartRun(ctx, recorder.RunInfo{AgentName: "bench"})
	mix := newAgentMix()
	b.ReportAllocs()
	cpu := processCPU()
	for i := 0; b.Loop(); i++ {
		if err := mix.emit(ctx, run, i); err != nil {
			b.Fatal(err)
		}
	}
	if err := rec.Close(ctx); err != nil { // the rate includes writing everything out
		b.Fatal(err)
	}
	used := processCPU() - cpu
	records := float64(b.N) * mixRecords / 10
	b.ReportMetric(records/used.Seconds(), "records/cpu-s")
	b.ReportMetric(float64(rec.Dropped()), "dropped")
}
