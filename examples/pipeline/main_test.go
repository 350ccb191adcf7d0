package main

import (
	"strings"
	"testing"
)

func TestRunPrintsAssessments(t *testing.T) {
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"## Trajectory Assessment",
		"_Generated after tool call #10_",
		"_Generated after tool call #16_", // three failures in a row
		"### Resources [warning]",
		"At this pace tokens run out",
		"stopped: budget exceeded: tokens: 51570 of 50000 used",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
