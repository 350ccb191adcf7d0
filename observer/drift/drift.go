package drift

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/detect"
	"github.com/lookout-go/lookout/observer/internal/scan"
	"github.com/lookout-go/lookout/session"
)

// Drift defaults.
const (
	// DefaultWindow is how many recent calls naming a target Drift
	// looks at.
	DefaultWindow = 10
	// DefaultMinCalls is how many of them there must be before it
	// judges a declared scope.
	DefaultMinCalls = 4
	// DefaultDerivedMinCalls is how many there must be before it judges
	// a scope taken from the prompt and the first calls, which is weaker
	// evidence of the task's bounds than a declared one.
	DefaultDerivedMinCalls = 8
	// DefaultShare is the share of them outside the scope that makes
	// a drift.
	DefaultShare = 0.6
	// DefaultInitialCalls is how many of the run's first calls add their
	// targets to a scope that was not declared.
	DefaultInitialCalls = 5
	// MaxWindow is the largest Window and MinCalls that
	// [Detector.Validate] accepts. Drift keeps a slot of 128 bytes (on 64-bit
	// platforms) for each call of the window, allocated when a session is
	// first checked, and the targets named by those calls, so a window of
	// 5,000 calls takes about 640 KB per session besides the targets.
	MaxWindow = 5_000
	// MaxInitialCalls is the largest InitialCalls that [Detector.Validate]
	// accepts. The scope learned from the first calls keeps their targets,
	// and every target of every later call is matched against it, so the
	// bound keeps both the scope and each check small.
	MaxInitialCalls = 1_000
)

// defaultDriftEscalation is Drift's escalation when none is configured.
var defaultDriftEscalation = observer.Escalation{CautionAfter: 5, WarningAfter: 15}

// Drift notices the agent's work moving away from its task. It compares
// the targets of recent calls (the paths, hosts and resource names in
// their arguments) with the task's scope, and reports when at least Share
// of the last Window calls that named a target (and at least MinCalls of
// them) lie outside it, and the latest call does too.
//
// The scope is the [Task]'s Scope when it is declared. Otherwise it is
// taken from the Task's Prompt (URLs give their host, paths and file names
// their directory, words in backticks are taken as resource names;
// markdown around a path is read through) and from the targets of the
// run's first InitialCalls calls (a file gives its directory). When the
// prompt names nothing, the first calls alone are weak evidence and give a
// broader scope: a relative path gives its top directory, and a file at
// the top of the tree (README.md) gives none, as its top directory is the
// whole tree. With no scope at all, Drift stays quiet. Declare the scope
// when the prompt does not name it and the first calls may not show it.
//
// Targets are read from string values anywhere in the JSON arguments:
// URLs give their host; words that look like paths (with a slash, or a
// file name with an extension) are paths; values under the ResourceKeys
// are resource names whatever they look like; longer strings, such as
// shell commands, are searched word by word; values under keys that hold
// contents (content, text, body, patch, query and the like) are skipped.
// A target is in scope when it equals a scope entry, lies under it as a
// directory, contains it as whole path components (so services/billing
// covers /repo/services/billing/x.go), is a file named after a bare entry
// (orders.csv for orders), or is a subdomain of a host entry. Matching
// ignores case. A call is outside the scope when none of its targets is in
// it.
//
// A drift is reported at info; its severity rises with the Escalation
// while it lasts (by default caution 5 calls later and warning 15 calls
// later). Configure it with [Trigger]{OnEveryCall: true}.
//
// The zero value uses the defaults. A Detector is safe for concurrent use as
// long as its fields are not changed once it is in use.
type Detector struct {
	// Window is how many recent calls naming a target are compared with
	// the scope. Zero means [DefaultWindow]; at most
	// [MaxWindow].
	Window int
	// MinCalls is how many such calls the window must hold before Drift
	// judges a declared scope. Zero means [DefaultMinCalls].
	MinCalls int
	// DerivedMinCalls is how many such calls the window must hold before
	// Drift judges a scope it derived from the prompt and the first calls.
	// Zero means [DefaultDerivedMinCalls], or the window when that is
	// smaller.
	DerivedMinCalls int
	// Share is the fraction of them outside the scope, from 0 to 1, at or
	// above which Drift reports. Zero means [DefaultShare].
	Share float64
	// InitialCalls is how many of the run's first calls add their targets
	// to an undeclared scope. Zero means [DefaultInitialCalls]; negative
	// means none; at most [MaxInitialCalls].
	InitialCalls int
	// Escalation raises the severity while the drift lasts. The zero value
	// means caution after 5 more calls and warning after 15.
	Escalation observer.Escalation
	// ResourceKeys lists argument keys whose values are resource names.
	// Nil means [DefaultResourceKeys].
	ResourceKeys []string
}

// New returns a Detector with the default thresholds.
func New() *Detector { return &Detector{} }

// Name returns "Drift".
func (d *Detector) Name() string { return "Drift" }

// Validate reports a share outside [0, 1] (or not a number), a negative
// window or minimum, a minimum larger than the window, or a window or
// count above [MaxWindow] or [MaxInitialCalls], as a [*ConfigError].
// [NewPipeline] calls it.
func (d *Detector) Validate() error {
	const name = "Drift"
	if err := detect.AnyTooLarge(name, MaxWindow, "drift.MaxWindow",
		detect.Setting{Field: "Window", Value: d.Window},
		detect.Setting{Field: "MinCalls", Value: d.MinCalls},
		detect.Setting{Field: "DerivedMinCalls", Value: d.DerivedMinCalls}); err != nil {
		return err
	}
	if err := detect.TooLarge(name, "InitialCalls", d.InitialCalls, MaxInitialCalls, "drift.MaxInitialCalls"); err != nil {
		return err
	}
	if err := detect.NotFraction(name, "Share", d.Share); err != nil {
		return err
	}
	if err := detect.AnyNegative(name,
		detect.Setting{Field: "Window", Value: d.Window},
		detect.Setting{Field: "MinCalls", Value: d.MinCalls},
		detect.Setting{Field: "DerivedMinCalls", Value: d.DerivedMinCalls}); err != nil {
		return err
	}
	return d.minimumsInWindow()
}

// minimumsInWindow reports a minimum count of calls larger than the window
// they are counted in.
func (d *Detector) minimumsInWindow() error {
	const name = "Drift"
	window := scan.Pick(d.Window, DefaultWindow)
	switch {
	case d.DerivedMinCalls > window:
		return &observer.ConfigError{Observer: name, Field: "DerivedMinCalls", Problem: fmt.Sprintf("%d is more than the window of %d calls", d.DerivedMinCalls, window)}
	case scan.Pick(d.MinCalls, DefaultMinCalls) > window:
		return &observer.ConfigError{Observer: name, Field: "MinCalls", Problem: fmt.Sprintf("%d is more than the window of %d calls", scan.Pick(d.MinCalls, DefaultMinCalls), window)}
	}
	return nil
}

// ShouldRun reports whether recent work has drifted from the task's scope
// and the latest call is part of it.
func (d *Detector) ShouldRun(_ context.Context, oc *observer.Context) bool {
	_, found := d.state(oc).check(oc)
	return found
}

// Holds reports whether the latest call still continues the pattern last
// reported: when it does not, the pipeline withdraws the section.
func (d *Detector) Holds(ctx context.Context, oc *observer.Context) bool {
	return d.ShouldRun(ctx, oc)
}

// Observe describes the drift, or says there is none.
func (d *Detector) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	st := d.state(oc)
	f, found := st.check(oc)
	if !found {
		summary := "Recent work is within the task's scope."
		if len(st.scope) == 0 {
			summary = "The task's scope is not known: no task scope was declared or found."
		}
		return observer.Assessment{Summary: summary, Severity: observer.Info, Timestamp: oc.Now}, nil
	}
	a := st.assess(f)
	a.Timestamp = oc.Now
	return a, nil
}

// NewCallState returns the working state of one session, which the
// pipeline keeps up to date.
func (d *Detector) NewCallState() observer.CallState { return d.newState() }

// state returns the session's working state, or an empty one outside a
// pipeline.
func (d *Detector) state(oc *observer.Context) *driftState {
	if st, ok := oc.CallState().(*driftState); ok {
		return st
	}
	return d.newState()
}

func (d *Detector) newState() *driftState {
	share := d.Share
	if share == 0 {
		share = DefaultShare
	}
	window := max(scan.Pick(d.Window, DefaultWindow), 1)
	keys := d.ResourceKeys
	if keys == nil {
		keys = DefaultResourceKeys()
	}
	return &driftState{
		window:     window,
		minCalls:   min(max(scan.Pick(d.MinCalls, DefaultMinCalls), 1), window),
		derivedMin: min(max(scan.Pick(d.DerivedMinCalls, DefaultDerivedMinCalls), 1), window),
		share:      share,
		initial:    scan.Pick(d.InitialCalls, DefaultInitialCalls),
		escalation: d.Escalation.Or(defaultDriftEscalation),
		finder:     scan.NewTargetFinder(keys),
		calls:      scan.NewRing[driftCall](window),
	}
}

// driftCall is what Drift keeps of a call that named a target.
type driftCall struct {
	index               int64
	tool, summary, args string
	targets             []string
	outside             bool
	version             int // scope version outside was computed for
	label               scan.Label
}

// driftState is one session's working state for a Detector.
type driftState struct {
	window, minCalls, initial int
	derivedMin                int
	share                     float64
	escalation                observer.Escalation
	finder                    *scan.TargetFinder

	calls   scan.Ring[driftCall]
	targets []string

	store      *session.Store
	task       *session.Value[observer.Task]
	taskSeen   bool
	taskPrompt string
	taskScope  []string

	declared    []string // from Task.Scope
	fromPrompt  []string // from Task.Prompt
	learned     []string // targets of the first calls
	made        []string // what the agent wrote, and its working directories
	access      map[string]scan.Access
	key         []byte   // scratch for folding argument keys
	topFiles    []string // of them, relative paths of files at the top of the tree
	learnedUpTo int64
	scope       []string
	version     int

	episode int64 // call at which the current drift began; 0 when none

	outsideCalls []*driftCall // scratch for the evidence
	out          scan.Texts   // the texts of the latest assessment
	parts        detect.Parts // the observations and suggestions of the assessments

	checked int64
	found   bool
	finding driftFinding
	reset   bool // Reset was called since the last check
}

type driftFinding struct {
	outside, total int
	severity       observer.Severity
}

// CatchUp reads back four windows of calls: those that name no target
// are not kept.
func (st *driftState) CatchUp() int { return 4 * st.window }

// Reset forgets every call, and reads the run's first calls again.
func (st *driftState) Reset(oc *observer.Context) {
	st.calls.Clear()
	st.learned, st.topFiles, st.learnedUpTo = st.learned[:0], st.topFiles[:0], 0
	st.made = st.made[:0]
	st.relearn(oc.Calls(), oc.CallIndex)
	st.reset = true
}

// Add takes in the next call.
func (st *driftState) Add(_ *observer.Context, rec *observer.ToolCallRecord) { st.add(rec) }

// check reports a drift the latest call
// is part of.
func (st *driftState) check(oc *observer.Context) (driftFinding, bool) {
	changed := st.syncTask(oc.Store) || st.reset
	st.reset = false
	if !changed && st.checked == oc.CallIndex {
		return st.finding, st.found
	}
	if changed {
		st.rebuildScope()
	}
	st.checked = oc.CallIndex
	st.finding, st.found = st.detect(oc.CallIndex)
	return st.finding, st.found
}

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
	st.fromPrompt = scan.PromptScope(t.Prompt)
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
		st.learn(rec)
	}
}

// learn adds the targets of one of the run's first calls to the learned
// scope.
func (st *driftState) learn(rec *observer.ToolCallRecord) bool {
	if rec.CallIndex > int64(st.initial) || rec.CallIndex <= st.learnedUpTo {
		return false
	}
	st.learnedUpTo = rec.CallIndex
	st.targets = st.finder.Find(st.targets[:0], rec.Arguments)
	added := false
	for i, t := range st.targets {
		if st.learnTarget(i, t) {
			added = true
		}
	}
	return added
}

// learnTarget adds t, the i-th target found, to the learned scope, or to
// the files at the top of the tree, and reports whether it was new there.
func (st *driftState) learnTarget(i int, t string) bool {
	learned := &st.learned
	if st.finder.IsPath(i) && isTopFile(t) {
		learned = &st.topFiles
	}
	if slices.Contains(*learned, t) {
		return false
	}
	*learned = append(*learned, t)
	return true
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

func (st *driftState) rebuildScope() {
	st.version++
	st.scope = st.scope[:0]
	if len(st.declared) > 0 {
		st.scope = append(st.scope, st.declared...)
	} else {
		// Keep each entry once, and none that another entry covers.
		entries := st.candidates()
		for i, e := range entries {
			if !covered(entries, i) {
				st.scope = append(st.scope, e)
			}
		}
	}
	st.extendByMade()
}

// extendByMade adds to the scope what the agent made outside it. What the
// agent made extends a scope; alone it makes none, or everything else
// would look like drift.
func (st *driftState) extendByMade() {
	if len(st.scope) == 0 {
		return
	}
	for _, m := range st.made {
		if !slices.ContainsFunc(st.scope, func(e string) bool { return scan.InScope(e, m) }) {
			st.scope = append(st.scope, m)
		}
	}
}

// candidates returns the entries a scope not declared is built from: the
// prompt's, and those the run's first calls imply, broader when the
// prompt names none.
func (st *driftState) candidates() []string {
	entries := slices.Clone(st.fromPrompt)
	if len(st.fromPrompt) == 0 {
		for _, t := range st.learned {
			entries = append(entries, broadScopeOf(t))
		}
		return entries
	}
	for _, t := range st.learned {
		entries = append(entries, scan.ScopeOf(t))
	}
	// A file at the top of the tree joins a scope the prompt named. Alone,
	// its top directory is the whole tree: nothing the run could drift
	// from, unlike the file itself, which would make all the rest look
	// like drift.
	return append(entries, st.topFiles...)
}

// covered reports whether entries[i] is covered by another entry, or is
// the same as an earlier one.
func covered(entries []string, i int) bool {
	e := entries[i]
	return slices.ContainsFunc(entries, func(o string) bool { return o != e && scan.InScope(o, e) }) ||
		slices.Contains(entries[:i], e)
}

// add records a call that names a target.
func (st *driftState) add(rec *observer.ToolCallRecord) {
	if st.learn(rec) && len(st.declared) == 0 {
		st.rebuildScope()
	}
	st.targets = st.finder.Find(st.targets[:0], rec.Arguments)
	if st.noteMade(rec) {
		st.rebuildScope()
	}
	if len(st.targets) == 0 {
		return
	}
	slot := st.calls.Push()
	*slot = driftCall{
		index: rec.CallIndex, tool: rec.ToolName, summary: rec.ParamsSummary, args: rec.Arguments,
		targets: append(slot.targets[:0], st.targets...),
		version: -1,
		label:   slot.label.Reuse(),
	}
}

// maxMade bounds the targets the agent made that join the scope.
const maxMade = 256

// workDirKeys name a call's working directory.
var workDirKeys = map[string]bool{"cwd": true, "workdir": true, "workingdir": true, "workingdirectory": true, "dir": true, "directory": true}

// noteMade adds to what the agent made the targets of a successful call
// that wrote them (a tool whose name says it writes, a shell redirection,
// touch or mkdir) and the working directory it names, and reports whether
// it added any.
func (st *driftState) noteMade(rec *observer.ToolCallRecord) bool {
	if !rec.Success || len(st.made) >= maxMade {
		return false
	}
	n := len(st.made)
	if st.accessOf(rec.ToolName) == scan.WriteAccess {
		for _, t := range st.targets {
			st.addMade(t)
		}
	}
	scan.EachMember(rec.Arguments, func(k, val string, isString bool) bool {
		if isString {
			st.noteMadeIn(k, val)
		}
		return true
	})
	return len(st.made) > n
}

// noteMadeIn adds to what the agent made the directory a string argument
// named k gives as the working directory, or what the shell command in it
// writes or works in.
func (st *driftState) noteMadeIn(k, val string) {
	if st.key = scan.FoldKey(st.key[:0], k); workDirKeys[string(st.key)] {
		st.addMade(scan.CleanTarget(val))
	} else if len(val) <= 512 {
		madeByShell(val, st.addMade)
	}
}

// accessOf returns what the tool does to its target, as its name says,
// remembering it for the first tools a session calls: the name's words
// cost more to read than a small map costs to look up.
func (st *driftState) accessOf(tool string) scan.Access {
	if a, ok := st.access[tool]; ok {
		return a
	}
	a := scan.ClassifyTool(tool)
	if st.access == nil {
		st.access = make(map[string]scan.Access)
	}
	if len(st.access) < maxToolsClassified {
		st.access[tool] = a
	}
	return a
}

// maxToolsClassified bounds the tools whose access a session remembers.
const maxToolsClassified = 256

func (st *driftState) addMade(t string) {
	if t != "" && t != "." && len(st.made) < maxMade && !slices.Contains(st.made, t) {
		st.made = append(st.made, t)
	}
}

// madeByShell calls add for what a shell command writes or works in: the
// target of a redirection (> out.txt, >> log), the arguments of touch and
// mkdir, and the directory of cd.
func madeByShell(cmd string, add func(string)) {
	if !mayMake(cmd) {
		return
	}
	sh := shellWords{start: true}
	for w := range strings.FieldsSeq(cmd) {
		sh.word(w, add)
	}
}

// mayMake reports whether a shell command has a redirection, touch, mkdir
// or cd in it: whether madeByShell need read its words at all.
func mayMake(cmd string) bool {
	return strings.Contains(cmd, ">") || strings.Contains(cmd, "touch") || strings.Contains(cmd, "mkdir") || strings.Contains(cmd, "cd ")
}

// shellWords follows the words of a shell command line: whether the word
// starts a command, follows a redirection, or is an argument of touch,
// mkdir or cd.
type shellWords struct {
	start, redirect, args bool
}

// word reads the next word of the line, and calls add for it if it is a
// target.
func (sh *shellWords) word(w string, add func(string)) {
	if sh.redirection(w, add) {
		sh.start = false
		return
	}
	if isShellOperator(w) {
		sh.start, sh.args = true, false
		return
	}
	sh.argument(w, add)
}

// redirection reads w if it is a redirection or the target that follows
// one, and reports whether it was.
func (sh *shellWords) redirection(w string, add func(string)) bool {
	switch {
	case sh.redirect:
		addShellTarget(w, add)
		sh.redirect = false
	case w == ">" || w == ">>":
		sh.redirect, sh.args = true, false
	case w[0] == '>':
		addShellTarget(strings.TrimLeft(w, ">"), add)
		sh.args = false
	default:
		return false
	}
	return true
}

// argument reads a word of a command: its name, which may start the
// arguments of touch, mkdir or cd, or one of those arguments.
func (sh *shellWords) argument(w string, add func(string)) {
	switch {
	case sh.start && isShellMaker(w):
		sh.args = true
	case sh.args && w[0] != '-':
		addShellTarget(w, add)
	}
	sh.start = false
}

// isShellMaker reports a command whose arguments it makes or works in.
func isShellMaker(w string) bool {
	return w == "touch" || w == "mkdir" || w == "cd"
}

// addShellTarget adds a word of a command as a target, but not a device.
func addShellTarget(w string, add func(string)) {
	if t := scan.CleanTarget(strings.Trim(w, `"'`)); !strings.HasPrefix(t, "/dev/") {
		add(t)
	}
}

// isShellOperator reports a word that ends one command of a line.
func isShellOperator(w string) bool {
	return w == "&&" || w == "||" || w == ";" || w == "|"
}

func (st *driftState) outside(c *driftCall) bool {
	if c.version != st.version {
		c.outside, c.version = true, st.version
		for _, t := range c.targets {
			if slices.ContainsFunc(st.scope, func(e string) bool { return scan.InScope(e, t) }) {
				c.outside = false
				break
			}
		}
	}
	return c.outside
}

// detect reports a drift that the call at index is part of.
func (st *driftState) detect(index int64) (driftFinding, bool) {
	n := st.calls.Len()
	out, drifting := st.mostlyOutside(n)
	if !drifting {
		st.episode = 0
		return driftFinding{}, false
	}
	if st.episode == 0 {
		st.episode = index
	}
	if newest := st.calls.Back(0); newest.index != index || !newest.outside {
		return driftFinding{}, false
	}
	return driftFinding{outside: out, total: n, severity: st.escalation.Severity(int(index - st.episode))}, true
}

// mostlyOutside counts the n kept calls outside the scope, and reports
// whether they make a drift: there is a scope, enough calls, and a large
// enough share of them outside it.
func (st *driftState) mostlyOutside(n int) (int, bool) {
	least := st.derivedMin
	if len(st.declared) > 0 {
		least = st.minCalls
	}
	if len(st.scope) == 0 || n < least {
		return 0, false
	}
	out := 0
	for i := range n {
		if st.outside(st.calls.Back(i)) {
			out++
		}
	}
	return out, float64(out) >= st.share*float64(n)
}

// maxScopeShown is how many scope entries a drift report lists.
const maxScopeShown = 5

// driftReturn is the Drift assessments' last suggestion.
const driftReturn = "If it does not, return to the task; if it does, say why before going further."

// assess turns a finding into an assessment. Its texts are written one
// after the other into st.out, whose buffer they share.
func (st *driftState) assess(f driftFinding) observer.Assessment {
	outside := st.gatherOutside()
	t := &st.out
	t.Start(512)
	line := func(b *strings.Builder, i int) {
		c := outside[i]
		scan.EvidenceLine(b, c.index, c.label.Of(c.tool, c.summary, c.args), true, "")
	}
	scan.ListCalls(&t.Builder, len(outside), len(outside), line, func(b *strings.Builder) { line(b, 0) })
	evidence := t.End()
	st.writeDescription(f)
	description := t.End()

	var room [2]string
	suggestions := room[:0]
	task := firstLine(st.taskPrompt)
	var check scan.Piece
	if task != "" {
		t.WriteString("Check that this work serves the task: \"")
		t.WriteString(strings.TrimRight(scan.Clip(task, 120), "."))
		t.WriteString("\".")
		check = t.End()
	}
	all := t.String()
	if task != "" {
		suggestions = append(suggestions, check.In(all))
	}
	a := observer.Assessment{Summary: "Most of your recent work is outside the task's scope.", Severity: f.severity}
	a.Observations, a.Suggestions = st.parts.ObservationWith(observer.Observation{
		Category:    "drift",
		Description: description.In(all),
		Evidence:    evidence.In(all),
	}, append(suggestions, driftReturn)...)
	return a
}

// gatherOutside collects the kept calls outside the scope, oldest first,
// into st.outsideCalls.
func (st *driftState) gatherOutside() []*driftCall {
	st.outsideCalls = st.outsideCalls[:0]
	for i := st.calls.Len() - 1; i >= 0; i-- {
		if c := st.calls.Back(i); c.outside {
			st.outsideCalls = append(st.outsideCalls, c)
		}
	}
	return st.outsideCalls
}

// writeDescription writes how many calls were outside which scope.
func (st *driftState) writeDescription(f driftFinding) {
	t := &st.out
	scan.WriteInt(&t.Builder, int64(f.outside))
	t.WriteString(" of the last ")
	scan.WriteInt(&t.Builder, int64(f.total))
	t.WriteString(" calls that named a file, host or resource were outside ")
	if len(st.declared) > 0 {
		t.WriteString("the declared scope")
	} else {
		t.WriteString("the scope taken from the task")
	}
	t.WriteString(" (")
	writeScopeList(&t.Builder, st.scope)
	t.WriteString(").")
}

// writeScopeList writes the first maxScopeShown entries of scope, and how
// many more there are.
func writeScopeList(b *strings.Builder, scope []string) {
	shown := scope[:min(len(scope), maxScopeShown)]
	if slices.ContainsFunc(shown, scan.NeedsOneLine[string]) {
		// oneLine also replaces the invalid UTF-8 of the other entries.
		b.WriteString(scan.OneLine(strings.Join(shown, ", ")))
	} else {
		writeJoined(b, shown)
	}
	if more := len(scope) - len(shown); more > 0 {
		b.WriteString(" and ")
		scan.WriteInt(b, int64(more))
		b.WriteString(" more")
	}
}

// writeJoined writes entries separated by commas.
func writeJoined(b *strings.Builder, entries []string) {
	for i, e := range entries {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e)
	}
}

// firstLine returns the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return scan.OneLine(line)
		}
	}
	return ""
}

// DefaultResourceKeys returns the argument keys whose string values
// [Detector] takes as resource names whatever they look like: bucket, table,
// database, db, repo, repository, service, namespace, project, cluster,
// queue, topic, index, host, hostname and domain. The slice is new on each
// call: append to it to extend the defaults.
func DefaultResourceKeys() []string {
	return []string{
		"bucket", "table", "database", "db", "repo", "repository", "service", "namespace",
		"project", "cluster", "queue", "topic", "index", "host", "hostname", "domain",
	}
}

// Judge says the agent followed the assessment once a call broke the
// pattern it reported, and did not if the pattern still holds after the
// calls judged.
func (d *Detector) Judge(ctx context.Context, oc *observer.Context, shown observer.Shown, final bool) (followed, decided bool) {
	if shown.Calls > 0 && !d.ShouldRun(ctx, oc) {
		return true, true
	}
	return false, final
}
