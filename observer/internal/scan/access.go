package scan

// Access is what a tool does to the target named in its arguments.
type Access uint8

const (
	NoAccess Access = iota
	ReadAccess
	WriteAccess
)

var TargetKeys = [...]string{"path", "filepath", "file", "filename", "target", "targetfile", "uri", "url", "key", "resource"}

// ToolAccesses remembers the Access of the tools a session calls, as set
// or as ClassifyTool reads it from their names, for the first
// maxToolsRemembered of them: a name's words cost more to read than a
// small map costs to look up, and an agent that calls one tool many times
// in a row costs no lookup at all. The zero value is ready to use.
type ToolAccesses struct {
	m          map[string]Access
	last       string // the tool asked about last, when lastOK
	lastAccess Access
	lastOK     bool
}

// maxToolsRemembered bounds the tools a ToolAccesses remembers.
const maxToolsRemembered = 256

// Set sets the Access of tool.
func (t *ToolAccesses) Set(tool string, a Access) {
	if t.m == nil {
		t.m = make(map[string]Access)
	}
	t.m[tool], t.lastOK = a, false
}

// Of returns the Access of tool.
func (t *ToolAccesses) Of(tool string) Access {
	if t.lastOK && tool == t.last {
		return t.lastAccess
	}
	a, ok := t.m[tool]
	if !ok {
		a = ClassifyTool(tool)
		if len(t.m) < maxToolsRemembered {
			t.Set(tool, a)
		}
	}
	t.last, t.lastAccess, t.lastOK = tool, a, true
	return a
}

// ClassifyTool reads a tool's Access from the words of its name, split at
// non-letters and at lower-to-upper case changes. A write word wins over
// a read word wherever it comes.
func ClassifyTool(name string) Access {
	found := NoAccess
	for i := 0; i < len(name); {
		start, end := nextWord(name, i)
		found = max(found, foldedWordAccess(name[start:end]))
		i = end
	}
	return found
}

// nextWord returns the bounds of the first word of name at or after i: a
// run of letters that ends at a non-letter or where a lower-case letter
// is followed by an upper-case one. At the end of name the word is empty.
func nextWord(name string, i int) (start, end int) {
	for i < len(name) && !IsLetter(name[i]) {
		i++
	}
	end = min(i+1, len(name))
	for end < len(name) && IsLetter(name[end]) && !isCaseChange(name[end-1], name[end]) {
		end++
	}
	return i, end
}

// isCaseChange reports a lower-case letter followed by an upper-case one,
// where the words of a camel-case name meet.
func isCaseChange(prev, b byte) bool {
	return ByteClasses[prev]&LowerClass != 0 && ByteClasses[b]&UpperClass != 0
}

// foldedWordAccess looks up a word of letters in any case. Words longer
// than the longest listed word with an ending are in neither list.
func foldedWordAccess(w string) Access {
	var word [16]byte
	if len(w) > len(word) {
		return NoAccess
	}
	for i := range len(w) {
		word[i] = w[i] | ('a' - 'A') // letters only: sets the lower-case bit
	}
	return wordAccess(word[:len(w)])
}

// wordAccess looks a word up in the write and read lists, as it is or
// without one of the endings -s, -r, -er, -or and -ing (writes, writer,
// viewer, editor, reading).
func wordAccess(w []byte) Access {
	for _, suffix := range [...]string{"", "s", "r", "er", "or", "ing"} {
		if !hasEnding(w, suffix) {
			continue
		}
		if a := stemAccess(w[:len(w)-len(suffix)]); a != NoAccess {
			return a
		}
	}
	return NoAccess
}

// hasEnding reports whether w ends with suffix, one of wordAccess's
// endings, and is longer. Comparing the bytes of the few endings there
// are costs less than comparing strings.
func hasEnding(w []byte, suffix string) bool {
	n := len(w)
	if n <= len(suffix) {
		return false
	}
	switch len(suffix) {
	case 0:
		return true
	case 1:
		return w[n-1] == suffix[0]
	case 2:
		return w[n-2] == suffix[0] && w[n-1] == suffix[1]
	}
	return string(w[n-len(suffix):]) == suffix
}

// stemAccess returns WriteAccess for a word of the write list and
// ReadAccess for one of the read list. A switch on a word costs a few
// comparisons, where a map lookup hashes it.
func stemAccess(w []byte) Access {
	switch string(w) {
	case "write", "edit", "update", "put", "save", "patch", "replace", "create", "set", "apply", "modify", "append",
		"insert", "delete", "remove", "rename", "move", "upload", "overwrite":
		return WriteAccess
	case "read", "get", "cat", "view", "open", "load", "fetch", "show", "head", "tail", "download", "inspect",
		"stat", "describe", "list":
		return ReadAccess
	}
	return NoAccess
}
