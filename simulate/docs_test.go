package simulate_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goBlock is a fenced Go block of a Markdown page, indented or not.
var goBlock = regexp.MustCompile("(?ms)^[ \\t]*```go\\n(.*?)^[ \\t]*```")

// space collapses every run of white space to one space, so that a
// snippet matches its example however either is indented.
func space(s string) string { return strings.Join(strings.Fields(s), " ") }

// Every Go snippet of docs/simulate.md is in an example of this package
// (or, for a declaration, in its source), so go test compiles and runs it.
func TestEverySnippetOfTheDocIsAnExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "simulate.md"))
	if err != nil {
		t.Skipf("docs/simulate.md: %v", err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") && !strings.HasPrefix(f, "example") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.WriteString(space(string(b)))
		src.WriteByte(' ')
	}
	blocks := goBlock.FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 8 {
		t.Fatalf("found %d Go snippets in docs/simulate.md", len(blocks))
	}
	for _, b := range blocks {
		if !strings.Contains(src.String(), space(b[1])) {
			t.Errorf("this snippet of docs/simulate.md is in no example:\n%s", b[1])
		}
	}
}
