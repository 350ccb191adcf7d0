package observer_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
)

var updateRenders = flag.Bool("update", false, "rewrite testdata/renders.txt from the renderer's output")

// renderTable returns the blocks of a table of assessments, each
// assessment rendered on its own too, separated by a line of "=".
func renderTable() string {
	observations := [][]observer.Observation{
		nil,
		{{Category: "repeat", Description: "`noop` was called 10 times.", Evidence: "#1 noop {}\n… 8 more calls …\n#10 noop {}"}},
		{{Category: "drift", Description: "Off task."}, {Category: "", Description: "", Evidence: "a ``` b"}},
		{{Category: "x", Description: "y", Evidence: "````"}, {Category: "z", Description: "w", Evidence: "`one` and ``two``"}},
	}
	suggestions := [][]string{nil, {"Stop."}, {"Use the result you already have.", "", "Change the arguments."}}
	severities := []observer.Severity{observer.Info, observer.Caution, observer.Warning, observer.Severity(7), observer.Severity(-1)}
	var all []observer.Assessment
	for i, obs := range observations {
		for j, sugg := range suggestions {
			for k, sev := range severities {
				summary := ""
				if (i+j+k)%3 != 0 {
					summary = fmt.Sprintf("Summary %d%d%d.", i, j, k)
				}
				all = append(all, observer.Assessment{Observer: fmt.Sprintf("Obs%d", k), Summary: summary, Observations: obs, Suggestions: sugg, Severity: sev})
			}
		}
	}
	var out strings.Builder
	for n := range all {
		c := observer.CurrentAssessment{Assessments: all[n:min(n+n%5, len(all))], CallIndex: int64(n * n * n * 37)}
		out.WriteString(c.Render())
		out.WriteString("\n====\n")
		out.WriteString(all[n].Render())
		out.WriteString("\n====\n")
	}
	return out.String()
}

// Rendered blocks are compared with those of a table of assessments kept
// in testdata.
func TestRenderOfATableOfAssessments(t *testing.T) {
	const path = "testdata/renders.txt"
	got := renderTable()
	if *updateRenders {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
}
