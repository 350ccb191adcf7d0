package atif

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

// What Lookout injected into model inputs comes back on import as the
// inputs' injected messages, not as messages of the conversation, so a
// model call's input rebuilt from imported records is the one the model
// was given.
func TestImportGivesInjectedStepsBackToTheModelRequests(t *testing.T) {
	assessment := recorder.InjectedMessage{Kind: recorder.InjectedAssessment, Role: "user", Content: "## Trajectory Assessment\n\nslow down", AfterCallIndex: 1}
	wrapUp := recorder.InjectedMessage{Kind: recorder.InjectedWrapUp, Role: "user", Content: "Wrap up now."}
	tp := newTape().start("r", "", "agent", "").user("r", "fix it")
	tp.add("r", &recorder.ModelRequest{Model: "m"}).reply("r", "", 10, 2, "c1", "read", `{"p":1}`)
	tp.toolStart("r", "c1", "read", `{"p":1}`).toolEnd("r", "c1", "read", "text")
	tp.add("r", &recorder.AssessmentRecord{Markdown: assessment.Content, AfterCallIndex: 1})
	tp.add("r", &recorder.ModelRequest{Model: "m", Injected: []recorder.InjectedMessage{assessment}}).reply("r", "", 12, 2, "c2", "read", `{"p":2}`)
	tp.toolStart("r", "c2", "read", `{"p":2}`).toolEnd("r", "c2", "read", "text")
	tp.add("r", &recorder.ModelRequest{Model: "m", Injected: []recorder.InjectedMessage{assessment}}).reply("r", "", 14, 2, "c3", "read", `{"p":3}`)
	tp.toolStart("r", "c3", "read", `{"p":3}`).toolEnd("r", "c3", "read", "text")
	tp.add("r", &recorder.ModelRequest{Model: "m", Injected: []recorder.InjectedMessage{assessment, wrapUp}}).reply("r", "done", 16, 2)
	tp.end("r")

	traj, err := FromRecords(tp.records, nil)
	require.NoError(t, err)
	back, err := ToRecords(traj)
	require.NoError(t, err)

	var injected [][]recorder.InjectedMessage
	var assessments int
	for _, rec := range back {
		switch p := rec.Payload.(type) {
		case *recorder.ModelRequest:
			injected = append(injected, p.Injected)
		case *recorder.AssessmentRecord:
			assessments++
		case *recorder.Message:
			assert.NotContains(t, p.Message.Content, "Trajectory Assessment", "an injected message became part of the conversation")
			assert.NotEqual(t, wrapUp.Content, p.Message.Content, "an injected message became part of the conversation")
		}
	}
	require.Len(t, injected, 4)
	assert.Empty(t, injected[0])
	assert.Equal(t, []recorder.InjectedMessage{assessment}, injected[1])
	assert.Equal(t, []recorder.InjectedMessage{assessment}, injected[2], "a call given the same block as the one before")
	assert.Equal(t, []recorder.InjectedMessage{assessment, wrapUp}, injected[3])
	assert.Equal(t, 1, assessments)
}
