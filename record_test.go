package lookout

import (
	"testing"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/summary"
)

// The root writes the names the exports and analytics read; it cannot
// import those packages, so the names are kept in step here.
func TestRecordedNamesMatchTheirReaders(t *testing.T) {
	if efficacyExtension != summary.EfficacyExtension {
		t.Errorf("efficacy extension %q, summary reads %q", efficacyExtension, summary.EfficacyExtension)
	}
	if TagAssessment != recorder.InjectedAssessment || TagWrapUp != recorder.InjectedWrapUp {
		t.Errorf("injected kinds %q %q, the recorder names %q %q", TagAssessment, TagWrapUp, recorder.InjectedAssessment, recorder.InjectedWrapUp)
	}
	if parentToolCallKey != atif.ParentToolCallKey {
		t.Errorf("parent tool call key %q, atif reads %q", parentToolCallKey, atif.ParentToolCallKey)
	}
}
