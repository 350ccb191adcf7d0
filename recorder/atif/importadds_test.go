package atif

import (
	"os"
	"path/filepath"
	"testing"
)

// TestImportExportAddsNoCallCount imports every fixture and exports it
// again: a step the source left without llm_call_count has none in the
// export, since the source did not say how many calls it stood for.
func TestImportExportAddsNoCallCount(t *testing.T) {
	files := fixtureFiles(t)
	files = append(files, realFixtureFiles(t)...)
	invented, steps := 0, 0
	for _, file := range files {
		original, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Decode(original)
		if err != nil {
			t.Fatal(err)
		}
		records, err := ToRecordsIn(filepath.Dir(file), tr)
		if err != nil {
			t.Fatal(err)
		}
		back, err := FromRecords(records, &Options{RunID: RootRuns(records)[0]})
		if err != nil {
			t.Fatal(err)
		}
		invented += countInvented(tr, back, &steps)
	}
	if invented > 0 {
		t.Errorf("the export gives llm_call_count to %d of %d steps whose source had none", invented, steps)
	}
}

// countInvented counts the steps of back, and of its subagents, that set
// llm_call_count where the same step of tr did not, adding the steps
// compared to *steps.
func countInvented(tr, back *Trajectory, steps *int) int {
	n := 0
	for i := range min(len(tr.Steps), len(back.Steps)) {
		*steps++
		if tr.Steps[i].LLMCallCount == nil && back.Steps[i].LLMCallCount != nil {
			n++
		}
	}
	for i := range min(len(tr.SubagentTrajectories), len(back.SubagentTrajectories)) {
		n += countInvented(&tr.SubagentTrajectories[i], &back.SubagentTrajectories[i], steps)
	}
	return n
}
