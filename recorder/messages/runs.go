package messages

import "github.com/lookout-go/lookout/recorder"

// Run is the conversation of one run of a query: the root's, or that of
// a sub-agent run under it (an agent used as a tool, a transfer's target,
// a workflow's agent), each as its model saw it. ParentID names the run
// that started it and ParentToolCallID the tool call that did, when one
// did; both are empty for the root. A Run is plain data: safe for
// concurrent reads.
type Run struct {
	ID               string    `json:"run_id"`
	ParentID         string    `json:"parent_run_id,omitempty"`
	ParentToolCallID string    `json:"parent_tool_call_id,omitempty"`
	Agent            string    `json:"agent,omitempty"`
	Messages         []Message `json:"messages"`
}

// Runs returns the conversation of a run, picked as FromRecords picks
// it, and of every run under it, one per agent run of a multi-agent
// query, in the order they started, each as FromRecords exports it.
// Options work as for FromRecords.
func Runs(records []recorder.Record, opts *Options) ([]Run, error) {
	o := optionsOf(opts)
	root, err := pickRun(records, o.RunID)
	if err != nil {
		return nil, err
	}
	under := map[string]bool{root: true}
	var out []Run
	for _, r := range records {
		p, ok := r.Payload.(*recorder.RunStarted)
		if !ok || !under[r.RunID] && !under[r.ParentRunID] || r.RunID != root && r.ParentRunID == "" {
			continue
		}
		under[r.RunID] = true
		run := Run{ID: r.RunID, Agent: p.AgentName}
		if r.RunID != root {
			run.ParentID, run.ParentToolCallID = r.ParentRunID, p.ParentToolCallID
		}
		o.RunID = r.RunID
		if run.Messages, err = FromRecords(records, &o); err != nil {
			return nil, err
		}
		out = append(out, run)
	}
	return out, nil
}
