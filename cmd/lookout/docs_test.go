package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// installLine is how the README and docs/cli.md say to install the CLI.
const installLine = "go install github.com/lookout-go/lookout/cmd/lookout@latest"

// readDoc reads a file relative to the module root.
func readDoc(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(data)
}

func TestTheDocsSayHowToInstallTheCLI(t *testing.T) {
	for _, doc := range []string{"README.md", "docs/cli.md"} {
		assert.Contains(t, readDoc(t, doc), installLine, doc)
	}
}

// helpBlock is a fenced block in docs/cli.md that starts with a help
// command line: "$ lookout help", "$ lookout help CMD" or "$ lookout CMD -h".
var helpBlock = regexp.MustCompile("(?ms)^```\n\\$ lookout ((?:help(?: [a-z]+)?)|(?:[a-z]+ -h))\n(.*?)^```$")

func TestTheDocsQuoteTheHelpAsPrinted(t *testing.T) {
	blocks := helpBlock.FindAllStringSubmatch(readDoc(t, "docs/cli.md"), -1)
	quoted := map[string]bool{}
	for _, b := range blocks {
		args := strings.Fields(b[1])
		t.Run(b[1], func(t *testing.T) {
			r := lookout(args...)
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Equal(t, r.stdout, b[2])
		})
		quoted[args[0]] = true
	}
	assert.True(t, quoted["help"], "docs/cli.md quotes lookout help")
	for _, c := range commands {
		assert.True(t, quoted[c.name], "docs/cli.md quotes lookout %s -h", c.name)
	}
}
