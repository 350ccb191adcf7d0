package scan

import (
	"strconv"
	"strings"
	"testing"
)

var (
	testWriteWords = []string{"write", "edit", "update", "put", "save", "patch", "replace", "create", "set", "apply",
		"modify", "append", "insert", "delete", "remove", "rename", "move", "upload", "overwrite"}
	testReadWords = []string{"read", "get", "cat", "view", "open", "load", "fetch", "show", "head", "tail",
		"download", "inspect", "stat", "describe", "list"}
)

func TestClassifyToolTakesEachListedWordWithOrWithoutAnEnding(t *testing.T) {
	for _, list := range []struct {
		words []string
		want  Access
	}{{testWriteWords, WriteAccess}, {testReadWords, ReadAccess}} {
		for _, w := range list.words {
			for _, ending := range []string{"", "s", "r", "er", "or", "ing"} {
				for _, name := range []string{w + ending, strings.ToUpper(w + ending), "x_" + w + ending + "_file", "my" + strings.ToUpper(w[:1]) + w[1:] + ending} {
					if got := ClassifyTool(name); got != list.want {
						t.Errorf("ClassifyTool(%q) = %d, want %d", name, got, list.want)
					}
				}
			}
		}
	}
}

func TestClassifyToolReadsTheWordsOfItsName(t *testing.T) {
	for _, c := range []struct {
		name string
		want Access
	}{
		{"read_file", ReadAccess}, {"writeFile", WriteAccess}, {"get_or_set", WriteAccess}, {"ReadWriteLock", WriteAccess},
		{"Show-Head", ReadAccess}, {"str_replace_editor", WriteAccess}, {"uploadS3", WriteAccess}, {"stat2", ReadAccess},
		{"noop", NoAccess}, {"run_tests", NoAccess}, {"bash", NoAccess}, {"catalog", NoAccess}, {"readers", NoAccess},
		{"setting", NoAccess}, {"updating", NoAccess}, {"ing", NoAccess}, {"s", NoAccess}, {"", NoAccess},
		{"overwriteeverythinginonego", NoAccess},
	} {
		if got := ClassifyTool(c.name); got != c.want {
			t.Errorf("ClassifyTool(%q) = %d, want %d", c.name, got, c.want)
		}
	}
}

// A session's tools keep the access set for them, and the others the one
// their names say, whether asked once or many times in a row.
func TestToolAccessesRememberWhatWasSetAndWhatNamesSay(t *testing.T) {
	var a ToolAccesses
	for range 2 {
		if got := a.Of("read_file"); got != ReadAccess {
			t.Errorf("read_file: %v", got)
		}
	}
	a.Set("read_file", WriteAccess)
	if got := a.Of("read_file"); got != WriteAccess {
		t.Errorf("read_file after Set: %v", got)
	}
	if got := a.Of("bash"); got != NoAccess {
		t.Errorf("bash: %v", got)
	}
	for i := range maxToolsRemembered + 10 {
		a.Of("write_" + strconv.Itoa(i))
	}
	if len(a.m) > maxToolsRemembered {
		t.Errorf("remembers %d tools", len(a.m))
	}
}
