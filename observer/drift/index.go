package drift

import "strings"

// scopeIndex tells whether a target lies within any entry of the scope, as
// [scan.InScope] has it, in a few lookups whatever the number of entries:
// one for the target itself, one for each directory above it, and, when
// some entries are relative or hosts, one for each of its components that
// starts such an entry, its file name's stem, and its parent domains.
type scopeIndex struct {
	entries map[string]struct{}
	// heads holds the first component of each relative entry, which may
	// occur anywhere in a path.
	heads map[string]struct{}
	root  bool // "/" is an entry: it covers every absolute path
	hosts bool // some entry is a host name, which covers its subdomains
}

// reset empties the index.
func (x *scopeIndex) reset() {
	clear(x.entries)
	clear(x.heads)
	x.root, x.hosts = false, false
}

// add adds the entry e.
func (x *scopeIndex) add(e string) {
	if e == "" {
		return
	}
	if x.entries == nil {
		x.entries, x.heads = make(map[string]struct{}, 32), make(map[string]struct{}, 32)
	}
	x.entries[e] = struct{}{}
	switch {
	case e == "/":
		x.root = true
	case e[0] != '/':
		head, _, _ := strings.Cut(e, "/")
		x.heads[head] = struct{}{}
	}
	x.hosts = x.hosts || isDomain(e)
}

func (x *scopeIndex) has(s string) bool {
	_, ok := x.entries[s]
	return ok
}

// covers reports whether t lies within an entry.
func (x *scopeIndex) covers(t string) bool {
	if len(x.entries) == 0 || t == "" {
		return false
	}
	if x.has(t) || x.root && len(t) > 1 && t[0] == '/' {
		return true
	}
	// The directories above t, and the components that may start a
	// relative entry.
	start := 0
	for i := 0; i <= len(t); i++ {
		if i < len(t) && t[i] != '/' {
			continue
		}
		if i > 0 && i < len(t) && x.has(t[:i]) {
			return true
		}
		if start > 0 && start < i && x.relativeAt(t, start, i) {
			return true
		}
		start = i + 1
	}
	return x.stemCovered(t) || x.hosts && x.domainCovered(t)
}

// relativeAt reports whether a relative entry starts with the component
// t[start:end] and lies there as whole components.
func (x *scopeIndex) relativeAt(t string, start, end int) bool {
	if _, ok := x.heads[t[start:end]]; !ok {
		return false
	}
	for end < len(t) && !x.has(t[start:end]) {
		next := strings.IndexByte(t[end+1:], '/')
		if next < 0 {
			end = len(t)
		} else {
			end += 1 + next
		}
	}
	return x.has(t[start:end])
}

// stemCovered reports whether t's file name, without its extension, is an
// entry: orders for data/orders.csv.
func (x *scopeIndex) stemCovered(t string) bool {
	base := t[strings.LastIndexByte(t, '/')+1:]
	dot := strings.IndexByte(base, '.')
	return dot > 0 && x.has(base[:dot])
}

// domainCovered reports whether t ends in a subdomain of a host entry.
func (x *scopeIndex) domainCovered(t string) bool {
	name := t[strings.LastIndexByte(t, '/')+1:]
	for i := 0; i < len(name); i++ {
		if name[i] == '.' && isDomain(name[i+1:]) && x.has(name[i+1:]) {
			return true
		}
	}
	return false
}

// isDomain reports whether e reads as a host name, as scan.InScope has it:
// a dot after its first byte, and no slash.
func isDomain(e string) bool {
	return strings.IndexByte(e, '.') > 0 && strings.IndexByte(e, '/') < 0
}
