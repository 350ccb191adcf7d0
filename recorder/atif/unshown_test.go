package atif

import (
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

// unshownOf lists, for each assessment step of tr, whether it is marked
// as never shown.
func unshownOf(tr *Trajectory) []bool {
	var out []bool
	for _, s := range tr.Steps {
		if a, ok := lookoutExtra(s.Extra)["assessment"].(map[string]any); ok {
			out = append(out, a["shown"] == false)
		}
	}
	return out
}

// An assessment the model was never shown is marked so in the export,
// and again in the export of its import.
func TestReExportKeepsAnUnshownAssessment(t *testing.T) {
	tp := newTape().start("r", "", "a", "").user("r", "go").
		add("r", &recorder.ModelRequest{Injected: []recorder.InjectedMessage{}}).
		reply("r", "", 1, 1, "c1", "search", `{}`).
		toolStart("r", "c1", "search", "").toolEnd("r", "c1", "search", "ok").
		add("r", &recorder.AssessmentRecord{Markdown: "## Trajectory Assessment", AfterCallIndex: 0}).
		add("r", &recorder.ModelRequest{Injected: []recorder.InjectedMessage{}}).
		reply("r", "done", 1, 1).end("r")
	first := export(t, tp.records, nil)
	if got := unshownOf(first); len(got) != 1 || !got[0] {
		t.Fatalf("first export: unshown = %v, want [true]", got)
	}
	back, err := ToRecords(first)
	if err != nil {
		t.Fatal(err)
	}
	second := export(t, throughJSONL(t, back), nil)
	if got := unshownOf(second); len(got) != 1 || !got[0] {
		t.Errorf("re-export: unshown = %v, want [true]", got)
	}
}
