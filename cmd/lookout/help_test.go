package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryCommandsHelpEndsWithExamples(t *testing.T) {
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			r := lookout(c.name, "-h")
			require.Equal(t, exitOK, r.code, r.stderr)
			_, examples, ok := strings.Cut(r.stdout, "\nExamples:\n")
			require.True(t, ok, "no Examples section in:\n%s", r.stdout)
			assert.Contains(t, examples, "  lookout "+c.name)
			assert.True(t, strings.HasSuffix(examples, "\n") && !strings.HasSuffix(examples, "\n\n"), "%q", examples)
		})
	}
}

// TestTheExamplesParse runs each example's arguments through its
// command's flags, so that no example shows a flag that does not exist or
// leaves out an argument the command needs.
func TestTheExamplesParse(t *testing.T) {
	for _, c := range commands {
		for _, line := range strings.Split(c.examples, "\n") {
			args, ok := exampleArgs(line, c.name)
			if !ok {
				continue
			}
			t.Run(strings.TrimSpace(line), func(t *testing.T) {
				fs, _, _ := c.declare()
				files, err := parse(fs, args)
				require.NoError(t, err)
				assert.NoError(t, c.checkArgs(files))
			})
		}
	}
}

// exampleArgs returns the arguments after "lookout NAME" on an example
// line, up to a pipe or a redirection, and whether the line runs lookout.
func exampleArgs(line, name string) ([]string, bool) {
	fields := strings.Fields(line)
	for len(fields) > 0 && strings.Contains(fields[0], "=") {
		fields = fields[1:] // environment variables
	}
	if len(fields) < 2 || fields[0] != "lookout" {
		return nil, false
	}
	if fields[1] != name {
		return nil, false
	}
	var args []string
	for _, f := range fields[2:] {
		if f == "|" || f == ">" {
			break
		}
		args = append(args, f)
	}
	return args, true
}
