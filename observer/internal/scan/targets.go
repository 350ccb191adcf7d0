package scan

import (
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EachMember calls fn for each member of the JSON object args, with its
// key and value: a string's raw content without quotes, or the raw text of
// any other value. It stops when fn returns false. It reports whether args
// is a JSON object; fn may have been called for members before a problem.
func EachMember(args string, fn func(key, val string, isString bool) bool) bool {
	i := skipSpace(args, 0)
	if i >= len(args) || args[i] != '{' {
		return false
	}
	i, empty := openContainer(args, i, '}')
	if empty {
		return skipSpace(args, i) == len(args)
	}
	return eachMemberFrom(args, i, fn)
}

// eachMemberFrom does eachMember's work from the first member's key at
// args[i].
func eachMemberFrom(args string, i int, fn func(key, val string, isString bool) bool) bool {
	for {
		key, at, end, ok := memberAt(args, i)
		if !ok {
			return false
		}
		if val, isString := memberValue(args[at:end]); !fn(key, val, isString) {
			return true
		}
		var more bool
		if i, more, ok = nextElement(args, end, '}'); !more {
			return ok && skipSpace(args, i) == len(args)
		}
	}
}

// memberAt reads the object member whose key starts at args[i]: it
// returns the key, and where the raw value starts and ends.
func memberAt(args string, i int) (key string, at, end int, ok bool) {
	key, at, ok = memberKey(args, i)
	if !ok {
		return "", at, at, false
	}
	at = skipSpace(args, at)
	end, ok = skipValue(args, at, 0)
	return key, at, end, ok
}

// nextElement reads on from the end of an element at s[i] in a container
// that ends with closing: it returns where the next element starts, and
// more, or, when the container ends there, the index after it.
func nextElement(s string, i int, closing byte) (next int, more, ok bool) {
	next, done, ok := afterElement(s, i, closing)
	if !ok || done {
		return next, false, ok
	}
	return skipSpace(s, next), true, true
}

// memberValue returns a member's raw value as eachMember passes it on: a
// string without its quotes, anything else as it is.
func memberValue(raw string) (val string, isString bool) {
	if len(raw) >= 2 && raw[0] == '"' {
		return raw[1 : len(raw)-1], true
	}
	return raw, false
}

// skipValue returns the index after the JSON value at s[i].
func skipValue(s string, i, depth int) (int, bool) { return walkValue(s, i, "", depth, nil) }

// walkStrings calls fn for every string value in the JSON value args, at
// any depth, with the key of the object member it belongs to ("" at the
// top level; array elements take their array's key). It reports whether
// args is valid JSON as far as it was read.
func walkStrings(args string, fn func(key, val string)) bool {
	i := skipSpace(args, 0)
	end, ok := walkValue(args, i, "", 0, fn)
	return ok && skipSpace(args, end) == len(args)
}

// walkValue returns the index after the JSON value at s[i], calling fn,
// when not nil, for every string in it as walkStrings does.
func walkValue(s string, i int, key string, depth int, fn func(key, val string)) (int, bool) {
	if i >= len(s) || depth > maxDepth {
		return i, false
	}
	switch s[i] {
	case '"':
		return walkString(s, i, key, fn)
	case '{':
		return walkContainer(s, i, key, depth, '}', fn)
	case '[':
		return walkContainer(s, i, key, depth, ']', fn)
	}
	return literalEnd(s, i)
}

// walkString returns the index after the JSON string at s[i], passing its
// raw content to fn when fn is not nil.
func walkString(s string, i int, key string, fn func(key, val string)) (int, bool) {
	end, ok := stringEnd(s, i)
	if ok && fn != nil {
		fn(key, s[i+1:end-1])
	}
	return end, ok
}

// walkContainer returns the index after the object or array at s[i],
// which ends with closing, walking its values. An array's elements take
// key, the array's own.
func walkContainer(s string, i int, key string, depth int, closing byte, fn func(key, val string)) (int, bool) {
	i, empty := openContainer(s, i, closing)
	if empty {
		return i, true
	}
	for {
		var k string
		var ok bool
		if k, i, ok = elementKey(s, i, key, closing); !ok {
			return i, false
		}
		if i, ok = walkValue(s, i, k, depth+1, fn); !ok {
			return i, false
		}
		var more bool
		if i, more, ok = nextElement(s, i, closing); !more {
			return i, ok
		}
	}
}

// elementKey returns the key of the element at s[i] of a container that
// ends with closing, and where its value starts: an object member's own
// key, or key, the array's, for an array element.
func elementKey(s string, i int, key string, closing byte) (string, int, bool) {
	if closing != '}' {
		return key, i, true
	}
	k, i, ok := memberKey(s, i)
	if !ok {
		return k, i, false
	}
	return k, skipSpace(s, i), true
}

// contentKeys hold file contents, patches and free text, which name no
// target of their own.
var contentKeys = NewWordSet(map[string]bool{
	"content": true, "contents": true, "text": true, "body": true, "data": true, "patch": true,
	"diff": true, "message": true, "prompt": true, "query": true, "code": true, "input": true,
	"oldstring": true, "newstring": true, "oldstr": true, "newstr": true, "replacement": true,
	"description": true, "comment": true,
})

// IsContentKey reports a key, folded as FoldKey does, whose values hold
// contents or free text rather than what a call acts on.
func IsContentKey(folded []byte) bool { return contentKeys.Has(folded) }

// Limits on what target extraction reads.
const (
	maxTargetLen     = 256
	maxCommandLen    = 512
	maxTargetsPerArg = 4
)

// TargetFinder extracts the paths, hosts and resource names a call's
// arguments name.
type TargetFinder struct {
	resourceKeys *WordSet[bool]
	key          []byte
	out          []string
	// paths has bit i set when out[i] was read as a path, not as a URL's
	// host or a resource name.
	paths uint64
	each  StringReader // see FindWith
}

// NewTargetFinder returns a finder that takes the values under the
// argument keys in resourceKeys, folded as FoldResourceKeys does, as
// resource names. It only reads the set.
func NewTargetFinder(resourceKeys *WordSet[bool]) *TargetFinder {
	return &TargetFinder{resourceKeys: resourceKeys}
}

// FoldResourceKeys returns the set of keys, each folded as FoldKey does.
func FoldResourceKeys(keys []string) *WordSet[bool] {
	m := make(map[string]bool, len(keys))
	var buf [32]byte
	for _, k := range keys {
		// A key already folded, as the default ones are, is kept as it is
		// rather than copied.
		key := k
		if folded := FoldKey(buf[:0], k); string(folded) != k {
			key = string(folded)
		}
		m[key] = true
	}
	return NewWordSet(m)
}

// Find appends to dst the targets named in args, normalized, at most
// maxTargetsPerArg of them.
func (f *TargetFinder) Find(dst []string, args string) []string {
	return f.FindWith(dst, args, nil)
}

// StringReader reads the strings of a call's arguments.
type StringReader interface {
	// ReadString takes a string's raw content and its key (that of the
	// array holding it, for an element), folded as FoldKey folds it.
	ReadString(folded []byte, val string)
}

// FindWith is Find, and passes every string of args to each, when not
// nil, in the same reading of args.
func (f *TargetFinder) FindWith(dst []string, args string, each StringReader) []string {
	f.out, f.paths, f.each = slices.Grow(dst, maxTargetsPerArg), 0, each
	if !walkStrings(args, f.visit) {
		f.out, f.paths = f.out[:len(dst)], 0
		f.words(args)
	}
	f.each = nil
	return f.out
}

// IsPath reports whether the i-th target of the last find was read as a
// path.
func (f *TargetFinder) IsPath(i int) bool { return i < 64 && f.paths&(1<<i) != 0 }

func (f *TargetFinder) visit(key, val string) {
	if f.each == nil && (len(f.out) >= maxTargetsPerArg || val == "") {
		return
	}
	f.key = FoldKey(f.key[:0], key)
	if f.each != nil {
		f.each.ReadString(f.key, val)
	}
	if len(f.out) >= maxTargetsPerArg || val == "" {
		return
	}
	switch {
	case contentKeys.Has(f.key):
	case f.resourceKeys != nil && f.resourceKeys.Has(f.key):
		if len(val) <= maxTargetLen {
			f.addName(val)
		}
	default:
		f.value(val)
	}
}

// value adds the targets of a string under a key that is neither for
// content nor for a resource: the string itself when it is a bare name,
// else those among its words.
func (f *TargetFinder) value(val string) {
	switch {
	case isBareName(val):
		f.word(val)
	case len(val) <= maxCommandLen:
		f.words(val)
	}
}

// words looks for targets among the space-separated words of s, as in a
// shell command. s may be a JSON string's raw content: its escaped line
// breaks and tabs separate words too.
func (f *TargetFinder) words(s string) {
	s = PrefixOf(s, maxCommandLen)
	for i := 0; i < len(s) && len(f.out) < maxTargetsPerArg; {
		if n := separatorAt(s, i); n > 0 {
			i += n
			continue
		}
		start, named := i, false
	word:
		for i < len(s) {
			switch commandBytes[s[i]] {
			case wordPlain:
			case wordSpace:
				break word
			case wordEscape:
				if separatorAt(s, i) > 0 {
					break word
				}
				// An escaped quote names nothing; any other escape may be
				// a Windows path's separator.
				named = named || i+1 < len(s) && s[i+1] != '"'
				i++ // the escaped byte is the word's
			case wordSlash:
				named = true
			case wordDot:
				named = named || i+1 < len(s) && isAlnum(s[i+1])
			}
			i++
		}
		// A word that may be a URL or a path has a slash, or a dot before
		// a letter or digit.
		if w := s[start:min(i, len(s))]; named && w[0] != '-' {
			f.word(trimWord(w))
		}
	}
}

// Classes of the bytes of a command's words, as words reads them.
const (
	wordPlain = iota
	wordSpace
	wordEscape
	wordSlash
	wordDot
)

// commandBytes classes every byte.
var commandBytes = func() (t [256]uint8) {
	for _, c := range []byte(" \t\n\r\v\f") {
		t[c] = wordSpace
	}
	t['\\'], t['/'], t['.'] = wordEscape, wordSlash, wordDot
	return t
}()

// separatorAt returns the length of the word separator at s[i]: ASCII
// white space, or the escape of a line break or tab in a JSON string; 0
// when there is none.
func separatorAt(s string, i int) int {
	switch commandBytes[s[i]] {
	case wordSpace:
		return 1
	case wordEscape:
		if i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 't' || s[i+1] == 'r') {
			return 2
		}
	}
	return 0
}

// word adds w if it is a URL (its host) or looks like a path.
func (f *TargetFinder) word(w string) {
	if host, ok := UrlHost(w); ok {
		f.add(host)
		return
	}
	if t, ok := pathTarget(w); ok {
		f.addPath(t)
	}
}

func (f *TargetFinder) add(t string) {
	if t == "" || t == "." || t == "/" {
		return
	}
	for _, have := range f.out {
		if have == t {
			return
		}
	}
	f.out = append(f.out, t)
}

// addName adds the host of a URL, or w as the name of a resource.
func (f *TargetFinder) addName(w string) {
	if host, ok := UrlHost(w); ok {
		f.add(host)
	} else {
		f.add(CleanTarget(w))
	}
}

// addPath adds t, read as a path.
func (f *TargetFinder) addPath(t string) {
	n := len(f.out)
	f.add(t)
	if len(f.out) > n && n < 64 {
		f.paths |= 1 << n
	}
}

// trimWord strips the quotes and punctuation that surround a word in
// prose or a command, quotes escaped as in a JSON string too, and the dots
// and colons that end it.
func trimWord(w string) string {
	i, j := 0, len(w)
	for i < j {
		if wordEdges[w[i]] == aroundWord {
			i++
		} else if w[i] == '\\' && i+1 < j && w[i+1] == '"' {
			i += 2
		} else {
			break
		}
	}
	for i < j && wordEdges[w[j-1]] != 0 {
		j--
		if w[j] == '"' && j > i && w[j-1] == '\\' {
			j--
		}
	}
	return w[i:j]
}

// Bytes at the edges of a word that trimWord strips.
const (
	aroundWord = 1 // at either end
	afterWord  = 2 // at its end only
)

// wordEdges classes the bytes that trimWord strips.
var wordEdges = func() (t [256]uint8) {
	for _, b := range []byte("\"'`()[]{}<>,;!?") {
		t[b] = aroundWord
	}
	t['.'], t[':'] = afterWord, afterWord
	return t
}()

// isPromptSeparator reports the runes that end a word of a prompt: spaces,
// and the markdown around a path in a prompt written in markdown, as in
// **a/b.go**, *a/b.go* and [b.go](a/b.go).
func isPromptSeparator(r rune) bool {
	switch r {
	case '*', '(', ')', '[', ']':
		return true
	}
	return unicode.IsSpace(r)
}

// trimPromptWord strips from a prompt's word the punctuation that
// surrounds it, and the underscores of markdown emphasis (_a/b.go_),
// which come in pairs; those of a name such as __init__.py do not.
func trimPromptWord(w string) string {
	w = trimWord(w)
	for len(w) > 2 && w[0] == '_' && w[len(w)-1] == '_' {
		w = trimWord(w[1 : len(w)-1])
	}
	return w
}

// UrlHost returns the lower-cased host of an absolute URL.
func UrlHost(s string) (string, bool) {
	k := strings.IndexByte(s, ':')
	if k < 0 {
		return "", false
	}
	if !strings.HasPrefix(s[k:], "://") {
		k = strings.Index(s, "://")
	}
	if k <= 0 || k > 16 || !IsLetter(s[0]) || RunOf(s[1:k], IsSchemeByte) != k-1 {
		return "", false
	}
	host := hostOf(s[k+3:])
	if host == "" {
		return "", false
	}
	return strings.ToLower(host), true
}

// hostOf returns the host of what follows a URL's scheme: without the
// path, query or fragment, the user's name or the port.
func hostOf(rest string) string {
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.Contains(rest[i:], "]") {
		rest = rest[:i]
	}
	return rest
}

// pathTarget returns the word w cleaned, as CleanTarget cleans it, when w
// names a file or directory: it has a slash, or is a file name with an
// extension, such as main.go. The classes of w's bytes, read once, tell
// both.
func pathTarget(w string) (string, bool) {
	if len(w) > maxTargetLen {
		return "", false
	}
	seen := classesOf(w)
	switch {
	case seen&notInPath != 0:
		return "", false
	case seen&(slashByte|backslashByte) != 0:
		// A path has a component of two letters or digits at least:
		// n/a and 1/2 are not paths.
		if !hasWordOfTwo(w) {
			return "", false
		}
	case !isFileName(w):
		return "", false
	}
	if needsTrim(w) {
		return CleanTarget(w), true
	}
	return cleanClassed(w, seen), true
}

// isFileName reports a word that is a file name with an extension, such
// as main.go, and not an abbreviation such as e.g or i.e.
func isFileName(w string) bool {
	dot := strings.LastIndexByte(w, '.')
	return dot > 0 && len(w)-dot <= 9 && isExtension(w[dot+1:]) && !(dot == 1 && len(w) == 3)
}

// hasWordOfTwo reports whether s holds two ASCII letters or digits in a
// row.
func hasWordOfTwo(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] < 0x80 && s[i-1] < 0x80 && IsWordByte(s[i]) && IsWordByte(s[i-1]) {
			return true
		}
	}
	return false
}

// shellWords are commands and shell words a prompt puts in backticks
// when it tells how to work, not what to work on.
var shellWords = NewWordSet(map[string]bool{
	"open": true, "cat": true, "ls": true, "cd": true, "echo": true, "grep": true, "sed": true,
	"awk": true, "python": true, "python3": true, "bash": true, "sh": true, "nc": true, "curl": true,
	"wget": true, "find": true, "head": true, "tail": true, "less": true, "vim": true, "nano": true,
	"chmod": true, "sudo": true, "pip": true, "git": true, "make": true, "gcc": true, "file": true,
	"strings": true, "objdump": true, "gdb": true, "submit": true, "exit": true, "true": true,
	"false": true, "rm": true, "cp": true, "mv": true, "mkdir": true, "touch": true, "xxd": true,
	"sort": true, "wc": true, "diff": true, "ssh": true, "docker": true, "npm": true, "node": true,
	"go": true, "edit": true, "create": true, "search": true, "goto": true, "scroll": true,
	"none": true, "null": true, "n/a": true, "e.g": true, "i.e": true, "etc": true,
})

// isShellWord reports a backticked word of a prompt that names no target:
// a flag, a number, or a shell command or word.
func isShellWord(w string) bool {
	if w[0] == '-' || RunOf(w, IsDigit) == len(w) {
		return true
	}
	var lower [16]byte
	if len(w) > len(lower) {
		return false // longer than any shell word
	}
	for i := range len(w) {
		lower[i] = w[i]
		if 'A' <= w[i] && w[i] <= 'Z' {
			lower[i] += 'a' - 'A'
		}
	}
	return shellWords.Has(lower[:len(w)])
}

// isExtension reports a file name's extension: ASCII letters and digits,
// at least one of them a letter.
func isExtension(ext string) bool {
	return RunOf(ext, isAlnum) == len(ext) && RunOf(ext, IsDigit) < len(ext)
}

// CleanTarget normalizes a path, host or name for scope matching: forward
// slashes, no "./" or trailing slash, lower case.
func CleanTarget(t string) string {
	if needsTrim(t) {
		t = strings.TrimSpace(t)
	}
	if t == "" {
		return ""
	}
	return cleanClassed(t, classesOf(t))
}

// needsTrim reports whether t may start or end with white space.
func needsTrim(t string) bool {
	return t != "" && (t[0] <= ' ' || t[len(t)-1] <= ' ' || t[0] >= utf8.RuneSelf || t[len(t)-1] >= utf8.RuneSelf)
}

// classesOf returns the classes of t's bytes, as targetBytes has them,
// together: one reading tells what cleaning t has to do. The bytes are
// read four at a time.
func classesOf(t string) (seen uint8) {
	for ; len(t) >= 4; t = t[4:] {
		seen |= targetBytes[t[0]] | targetBytes[t[1]] | targetBytes[t[2]] | targetBytes[t[3]]
	}
	for i := 0; i < len(t); i++ {
		seen |= targetBytes[t[i]]
	}
	return seen
}

// cleanClassed does CleanTarget's work on t, which is neither empty nor
// needs trimming, and whose bytes have the classes seen.
func cleanClassed(t string, seen uint8) string {
	if seen&backslashByte != 0 {
		t, seen = strings.ReplaceAll(t, `\`, "/"), seen|slashByte
	}
	if seen&slashByte != 0 || t[0] == '.' {
		switch {
		case isClean(t):
		case len(t) > 1 && t[len(t)-1] == '/' && isClean(t[:len(t)-1]):
			// A directory named with its slash at the end, as in
			// "cd /app/": the slash is all path.Clean would drop.
			t = t[:len(t)-1]
		default:
			t = path.Clean(t)
		}
	} else if seen&colonByte != 0 {
		t = withoutPort(t)
	}
	switch {
	case seen&wideByte != 0:
		return strings.ToLower(t)
	case seen&upperByte != 0:
		return lowerASCII(t)
	}
	return t
}

// lowerASCII returns the ASCII text t in lower case, in one allocation.
func lowerASCII(t string) string {
	var b strings.Builder
	b.Grow(len(t))
	for len(t) > 0 {
		i := 0
		for i < len(t) && (t[i] < 'A' || t[i] > 'Z') {
			i++
		}
		b.WriteString(t[:i])
		if i < len(t) {
			b.WriteByte(t[i] + 'a' - 'A')
			i++
		}
		t = t[i:]
	}
	return b.String()
}

// Classes of the bytes of a target, as CleanTarget and pathTarget read
// them.
const (
	slashByte uint8 = 1 << iota
	backslashByte
	upperByte
	wideByte  // of a multi-byte character
	notInPath // space, =, braces, |, <, > and *: not in a path a command names
	colonByte // before a port
)

// targetBytes classes every byte.
var targetBytes = func() (t [256]uint8) {
	t['/'], t['\\'] = slashByte, backslashByte
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = upperByte
	}
	for c := utf8.RuneSelf; c < len(t); c++ {
		t[c] = wideByte
	}
	for _, c := range []byte(" \t\n={}|<>*") {
		t[c] = notInPath
	}
	t[':'] = colonByte
	return t
}()

// isClean reports whether path.Clean would leave the path t as it is:
// no empty, "." or ".." component, and no slash at its end. A path with no
// "//" or "/." in it, that neither starts with a dot nor ends with a
// slash, has none, which two searches tell.
func isClean(t string) bool {
	if t == "/" || t == "" {
		return t != ""
	}
	if t[0] != '.' && t[len(t)-1] != '/' && !strings.Contains(t, "//") && !strings.Contains(t, "/.") {
		return true
	}
	start := 0
	for i := 0; i <= len(t); i++ {
		if i < len(t) && t[i] != '/' {
			continue
		}
		switch c := t[start:i]; {
		case c == "" && i > 0, c == ".", c == "..":
			return false
		}
		start = i + 1
	}
	return true
}

// withoutPort returns a host name without its port: host for host:8080.
func withoutPort(t string) string {
	i := strings.LastIndexByte(t, ':')
	if i > 0 && i < len(t)-1 && RunOf(t[i+1:], IsDigit) == len(t)-i-1 {
		return t[:i]
	}
	return t
}

// ScopeOf returns the scope entry a target implies: the directory of a
// file path, so that its neighbours are in scope too, or the target
// itself.
func ScopeOf(t string) string {
	slash := strings.LastIndexByte(t, '/')
	if slash == 0 && strings.Contains(t[1:], ".") {
		// A file at the top of the tree stands for its directory.
		return "/"
	}
	if slash <= 0 {
		return t
	}
	if strings.Contains(t[slash+1:], ".") {
		return t[:slash]
	}
	return t
}

// InScope reports whether target t lies within scope entry e: it is e, is
// under e as a directory, contains e as whole path components (so the
// relative entry services/billing matches /repo/services/billing/x.go), is
// a file named after a bare entry (orders.csv for orders), or is a
// subdomain of a host e.
func InScope(e, t string) bool {
	switch {
	case e == "":
		return false
	case t == e, underDir(e, t), isSubdomain(e, t):
		return true
	case e[0] == '/':
		return false
	}
	return containsComponents(e, t)
}

// underDir reports whether t lies under the directory e.
func underDir(e, t string) bool {
	return len(t) > len(e) && strings.HasPrefix(t, e) && (t[len(e)] == '/' || e[len(e)-1] == '/')
}

// isSubdomain reports whether t is a subdomain of the host e. A bare word
// ("json") is no domain, and would cover every file with it as extension.
func isSubdomain(e, t string) bool {
	return len(t) > len(e) && strings.HasSuffix(t, e) && t[len(t)-len(e)-1] == '.' && isDomain(e)
}

// isDomain reports whether e reads as a host name: a dot after its first
// byte, and no slash.
func isDomain(e string) bool {
	return strings.IndexByte(e, '.') > 0 && strings.IndexByte(e, '/') < 0
}

// containsComponents reports whether the relative entry e occurs in t as
// whole path components, or names a file of t when e is a bare word.
func containsComponents(e, t string) bool {
	bare := strings.IndexByte(e, '.') < 0 && strings.IndexByte(e, '/') < 0
	for from := 0; from < len(t); {
		k := strings.Index(t[from:], e)
		if k < 0 {
			return false
		}
		at := from + k
		if componentsAt(t, at, at+len(e), bare) {
			return true
		}
		from = at + 1
	}
	return false
}

// componentsAt reports whether t[at:end] is made of whole path components,
// or, for a bare entry, is the name of a file in t without its extension:
// orders.csv for orders.
func componentsAt(t string, at, end int, bare bool) bool {
	if at > 0 && t[at-1] != '/' {
		return false
	}
	if end == len(t) || t[end] == '/' {
		return true
	}
	return bare && isExtensionAt(t, end)
}

// isExtensionAt reports whether t[end:] is the extension of a file name:
// a dot and no slash after it.
func isExtensionAt(t string, end int) bool {
	return t[end] == '.' && !strings.Contains(t[end:], "/")
}

// maxPromptScope bounds the scope entries taken from a prompt.
const maxPromptScope = 64

// PromptScope returns the scope entries a task's prompt names: URLs (their
// hosts), paths and file names (their directories, when they have one),
// and words in backticks, taken as resource names; at most maxPromptScope
// of them.
func PromptScope(prompt string) []string {
	f := &TargetFinder{out: make([]string, 0, 16)}
	f.backticked(prompt)
	f.promptWords(prompt)
	for i, t := range f.out {
		f.out[i] = ScopeOf(t)
	}
	return f.out
}

// backticked adds the words in backticks of a prompt, as resource names or
// URLs, up to maxPromptScope targets in all.
func (f *TargetFinder) backticked(prompt string) {
	rest := prompt
	for len(f.out) < maxPromptScope {
		open := strings.IndexByte(rest, '`')
		if open < 0 {
			return
		}
		closing := strings.IndexByte(rest[open+1:], '`')
		if closing < 0 {
			return
		}
		if w := rest[open+1 : open+1+closing]; isBareName(w) && !isShellWord(w) && hasAlnum(w) && !isAttributeChain(w) {
			f.addName(w)
		}
		rest = rest[open+2+closing:]
	}
}

// hasAlnum reports whether w has a letter or a digit: """ and ... name
// nothing.
func hasAlnum(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// isAttributeChain reports a dotted chain of code, such as
// self.field.widget.attrs.get or obj.Method(): three dots or more, a call,
// or a part that starts with self, this or cls, has an underscore or an
// upper-case letter, none of which a host name or a file name has.
func isAttributeChain(w string) bool {
	if strings.IndexByte(w, '/') >= 0 || strings.IndexByte(w, '\\') >= 0 || strings.Count(w, ".") < 2 && !strings.HasSuffix(w, "()") {
		return false
	}
	if strings.Count(w, ".") >= 4 || strings.HasSuffix(w, "()") {
		return true
	}
	first, _, _ := strings.Cut(w, ".")
	return first == "self" || first == "this" || first == "cls" || strings.ContainsFunc(w, func(r rune) bool { return r == '_' || unicode.IsUpper(r) })
}

// isBareName reports a word that can name a resource: not empty, not too
// long, and without spaces.
func isBareName(w string) bool {
	if w == "" || len(w) > maxTargetLen {
		return false
	}
	for i := range len(w) {
		if c := w[i]; c == ' ' || c == '\t' || c == '\n' {
			return false
		}
	}
	return true
}

// promptWords adds the URLs and paths among the words of a prompt, up to
// maxPromptScope targets in all. Only the words that can name one are
// read: those with a slash, or a dot before a letter or digit, found by
// looking for those bytes alone.
func (f *TargetFinder) promptWords(prompt string) {
	var next [3]int // where the next '/', '\\' and '.' are, from 'at' on
	const marks = "/\\."
	for k := range next {
		next[k] = indexFrom(prompt, 0, marks[k])
	}
	for at := 0; len(f.out) < maxPromptScope; {
		k := 0
		for m := 1; m < len(next); m++ {
			if next[m] < next[k] {
				k = m
			}
		}
		i := next[k]
		if i == len(prompt) {
			return
		}
		if marks[k] != '.' || i+1 < len(prompt) && isAlnum(prompt[i+1]) {
			start, end := wordAround(prompt, i)
			f.promptWord(prompt[start:end])
			at = end
		} else {
			at = i + 1
		}
		for m := range next {
			if next[m] < at {
				next[m] = indexFrom(prompt, at, marks[m])
			}
		}
	}
}

// indexFrom returns the index of the first c in s from i on, or len(s).
func indexFrom(s string, i int, c byte) int {
	if k := strings.IndexByte(s[i:], c); k >= 0 {
		return i + k
	}
	return len(s)
}

// wordAround returns the bounds of the word of a prompt that holds the
// byte at i, which is no separator.
func wordAround(prompt string, i int) (start, end int) {
	start, end = i, i+1
	for start > 0 {
		c := prompt[start-1]
		if c < utf8.RuneSelf {
			if promptSeparators[c] {
				break
			}
			start--
			continue
		}
		r, size := utf8.DecodeLastRuneInString(prompt[:start])
		if isPromptSeparator(r) {
			break
		}
		start -= size
	}
	for end < len(prompt) {
		c := prompt[end]
		if c < utf8.RuneSelf {
			if promptSeparators[c] {
				break
			}
			end++
			continue
		}
		r, size := utf8.DecodeRuneInString(prompt[end:])
		if isPromptSeparator(r) {
			break
		}
		end += size
	}
	return start, end
}

// promptSeparators marks the ASCII bytes isPromptSeparator reports.
var promptSeparators = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = isPromptSeparator(rune(c))
	}
	return t
}()

// promptWord adds the URL or path that a word of a prompt names, if any.
func (f *TargetFinder) promptWord(w string) {
	if w[0] == '<' {
		return // markup: <pr_description>, </pr_description>
	}
	if w = trimPromptWord(w); isAttributeChain(w) {
		return
	}
	if host, ok := UrlHost(w); ok {
		f.add(host)
	} else if t, ok := pathTarget(w); ok {
		f.add(t)
	}
}

// AppendUnescaped appends the JSON string content s to dst with its
// escapes decoded, except \u escapes, which are kept as they are.
func AppendUnescaped(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 || i+1 >= len(s) {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		switch c := s[i+1]; c {
		case 'n':
			dst = append(dst, '\n')
		case 't':
			dst = append(dst, '\t')
		case 'r':
			dst = append(dst, '\r')
		case 'u':
			dst = append(dst, '\\', 'u')
		default:
			dst = append(dst, c)
		}
		s = s[i+2:]
	}
}
