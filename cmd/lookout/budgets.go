package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

// inspected is what inspect --json prints: the summary's report and the
// budget of each query.
type inspected struct {
	summary.Report
	Budgets []queryBudget `json:"budgets"`
}

// queryBudget is what a query, a root run and the runs it started, used
// of the budget they share, counted as the budget counts: the tokens its
// last token charge says were used (added up from the responses before
// any charge was recorded), every model call requested, and the tool
// calls but those of control tools, which are counted apart.
type queryBudget struct {
	RunID        string             `json:"run_id"` // the root run's
	AgentName    string             `json:"agent_name,omitempty"`
	Limits       recorder.RunLimits `json:"limits"`
	Tokens       int64              `json:"tokens"`
	ModelCalls   int64              `json:"model_calls"`
	ToolCalls    int64              `json:"tool_calls"`
	ControlCalls int64              `json:"control_calls"`

	summed  int64 // tokens of the responses
	charged bool  // a token charge was recorded: Tokens is its
}

// queryBudgets returns the budget of each query in records, in the order
// their root runs first appear.
func queryBudgets(records []recorder.Record) []queryBudget {
	parent := map[string]string{}
	for _, r := range records {
		if _, seen := parent[r.RunID]; !seen || parent[r.RunID] == "" {
			parent[r.RunID] = r.ParentRunID
		}
	}
	index := map[string]int{}
	var out []queryBudget
	for _, r := range records {
		root := rootRun(parent, r.RunID)
		i, ok := index[root]
		if !ok {
			i = len(out)
			index[root] = i
			out = append(out, queryBudget{RunID: root})
		}
		out[i].count(r, r.RunID == root)
	}
	return out
}

// rootRun is the run that id descends from whose parent is not in the
// records; a loop of parents, which only damaged records make, ends at
// the run it comes back to.
func rootRun(parent map[string]string, id string) string {
	seen := map[string]bool{id: true}
	for {
		p, ok := parent[id]
		if !ok || p == "" || seen[p] {
			return id
		}
		if _, known := parent[p]; !known {
			return id
		}
		seen[p] = true
		id = p
	}
}

// count adds what r, a record of the query, charged; root says it is the
// root run's.
func (q *queryBudget) count(r recorder.Record, root bool) {
	switch p := r.Payload.(type) {
	case *recorder.RunStarted:
		if root || q.Limits == (recorder.RunLimits{}) {
			q.AgentName, q.Limits = p.AgentName, p.Limits
		}
	case *recorder.ModelRequest:
		q.ModelCalls++
	case *recorder.ModelResponse:
		if p.UsageReported {
			q.summed += p.Usage.TotalTokens
		}
	case *recorder.BudgetRecord:
		if p.Event == recorder.BudgetCharged && p.Resource == "tokens" {
			q.Tokens, q.charged = p.Used, true
		}
	case *recorder.ToolStarted:
		if p.Control {
			q.ControlCalls++
		} else {
			q.ToolCalls++
		}
	}
	if !q.charged {
		q.Tokens = q.summed
	}
}

// writeBudgets writes the budget of each query, a line each.
func writeBudgets(w io.Writer, budgets []queryBudget) error {
	if _, err := fmt.Fprintln(w, "\nbudget of each query (a root run and the runs it started):"); err != nil {
		return err
	}
	for _, q := range budgets {
		line := fmt.Sprintf("  query %s", q.RunID)
		if q.AgentName != "" {
			line += " (agent " + q.AgentName + ")"
		}
		line += ": " + used(q.Tokens, q.Limits.MaxTokens, "tokens") + ", " + used(q.ModelCalls, q.Limits.MaxModelCalls, "model calls") +
			", " + used(q.ToolCalls, q.Limits.MaxToolCalls, "tool calls")
		if q.ControlCalls > 0 {
			line += fmt.Sprintf(", and %s not charged", count(int(q.ControlCalls), "control call", "control calls"))
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// used says "n of limit what", or "n what" without a limit.
func used(n, limit int64, what string) string {
	if limit > 0 {
		return observer.FormatCount(n) + " of " + observer.FormatCount(limit) + " " + what
	}
	if n == 1 {
		what = strings.TrimSuffix(what, "s")
	}
	return observer.FormatCount(n) + " " + what
}
