package drive

import (
	"math"
	"reflect"
	"runtime"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
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

// A new block alone is recorded in the room made with it, without an
// allocation; the room is taken once, so that a later record of the same
// block does not write over an earlier one's.
func TestANewBlockIsRecordedInTheRoomMadeWithIt(t *testing.T) {
	store := session.New(nil)
	r := newTestRun(t, &lookout.Config{}, store)
	current := session.ValueOf[observer.CurrentAssessment](store)
	user := &schema.Message{Role: schema.User, Content: "go"}
	block := func(index int64) *schema.Message {
		current.Seed(observer.CurrentAssessment{CallIndex: index, Assessments: []observer.Assessment{{Observer: "Probe", Summary: "ok"}}})
		msg, _, _, _ := r.assessmentMessage()
		require.NotNil(t, msg)
		return msg
	}
	injectedIn := func(input []*schema.Message) []recorder.InjectedMessage {
		return r.injectedIn(input[injectedFrom(input):])
	}
	injectedIn([]*schema.Message{user, block(1)})
	// The process's allocation count takes in other goroutines' too: the
	// least over a few new blocks is the recording's own.
	var msg *schema.Message
	var first []recorder.InjectedMessage
	least := uint64(math.MaxUint64)
	for index := int64(2); index < 7; index++ {
		msg = block(index)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		first = injectedIn([]*schema.Message{user, msg})
		runtime.ReadMemStats(&after)
		least = min(least, after.Mallocs-before.Mallocs)
	}
	assert.Zero(t, least, "allocations recording a new block")
	want := []recorder.InjectedMessage{{Kind: lookout.TagAssessment, Role: string(msg.Role), Content: msg.Content, AfterCallIndex: 6}}
	assert.Equal(t, want, first)

	wrapUp := r.message("wrap up", lookout.TagWrapUp)
	assert.Len(t, injectedIn([]*schema.Message{user, msg, wrapUp}), 2)
	again := injectedIn([]*schema.Message{user, msg})
	assert.Equal(t, want, again)
	assert.NotSame(t, &first[0], &again[0], "the block's room was used twice")
	assert.Equal(t, want, first)
}
