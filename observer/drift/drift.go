package drift

import (
	"context"
	"fmt"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/detect"
	"github.com/lookout-go/lookout/observer/internal/scan"
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
// whole tree. With no scope at all, Drift judges no share. Declare the scope
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
// Drift also reports a single call whose shell commands work clearly off
// the task's ground, whatever the scope: one that searches the whole
// filesystem from its root (find /, grep -r … /, locate), or manages the
// system's user accounts (useradd, passwd) or services (systemctl,
// service) when the prompt neither names the command nor speaks of such
// work. Heredoc bodies and quoted strings are not commands. Installing a
// tool is not off the ground. It also reports a call that acts on an
// e-mail address, web host, IBAN-shaped account or phone number that
// instructions planted in a tool result gave: a passage of the result's
// first 4 KiB addressed to the agent (it names the agent as an AI or
// assistant, or "the task I gave you", and asks or speaks to "you"; or it
// says to ignore previous instructions). Identifiers the task names, or
// that the same result also gives outside the passage, are the task's, as
// are all of them when the task says to follow the instructions of what it
// reads. Values under keys that hold contents are not what a call acts on.
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
		if st.stale {
			st.rebuildScope()
		}
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
	keys := defaultResourceKeys
	if d.ResourceKeys != nil {
		keys = scan.FoldResourceKeys(d.ResourceKeys)
	}
	st := &driftState{
		window:     window,
		minCalls:   min(max(scan.Pick(d.MinCalls, DefaultMinCalls), 1), window),
		derivedMin: min(max(scan.Pick(d.DerivedMinCalls, DefaultDerivedMinCalls), 1), window),
		share:      share,
		initial:    scan.Pick(d.InitialCalls, DefaultInitialCalls),
		escalation: d.Escalation.Or(defaultDriftEscalation),
		finder:     scan.NewTargetFinder(keys),
		calls:      scan.NewRing[driftCall](window),
	}
	st.shell.st = st
	return st
}

// defaultResourceKeys are DefaultResourceKeys folded, which the sessions
// of every Detector with the defaults share.
var defaultResourceKeys = scan.FoldResourceKeys(DefaultResourceKeys())

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
