package lookoutadk

import (
	"errors"
	"testing"

	"github.com/cloudwego/eino/adk"
)

// TestOnlyTheUsualEventSkipsTheRelaysChecks checks which events the relay
// passes on without a look: those of the agent it looked at last, once
// found observed, with no error, no action, outside a workflow.
func TestOnlyTheUsualEventSkipsTheRelaysChecks(t *testing.T) {
	rl := &relay{}
	rl.claim.observe("a")
	ev := func(name string) *adk.AgentEvent { return &adk.AgentEvent{AgentName: name} }
	if rl.plain(ev("a")) {
		t.Fatal("an agent's first event skipped the checks")
	}
	rl.pass(ev("a"))
	if !rl.plain(ev("a")) {
		t.Error("the next event of an observed agent was looked at again")
	}
	for name, e := range map[string]*adk.AgentEvent{
		"nil":          nil,
		"another":      ev("b"),
		"error":        {AgentName: "a", Err: errors.New("boom")},
		"action":       {AgentName: "a", Action: &adk.AgentAction{Exit: true}},
		"interruption": {AgentName: "a", Action: &adk.AgentAction{Interrupted: &adk.InterruptInfo{}}},
	} {
		if rl.plain(e) {
			t.Errorf("the %s event skipped the checks", name)
		}
	}
	rl.workflow = true
	if rl.plain(ev("a")) {
		t.Error("a workflow's event skipped the collapse of its run path")
	}
}
