package adaptertest_test

import (
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"

	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/session"
)

func TestRunBuildsAFreshSpecForEachModeAndChecksIt(t *testing.T) {
	var inputs []adaptertest.Input
	a := adaptertest.Adapter{Run: func(_ testing.TB, in adaptertest.Input) adaptertest.Outcome {
		inputs = append(inputs, in)
		return adaptertest.Outcome{Final: schema.AssistantMessage(in.Mode.String(), nil)}
	}}
	var builds int
	var finals []string
	var stores []*session.Store
	adaptertest.Run(t, a, adaptertest.Scenario{Name: "fake", Modes: adaptertest.Both, Build: func(*testing.T, adaptertest.Adapter) adaptertest.Spec {
		builds++
		return adaptertest.Spec{Check: func(_ *testing.T, r adaptertest.Result) {
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
	var modes []adaptertest.Mode
	a := adaptertest.Adapter{Run: func(_ testing.TB, in adaptertest.Input) adaptertest.Outcome {
		modes = append(modes, in.Mode)
		return adaptertest.Outcome{}
	}}
	store := session.New(nil)
	adaptertest.Run(t, a, adaptertest.Scenario{Name: "twice", Runs: func(t *testing.T, _ adaptertest.Adapter, run adaptertest.RunFunc) {
		for _, m := range []adaptertest.Mode{adaptertest.Stream, adaptertest.Generate} {
			assert.Same(t, store, run(t, adaptertest.Spec{Store: store}, m).Store)
		}
	}})
	assert.Equal(t, []adaptertest.Mode{adaptertest.Stream, adaptertest.Generate}, modes)
}
