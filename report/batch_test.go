package report_test

import (
	"fmt"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// batchRun is a batch of queries of n records or a few more, shaped like
// examples/multiagent run many times: each query a lead run that starts
// a researcher, a checker and a writer on one budget, each making three
// model calls with a tool call each and handing back with a control
// tool. About one tool call in twenty-three fails, and one query in fifty
// has a model call that fails and ends over its budget.
func batchRun(n int) []recorder.Record {
	tr := newTrajectory()
	limits := recorder.RunLimits{MaxTokens: 20_000, MaxModelCalls: 12, MaxToolCalls: 10, Timeout: time.Hour}
	calls := 0
	for q := 0; len(tr.records) < n; q++ {
		var used int64
		lead := tr.run(fmt.Sprintf("q%d", q), nil)
		lead.add(&recorder.RunStarted{AgentName: "lead", Limits: limits})
		lead.add(&recorder.Message{Message: schema.UserMessage("How often does Go ship? Check the sources.")})
		for i, agent := range []string{"researcher", "checker", "writer"} {
			r := tr.run(fmt.Sprintf("q%d-%s", q, agent), lead)
			r.add(&recorder.RunStarted{AgentName: agent, Limits: limits})
			r.add(&recorder.Message{Message: schema.UserMessage("Your part of: how often does Go ship?")})
			for s := range 3 {
				tool := []string{"search", "fetch", "read"}[(q+i+s)%3]
				call := schema.ToolCall{ID: fmt.Sprintf("c%d", calls), Function: schema.FunctionCall{Name: tool, Arguments: `{"q":"go release cadence"}`}}
				calls++
				r.add(&recorder.ModelRequest{Model: "m", MessageCount: 2 + 2*s, Tools: []string{"search", "fetch", "read", "transfer_to_agent"}})
				if q%50 == 7 && i == 1 && s == 2 {
					r.add(&recorder.ModelResponse{Model: "m", Error: "429 Too Many Requests: rate limit reached"})
					r.add(&recorder.BudgetRecord{Event: recorder.BudgetExceeded, Resource: "model_calls", Amount: 1, Used: 13, Limit: 12})
					break
				}
				r.add(&recorder.ModelResponse{Message: schema.AssistantMessage("Looking it up.", []schema.ToolCall{call}), UsageReported: true,
					Usage: recorder.TokenUsage{PromptTokens: 280, CompletionTokens: 20, TotalTokens: 300}, Latency: 700 * time.Millisecond, Model: "m"})
				used += 300
				r.add(&recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: 300, Used: used, Limit: limits.MaxTokens})
				r.add(&recorder.ToolStarted{CallID: call.ID, Name: tool, Arguments: call.Function.Arguments})
				end := &recorder.ToolEnded{CallID: call.ID, Name: tool, Result: "Go ships a major release every six months.", Duration: 40 * time.Millisecond}
				if calls%23 == 5 {
					end.Result, end.IsError, end.Error = "Error: fetch https://go.dev: connection reset", true, "fetch https://go.dev: connection reset"
				}
				r.add(end)
			}
			r.add(&recorder.ToolStarted{CallID: fmt.Sprintf("x%d-%d", q, i), Name: "transfer_to_agent", Arguments: `{"agent_name":"lead"}`, Control: true})
			r.add(&recorder.ToolEnded{CallID: fmt.Sprintf("x%d-%d", q, i), Name: "transfer_to_agent", Result: "handed over"})
			r.add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted, StopReason: "handed over: transfer_to_agent"})
		}
		lead.add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted, StopReason: "final answer"})
	}
	return tr.records
}
