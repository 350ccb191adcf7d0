package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

// queryRecords is a query of a root run and a child on one budget: two
// model calls, a charged tool call and a control call, and the tokens as
// the budget charged them.
func queryRecords() []recorder.Record {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var records []recorder.Record
	seqs := map[string]uint64{}
	add := func(run, parent string, p recorder.Payload) {
		records = append(records, recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: seqs[run], RunID: run, ParentRunID: parent, RecordedAt: at, Payload: p})
		seqs[run]++
	}
	limits := recorder.RunLimits{MaxTokens: 1000, MaxModelCalls: 4, MaxToolCalls: 2}
	add("root", "", &recorder.RunStarted{AgentName: "lead", Limits: limits})
	add("root", "", &recorder.ModelRequest{})
	add("root", "", &recorder.ModelResponse{UsageReported: true, Usage: recorder.TokenUsage{TotalTokens: 100}})
	add("root", "", &recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: 100, Used: 100, Limit: 1000})
	add("root", "", &recorder.ToolStarted{CallID: "t", Name: "transfer_to_agent", Control: true})
	add("root", "", &recorder.ToolEnded{CallID: "t", Name: "transfer_to_agent"})
	add("child", "root", &recorder.RunStarted{AgentName: "worker", Limits: limits})
	add("child", "root", &recorder.ModelRequest{})
	add("child", "root", &recorder.ModelResponse{UsageReported: true, Usage: recorder.TokenUsage{TotalTokens: 150}})
	add("child", "root", &recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: 150, Used: 250, Limit: 1000})
	add("child", "root", &recorder.ToolStarted{CallID: "s", Name: "search"})
	add("child", "root", &recorder.ToolEnded{CallID: "s", Name: "search", Result: "found"})
	return records
}

func TestInspectShowsEachQuerysBudgetWithControlCallsApart(t *testing.T) {
	path := writeFile(t, "query.jsonl", encode(t, queryRecords()))
	r := lookout("inspect", path)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "  query root (agent lead): 250 of 1,000 tokens, 2 of 4 model calls, 1 of 2 tool calls, and 1 control call not charged\n")

	r = lookout("inspect", "--json", path)
	require.Equal(t, 0, r.code, r.stderr)
	var got struct {
		Budgets []queryBudget `json:"budgets"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	require.Len(t, got.Budgets, 1)
	b := got.Budgets[0]
	assert.Equal(t, [5]any{"root", int64(250), int64(2), int64(1), int64(1)}, [5]any{b.RunID, b.Tokens, b.ModelCalls, b.ToolCalls, b.ControlCalls})
}
