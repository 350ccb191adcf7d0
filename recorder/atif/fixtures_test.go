package atif

import (
	"os"
	"path/filepath"
	"testing"
)

// fixtureDir returns the shared ATIF fixtures folder, which sits next to
// the module root. Without it the test is skipped locally and fails in CI.
func fixtureDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("module root (go.mod) not found above the test directory")
		}
		dir = parent
	}
	fixtures := filepath.Join(dir, "..", "shared", "fixtures", "atif")
	if _, err := os.Stat(fixtures); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ATIF fixtures missing in CI: %v", err)
		}
		t.Skipf("ATIF fixtures not found at %s", fixtures)
	}
	return fixtures
}

// fixtureFiles lists every .json file in the fixtures folder.
func fixtureFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixtureDir(t), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no ATIF fixtures found")
	}
	return files
}
