package atif

import (
	"testing"
)

func TestNestedSubagentsImportAtTheirDepthAndExportNested(t *testing.T) {
	doc := `{"schema_version":"ATIF-v1.8","session_id":"root","agent":{"name":"boss","version":"1"},
	"steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"c1","function_name":"delegate","arguments":{}}],
		"observation":{"results":[{"source_call_id":"c1","content":"done","subagent_trajectory_ref":[{"trajectory_id":"mid"}]}]}}],
	"subagent_trajectories":[{"schema_version":"ATIF-v1.8","trajectory_id":"mid","session_id":"mid","agent":{"name":"mid","version":"1"},
		"steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"c2","function_name":"deeper","arguments":{}}],
			"observation":{"results":[{"source_call_id":"c2","content":"ok","subagent_trajectory_ref":[{"trajectory_id":"leaf"}]}]}}],
		"subagent_trajectories":[{"schema_version":"ATIF-v1.8","trajectory_id":"leaf","agent":{"name":"leaf","version":"1"},
			"steps":[{"step_id":1,"source":"user","message":"go"}]}]}]}`
	records := importValid(t, doc)
	depth := map[string]int{}
	parent := map[string]string{}
	for _, r := range records {
		depth[r.RunID], parent[r.RunID] = r.Depth, r.ParentRunID
	}
	if depth["leaf"] != 2 || parent["leaf"] != "mid" || parent["mid"] != "root" {
		t.Fatalf("leaf at depth %d under %q, mid under %q; want depth 2 under mid, mid under root", depth["leaf"], parent["leaf"], parent["mid"])
	}
	back, err := FromRecords(records, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.SubagentTrajectories) != 1 || len(back.SubagentTrajectories[0].SubagentTrajectories) != 1 ||
		back.SubagentTrajectories[0].SubagentTrajectories[0].TrajectoryID != "leaf" {
		t.Errorf("export does not nest leaf inside mid: %+v", back.SubagentTrajectories)
	}
	if err := back.Validate(); err != nil {
		t.Error(err)
	}
	if back.SubagentTrajectories[0].SessionID != "mid" {
		t.Errorf("mid's session_id = %q, want it kept", back.SubagentTrajectories[0].SessionID)
	}
}

func TestARootWithOnlyATrajectoryIDKeepsIt(t *testing.T) {
	records := importValid(t, `{"schema_version":"ATIF-v1.7","trajectory_id":"t-1","agent":{"name":"a","version":"1"},
		"steps":[{"step_id":1,"source":"user","message":"hi"}]}`)
	back, err := FromRecords(records, nil)
	if err != nil {
		t.Fatal(err)
	}
	if back.TrajectoryID != "t-1" || back.SessionID != "t-1" {
		t.Errorf("trajectory_id %q, session_id %q; want t-1 kept, and the run id as session_id", back.TrajectoryID, back.SessionID)
	}
}
