package atif

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lookout-go/lookout/internal/openaicheck"
)

// fixtureDir returns the shared ATIF fixtures folder, which sits next to
// the module root. Without it the test is skipped locally and fails in CI.
func fixtureDir(t testing.TB) string {
	t.Helper()
	fixtures, err := findFixtures()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ATIF fixtures missing in CI: %v", err)
		}
		t.Skipf("ATIF fixtures not found at %s", fixtures)
	}
	return fixtures
}

// findFixtures returns ../shared/fixtures/atif from the module root, if
// it exists.
func findFixtures() (string, error) {
	shared, err := openaicheck.SharedFixtures()
	if err != nil {
		return filepath.Join("..", "shared", "fixtures", "atif"), err
	}
	fixtures := filepath.Join(shared, "atif")
	_, err = os.Stat(fixtures)
	return fixtures, err
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

// readFixture reads an ATIF file and decodes it.
func readFixture(t testing.TB, path string) ([]byte, *Trajectory) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return data, tr
}
