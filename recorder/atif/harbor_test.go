package atif

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realFixtureRoot returns ../shared/fixtures/atif-real, skipping the test
// when it is absent.
func realFixtureRoot(t *testing.T) string {
	t.Helper()
	atifDir, err := findFixtures()
	if err != nil {
		t.Skipf("shared fixtures not found: %v", err)
	}
	root := filepath.Join(filepath.Dir(atifDir), "atif-real")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("real ATIF fixtures not found at %s", root)
	}
	return root
}

func TestValidateGivesHarborsVerdictOnItsUnitTestCases(t *testing.T) {
	dir := filepath.Join(realFixtureRoot(t), "harbor-unit-tests")
	data, err := os.ReadFile(filepath.Join(dir, "expectations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var verdicts map[string]string
	if err := json.Unmarshal(data, &verdicts); err != nil {
		t.Fatal(err)
	}
	for name, verdict := range verdicts {
		problems, err := ValidateFile(filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := map[bool]string{true: "accepts", false: "rejects"}[problems == nil]; got != verdict {
			t.Errorf("%s: Validate %s, Harbor %s (%v)", name, got, verdict, problems)
		}
	}
}

func TestValidateAcceptsEveryTrajectoryHarborWrote(t *testing.T) {
	root := realFixtureRoot(t)
	n := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".traces.json") ||
			strings.HasPrefix(name, "docs_rfcs_") || strings.Contains(path, "harbor-unit-tests") {
			return nil // not ATIF, or judged by its own test
		}
		n++
		problems, err := ValidateFile(path, nil)
		if err != nil || problems != nil {
			t.Errorf("%s: %v %v", path, err, problems)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 300 {
		t.Errorf("checked %d trajectories, want the 368 Harbor wrote", n)
	}
}

func TestValidateFileFindsTheScreenshotsOfTheComputerUseRunMissing(t *testing.T) {
	src := filepath.Join(realFixtureRoot(t), "harbor-jobs-multimodal", "computer-use-oncall-debug__kFdZhTa", "trajectory.json")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("multimodal fixture not found: %v", err)
	}
	alone := filepath.Join(t.TempDir(), "trajectory.json")
	if err := os.WriteFile(alone, data, 0o600); err != nil {
		t.Fatal(err)
	}
	problems, err := ValidateFile(alone, nil)
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, p := range problems {
		if p.Rule == RuleMediaMissing {
			missing++
		}
	}
	if missing != 15 || len(problems) != missing {
		t.Errorf("problems = %v, want the 15 screenshots missing", problems)
	}
}
