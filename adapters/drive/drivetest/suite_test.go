package drivetest

import (
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"

	"github.com/lookout-go/lookout/session"
)

func TestRunBuildsAFreshSpecForEachModeAndChecksIt(t *testing.T) {
	var inputs []Input
	a := Adapter{Run: func(_ testing.TB, in Input) Outcome {
		inputs = append(inputs, in)
		return Outcome{Final: schema.AssistantMessage(in.Mode.String(), nil)}
	}}
	var builds int
	var finals []string
	var stores []*session.Store
	runScenario(t, a, scenario{Name: "fake", Modes: both, Build: func(*testing.T, Adapter) spec {
		builds++
		return spec{Check: func(_ *testing.T, r result) {
			finals = append(finals, r.Final.Content)
			stores = append(stores, r.Store)
		}}
	}})
	assert.Equal(t, 2, builds)
	assert.Equal(t, []string{"generate", "stream"}, finals)
	if assert.Len(t, inputs, 2) {
		assert.Equal(t, "do the task", inputs[0].Query)
		got, _ := session.FromContext(inputs[1].Ctx)
		assert.Same(t, stores[1], got, "the run's ctx carries the session the check sees")
	}
	assert.NotSame(t, stores[0], stores[1], "each run has a fresh session")
}

func TestRunsDrivesAScenarioThatRunsSeveralTimes(t *testing.T) {
	var modes []Mode
	a := Adapter{Run: func(_ testing.TB, in Input) Outcome {
		modes = append(modes, in.Mode)
		return Outcome{}
	}}
	store := session.New(nil)
	runScenario(t, a, scenario{Name: "twice", Runs: func(t *testing.T, _ Adapter, run runFunc) {
		for _, m := range []Mode{Stream, Generate} {
			assert.Same(t, store, run(t, spec{Store: store}, m).Store)
		}
	}})
	assert.Equal(t, []Mode{Stream, Generate}, modes)
}
