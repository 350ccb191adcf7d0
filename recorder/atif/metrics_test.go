package atif

import "testing"

func TestFinalMetricsCountTheSubagentsEachTrajectoryDelegatedTo(t *testing.T) {
	// Harbor's trajectories count what their subagents spent in the
	// parent's final_metrics (the Terminus 2 goldens: 6502 prompt tokens
	// in the parent's steps, 7802 in its final_metrics), so that the root
	// document's totals are what the whole run cost.
	tr := export(t, subagentTape().records, nil)
	type totals struct{ prompt, completion, steps int }
	get := func(tr *Trajectory) totals {
		fm := tr.FinalMetrics
		if fm == nil || fm.TotalPromptTokens == nil || fm.TotalCompletionTokens == nil || fm.TotalSteps == nil {
			t.Fatalf("%s: final_metrics = %+v", tr.TrajectoryID, fm)
		}
		return totals{*fm.TotalPromptTokens, *fm.TotalCompletionTokens, *fm.TotalSteps}
	}
	// root: 50+80 prompt, 5+4 completion in its own steps; child 20+30 and
	// 2+3 plus its grandchild's 5 and 1; writer 40 and 8; early none.
	if got, want := get(tr), (totals{130 + 55 + 40, 9 + 6 + 8, len(tr.Steps)}); got != want {
		t.Errorf("root final_metrics = %+v, want %+v", got, want)
	}
	byID := map[string]*Trajectory{}
	var index func(subs []Trajectory)
	index = func(subs []Trajectory) {
		for i := range subs {
			byID[subs[i].TrajectoryID] = &subs[i]
			index(subs[i].SubagentTrajectories)
		}
	}
	index(tr.SubagentTrajectories)
	if got, want := get(byID["child"]), (totals{55, 6, len(byID["child"].Steps)}); got != want {
		t.Errorf("child final_metrics = %+v, want %+v (its own and its grandchild's)", got, want)
	}
	if got, want := get(byID["grandchild"]), (totals{5, 1, 1}); got != want {
		t.Errorf("grandchild final_metrics = %+v, want %+v", got, want)
	}
	if fm := byID["early"].FinalMetrics; fm.TotalPromptTokens != nil || fm.TotalCompletionTokens != nil {
		t.Errorf("early final_metrics = %+v, want no token totals: nothing reported usage", fm)
	}
}
