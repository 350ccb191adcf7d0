package scan

import "strings"

// Access is what a tool does to the target named in its arguments.
type Access uint8

const (
	NoAccess Access = iota
	ReadAccess
	WriteAccess
)

var (
	writeWords = map[string]bool{
		"write": true, "edit": true, "update": true, "put": true, "save": true, "patch": true,
		"replace": true, "create": true, "set": true, "apply": true, "modify": true, "append": true,
		"insert": true, "delete": true, "remove": true, "rename": true, "move": true, "upload": true,
		"overwrite": true,
	}
	readWords = map[string]bool{
		"read": true, "get": true, "cat": true, "view": true, "open": true, "load": true,
		"fetch": true, "show": true, "head": true, "tail": true, "download": true, "inspect": true,
		"stat": true, "describe": true, "list": true,
	}
	TargetKeys = [...]string{"path", "filepath", "file", "filename", "target", "targetfile", "uri", "url", "key", "resource"}
)

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
	return wordAccess(string(word[:len(w)]))
}

// wordAccess looks a word up in the write and read lists, as it is or
// without one of the endings -s, -r, -er, -or and -ing (writes, writer,
// viewer, editor, reading).
func wordAccess(w string) Access {
	for _, suffix := range [...]string{"", "s", "r", "er", "or", "ing"} {
		if len(w) <= len(suffix) || !strings.HasSuffix(w, suffix) {
			continue
		}
		stem := w[:len(w)-len(suffix)]
		if writeWords[stem] {
			return WriteAccess
		}
		if readWords[stem] {
			return ReadAccess
		}
	}
	return NoAccess
}
