package messages_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/internal/openaicheck"
	"github.com/lookout-go/lookout/recorder/atif"
)

func TestEveryImportedFixtureExportsValidOpenAIMessages(t *testing.T) {
	root, err := openaicheck.SharedFixtures()
	if err != nil {
		t.Skipf("shared fixtures not found: %v", err)
	}
	var files []string
	for _, sub := range []string{"atif", "atif-real"} {
		_ = filepath.WalkDir(filepath.Join(root, sub), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
				if problems, err := atif.ValidateFile(path, nil); err == nil && problems == nil {
					files = append(files, path)
				}
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no ATIF fixtures")
	}
	for _, file := range files {
		t.Run(strings.TrimPrefix(file, root), func(t *testing.T) {
			tr, err := atif.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			records, err := atif.ToRecordsIn(filepath.Dir(file), tr)
			if err != nil {
				t.Fatal(err)
			}
			if problems := openaicheck.Conversations(records); problems != nil {
				t.Errorf("%d problems:\n%s", len(problems), strings.Join(problems[:min(len(problems), 10)], "\n"))
			}
		})
	}
}
