package drift

import (
	"slices"
	"strings"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/scan"
	"github.com/lookout-go/lookout/session"
)

// syncTask reads the session's Task and reports whether it changed.
func (st *driftState) syncTask(store *session.Store) bool {
	if store == nil {
		return false
	}
	if store != st.store {
		st.store, st.task = store, session.ValueOf[observer.Task](store)
	}
	t, _ := st.task.Latest()
	if !st.taskChanged(t) {
		return false
	}
	st.taskSeen, st.taskPrompt, st.taskScope = true, t.Prompt, t.Scope
	st.lowerPrompt = ""
	st.asks = [len(groundCommands)]uint8{}
	st.fromPrompt, st.promptRead = st.fromPrompt[:0], false
	st.declared = declaredScope(st.declared[:0], t.Scope)
	return true
}

// taskChanged reports whether t differs from the task last seen, or none
// was.
func (st *driftState) taskChanged(t observer.Task) bool {
	return !st.taskSeen || t.Prompt != st.taskPrompt || !slices.Equal(t.Scope, st.taskScope)
}

// declaredScope appends to dst the entries of a task's declared scope.
func declaredScope(dst, scope []string) []string {
	for _, e := range scope {
		if entry := declaredEntry(e); entry != "" {
			dst = append(dst, entry)
		}
	}
	return dst
}

// declaredEntry returns the scope entry a declared e stands for: a URL's
// host, or e cleaned; "" when it names nothing, as "." does not.
func declaredEntry(e string) string {
	if host, ok := scan.UrlHost(e); ok {
		return host
	}
	if e = scan.CleanTarget(e); e == "." {
		return ""
	}
	return e
}

// relearn reads the run's first calls again after a reset.
func (st *driftState) relearn(calls *session.Log[observer.ToolCallRecord], upto int64) {
	for _, rec := range calls.Range(0, min(int64(st.initial), upto)) {
		st.targets = st.finder.Find(st.targets[:0], rec.Arguments)
		st.learn(rec.CallIndex)
	}
}

// learn adds the targets just found in the call at index, when it is one
// of the run's first calls, to the learned scope, and, when the scope is
// built and not declared, the entries they imply to it. It reports whether
// any target was new.
func (st *driftState) learn(index int64) bool {
	if index > int64(st.initial) || index <= st.learnedUpTo {
		return false
	}
	st.learnedUpTo = index
	added := false
	for i, t := range st.targets {
		top := st.finder.IsPath(i) && isTopFile(t)
		if !st.learnTarget(t, top) {
			continue
		}
		added = true
		if st.taskSeen && !st.stale && len(st.declared) == 0 {
			st.growScope(st.entryOf(t, top))
		}
	}
	return added
}

// learnTarget adds t to the learned scope, or, when it is a file at the
// top of the tree, to those files, and reports whether it was new there.
func (st *driftState) learnTarget(t string, top bool) bool {
	learned := &st.learned
	if top {
		learned = &st.topFiles
	}
	if slices.Contains(*learned, t) {
		return false
	}
	if *learned == nil {
		*learned = make([]string, 0, 8) // rather than growing from one
	}
	*learned = append(*learned, t)
	return true
}

// entryOf returns the scope entry a target of the run's first calls
// implies, "" for none: broad when the prompt names no scope, see
// broadScopeOf. A file at the top of the tree joins a scope the prompt
// named. Alone, its top directory is the whole tree: nothing the run could
// drift from, unlike the file itself, which would make all the rest look
// like drift.
func (st *driftState) entryOf(t string, top bool) string {
	switch {
	case len(st.fromPrompt) == 0 && top:
		return ""
	case len(st.fromPrompt) == 0:
		return broadScopeOf(t)
	case top:
		return t
	}
	return scan.ScopeOf(t)
}

// growScope adds the entry e to the scope unless the scope covers it
// already, and drops from the entries it shows those that e covers. When
// the scope had no entry, what the agent made joins it too.
func (st *driftState) growScope(e string) {
	if e == "" || st.index.covers(e) {
		return
	}
	empty := len(st.scope) == 0
	st.scope = slices.DeleteFunc(st.scope, func(o string) bool { return scan.InScope(e, o) })
	st.scope = append(st.scope, e)
	st.index.add(e)
	st.grown++
	if empty {
		st.extendScope(st.made)
	}
}

// isTopFile reports whether the path t names a file at the top of a
// relative tree, such as README.md or go.mod.
func isTopFile(t string) bool {
	return !strings.Contains(t, "/") && !(len(t) > 1 && t[1] == ':')
}

// broadScopeOf returns the scope entry a target of one of the run's first
// calls implies when the prompt names no scope: a first call alone is weak
// evidence, so it gives the top directory of a relative path
// (internal/pay/pay.go gives internal), the directory of an absolute one,
// or the target itself. A file at the top of a relative tree (README.md)
// gives none, see rebuildScope.
func broadScopeOf(t string) string {
	if isRooted(t) {
		return scan.ScopeOf(t)
	}
	if slash := strings.IndexByte(t, '/'); slash > 0 {
		if t[:slash] == ".." {
			return scan.ScopeOf(t)
		}
		return t[:slash]
	}
	return t
}

// isRooted reports an absolute path, one from the root or a drive, or
// an empty one.
func isRooted(t string) bool {
	return t == "" || t[0] == '/' || len(t) > 2 && t[1] == ':'
}

// rebuildScope builds the scope again, from the declared scope or the
// candidates, and what the agent made.
func (st *driftState) rebuildScope() {
	if !st.promptRead {
		st.fromPrompt, st.promptRead = scan.PromptScope(st.taskPrompt), true
	}
	st.stale = false
	st.version, st.grown = st.version+1, 0
	st.scope = st.scope[:0]
	st.index.reset()
	if len(st.declared) > 0 {
		st.scope = append(st.scope, st.declared...)
		for _, e := range st.declared {
			st.index.add(e)
		}
	} else {
		st.keepUncovered(st.candidates())
	}
	st.extendScope(st.made)
}

// keepUncovered adds to the scope each of entries once, and none that
// another entry covers, in their order. An entry covers only entries
// longer than itself, so the shorter are indexed first.
func (st *driftState) keepUncovered(entries []string) {
	// The entries are few: an insertion sort orders them by length, the
	// earlier first among those of a length.
	order := slices.Grow(st.order[:0], len(entries))
	for i, e := range entries {
		k := len(order)
		for k > 0 && len(entries[order[k-1]]) > len(e) {
			k--
		}
		order = slices.Insert(order, k, i)
	}
	kept := slices.Grow(st.kept[:0], len(entries))[:len(entries)]
	clear(kept)
	st.scope = slices.Grow(st.scope, len(entries))
	for _, i := range order {
		if !st.index.covers(entries[i]) {
			st.index.add(entries[i])
			kept[i] = true
		}
	}
	for i, e := range entries {
		if kept[i] {
			st.scope = append(st.scope, e)
		}
	}
	st.order, st.kept = order, kept
}

// extendScope adds to the scope what the agent made outside it. What the
// agent made extends a scope; alone it makes none, or everything else
// would look like drift. Calls inside the scope stay inside it.
func (st *driftState) extendScope(made []string) {
	if len(st.scope) == 0 || st.stale {
		return
	}
	n := len(st.scope)
	for _, m := range made {
		if !st.index.covers(m) {
			st.scope = append(st.scope, m)
			st.index.add(m)
		}
	}
	if len(st.scope) > n {
		st.grown++
	}
}

// candidates returns the entries a scope not declared is built from: the
// prompt's, and those the run's first calls imply.
func (st *driftState) candidates() []string {
	entries := append(st.candidateScratch[:0], st.fromPrompt...)
	for _, t := range st.learned {
		entries = append(entries, st.entryOf(t, false))
	}
	for _, t := range st.topFiles {
		if e := st.entryOf(t, true); e != "" {
			entries = append(entries, e)
		}
	}
	st.candidateScratch = entries[:0]
	return entries
}
