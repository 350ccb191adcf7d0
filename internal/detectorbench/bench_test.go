package detectorbench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/internal/detectorbench"
)

// realRuns is the folder of labelled real runs next to the project.
const realRuns = "../../../shared/benchmarks/detectors/real"

// On the labelled real runs Drift raises no false alarm, and Stall and
// Errors still find every labelled episode.
func TestRealRunsScoreAsLabelled(t *testing.T) {
	if _, err := os.Stat(realRuns); err != nil {
		t.Skip("the labelled real runs are not next to the project")
	}
	cases, err := detectorbench.Load(realRuns)
	require.NoError(t, err)
	r, err := detectorbench.Run(cases, detectorbench.Specs)
	require.NoError(t, err)
	labelled := map[string]int{}
	for _, c := range cases {
		for k, v := range c.Labels {
			labelled[k] += len(v)
		}
	}
	for i, d := range detectorbench.Detectors {
		s := r.Scores[i]
		if d.Label == "drift" {
			assert.Zero(t, s.FP, "Drift false alarms: %v", r.Notes)
		}
		if d.Label == "stall" || d.Label == "errors" {
			assert.Positive(t, labelled[d.Label], "the runs label %s episodes", d.Label)
			assert.Equal(t, labelled[d.Label], s.TP, "%s finds every labelled episode: %v", d.Observer, r.Notes)
			assert.Zero(t, s.FN, d.Observer)
		}
	}
}

// On the repository's 291 real runs, of four agent harnesses and three
// kinds of task: Stall finds at least 80% of the labelled loops with at
// least 90% precision, a median of at most 5 calls after the loop starts;
// Errors finds every cascade within 3 calls of its start, with no false
// alarm; Drift finds at least 80% of the off-scope episodes and raises at
// most 0.3 false alarms per 100 calls.
func TestRepositoryRunsScoreAsDocumented(t *testing.T) {
	cases, err := detectorbench.Load("testdata/real")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(cases), 150)
	harnesses, kinds := map[string]bool{}, map[string]bool{}
	for _, c := range cases {
		harness, _, _ := strings.Cut(c.Family, "/") // terminus-2/<model>: one harness, two models
		harnesses[harness] = true
		kinds[c.Kind] = true
	}
	assert.GreaterOrEqual(t, len(harnesses), 4, "agent harnesses: %v", harnesses)
	assert.GreaterOrEqual(t, len(kinds), 3, "kinds of task: %v", kinds)
	r, err := detectorbench.Run(cases, detectorbench.Specs)
	require.NoError(t, err)
	stall, errs, drift := r.Scores[0], r.Scores[1], r.Scores[2]
	assert.GreaterOrEqual(t, stall.Recall(), 0.8, "Stall recall: %v", r.Notes)
	assert.GreaterOrEqual(t, stall.Precision(), 0.9, "Stall precision: %v", r.Notes)
	assert.LessOrEqual(t, stall.MedianDelay(), 5.0, "Stall's median delay")
	assert.Equal(t, 1.0, errs.Recall(), "Errors finds every cascade: %v", r.Notes)
	for _, d := range errs.Delays {
		assert.LessOrEqual(t, d, 3, "Errors finds each cascade within 3 calls of its start: %v", errs.Delays)
	}
	assert.Zero(t, errs.FP, "Errors false alarms: %v", r.Notes)
	assert.GreaterOrEqual(t, drift.Recall(), 0.8, "Drift recall: %v", r.Notes)
	assert.LessOrEqual(t, drift.FalseAlarmsPer100(), 0.3, "Drift false alarms: %v", r.Notes)
}

func TestLoadTakesLabelsFromTheLabelsFile(t *testing.T) {
	dir := t.TempDir()
	call := `{"tool": "read_file", "args": {"path": "a.go"}, "result": "package a", "ok": true}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"id": "a", "calls": [`+call+`]}`), 0o600))
	labels := filepath.Join(dir, detectorbench.LabelsFile)
	require.NoError(t, os.WriteFile(labels, []byte(`{"a": {"stall": ["1"], "why": "a reason"}}`), 0o600))
	cases, err := detectorbench.Load(dir)
	require.NoError(t, err)
	require.Len(t, cases, 1, "the labels file is no case")
	assert.Equal(t, []string{"1"}, cases[0].Labels["stall"])
	assert.Equal(t, "a reason", cases[0].Why)

	require.NoError(t, os.WriteFile(labels, []byte(`{"a": {}, "b": {}}`), 0o600))
	_, err = detectorbench.Load(dir)
	assert.ErrorContains(t, err, "labels b, which has no case")
	require.NoError(t, os.WriteFile(labels, []byte(`{}`), 0o600))
	_, err = detectorbench.Load(dir)
	assert.ErrorContains(t, err, "has no labels for a")
}

func TestScoreRunCountsEpisodesAndFalseAlarms(t *testing.T) {
	tests := []struct {
		name   string
		labels []string
		fired  []int64
		want   detectorbench.Score
	}{
		{"quiet on a run with no episode is a true negative", nil, nil, detectorbench.Score{TN: 1}},
		{"speaking within an episode finds it", []string{"4-6"}, []int64{5, 6}, detectorbench.Score{TP: 1, Delays: []int{1}}},
		{"speaking one call early still finds it", []string{"4-6"}, []int64{3}, detectorbench.Score{TP: 1, Delays: []int{0}}},
		{"silence through an episode misses it", []string{"4-6"}, nil, detectorbench.Score{FN: 1}},
		{"consecutive calls outside every episode are one false alarm", nil, []int64{2, 3, 4, 9}, detectorbench.Score{FP: 2}},
		{"a single call label", []string{"8"}, []int64{8}, detectorbench.Score{TP: 1, Delays: []int{0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := detectorbench.ScoreRun(tt.labels, tt.fired)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := detectorbench.ScoreRun([]string{"6-4"}, nil)
	assert.Error(t, err, "a range that ends before it starts is rejected")
}

func TestLoadRejectsAFolderWithoutCases(t *testing.T) {
	_, err := detectorbench.Load(t.TempDir())
	assert.Error(t, err)
}

// A run that repeats one call: Stall finds the labelled episode, and the
// others stay quiet.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "cases")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	call := `{"tool": "read_file", "args": {"path": "go.mod"}, "result": "module x", "ok": true}`
	run := `{"id": "repeat", "task": "Fix go.mod.", "labels": {"stall": ["4-5"], "errors": [], "drift": []},
	 "calls": [` + call + `,` + call + `,` + call + `,` + call + `,` + call + `]}`
	if err := os.WriteFile(filepath.Join(dir, "repeat.json"), []byte(run), 0o600); err != nil {
		panic(err)
	}
	cases, err := detectorbench.Load(dir)
	if err != nil {
		panic(err)
	}
	r, err := detectorbench.Run(cases, detectorbench.Specs)
	if err != nil {
		panic(err)
	}
	if err := r.Print(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// detector    TP   FP   FN   TN
	// Stall        1    0    0    0
	// Errors       0    0    0    1
	// Drift        0    0    0    1
}
