package drive

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// The assessment blocks of a run are tagged with one Extra map, made once
// per run, not once per block; another run has its own.
func TestARunsAssessmentBlocksShareTheirExtra(t *testing.T) {
	store := session.New(nil)
	r := newTestRun(t, &lookout.Config{}, store)
	current := session.ValueOf[observer.CurrentAssessment](store)
	block := func(r *Run, index int64) map[string]any {
		current.Seed(observer.CurrentAssessment{CallIndex: index, Assessments: []observer.Assessment{{Observer: "Probe", Summary: "ok"}}})
		msg, _, _, _ := r.assessmentMessage()
		require.NotNil(t, msg)
		kind, ok := lookout.Injected(msg)
		assert.True(t, ok)
		assert.Equal(t, lookout.TagAssessment, kind)
		assert.Equal(t, map[string]any{lookout.Tag: lookout.TagAssessment}, msg.Extra)
		return msg.Extra
	}
	first, second := block(r, 1), block(r, 2)
	assert.Equal(t, reflect.ValueOf(first).UnsafePointer(), reflect.ValueOf(second).UnsafePointer(), "a new map for the second block")
	other := newTestRun(t, &lookout.Config{}, store)
	assert.NotEqual(t, reflect.ValueOf(first).UnsafePointer(), reflect.ValueOf(block(other, 3)).UnsafePointer(), "another run's block shares the map")
}
