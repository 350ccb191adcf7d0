package drive

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/internal/slab"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// enforced reports whether resource r is enforced rather than advisory.
func enforced(c *lookout.Config, r budget.Resource) bool {
	for _, a := range c.Advisory {
		if a == r {
			return false
		}
	}
	return true
}

// Lookout is a checked configuration, ready to start runs. It holds only
// configuration: each run's session, budget tracker and observer
// pipeline belong to its [Run]. A Lookout is safe for concurrent use and
// serves any number of concurrent runs.
type Lookout struct {
	cfg lookout.Config
	// enforced lists which of time, tokens, cost and model calls are
	// enforced, which end a run; beforeModel those and tool calls, which
	// the gate checks before each model call; beforeTool which of time
	// and tool calls are, checked before each tool call.
	enforced, beforeModel, beforeTool []budget.Resource
	// modelCalls is true when the model-call limit is enforced: its
	// last call is a wrap-up turn.
	modelCalls bool
	// control holds Config.ControlTools and HandoverTools; handover the
	// latter.
	control, handover nameSet
	// thresholds are the Resource observer's, if there is one, for
	// run_started.
	thresholds *recorder.Thresholds
	// tools is the tool set last converted for the recording.
	tools atomic.Pointer[toolSet]
	// notes, bodies and extensions hold parts of the records of
	// assessments and of efficacy events.
	notes      slab.Slab[notesOfFew]
	bodies     slab.Slab[efficacyBody]
	extensions slab.Slab[recorder.Extension]
}

// New checks cfg and returns a Lookout for it. A nil cfg means the
// defaults. The observers are checked now, so a bad trigger fails here
// rather than at the first run. The error wraps [lookout.ErrInvalidConfig] (and,
// for an observer, the observer package's ErrInvalidConfig too) and names
// the field.
func New(cfg *lookout.Config) (*Lookout, error) {
	n, err := cfg.Check()
	if err != nil {
		return nil, err
	}
	l := &Lookout{cfg: n, modelCalls: enforced(&n, budget.ModelCalls)}
	l.control, l.handover = setOf(n.ControlTools, n.HandoverTools), setOf(n.HandoverTools)
	l.enforced = enforcedOf(&n, budget.Time, budget.Tokens, budget.CostUSD, budget.ModelCalls)
	l.beforeTool = enforcedOf(&n, budget.Time, budget.ToolCalls)
	l.beforeModel = append(slices.Clip(l.enforced), enforcedOf(&n, budget.ToolCalls)...)
	l.thresholds = thresholdsOf(n.Observers)
	return l, nil
}

// setOf returns the names of lists as a set.
func setOf(lists ...[]string) nameSet {
	var s nameSet
	for _, names := range lists {
		for _, name := range names {
			if !s.has(name) {
				s.few = append(s.few, name)
			}
		}
	}
	if len(s.few) > fewNames {
		s.many = make(map[string]bool, len(s.few))
		for _, name := range s.few {
			s.many[name] = true
		}
		s.few = nil
	}
	return s
}

// nameSet is a set of tool names. A configuration names few control
// tools, which are kept in a slice: comparing a name with a few others
// costs less than hashing it for a map lookup, and a name of another
// length costs one comparison of lengths. More than fewNames go in a map.
type nameSet struct {
	few  []string
	many map[string]bool
}

const fewNames = 8

// has reports whether name is in s.
func (s nameSet) has(name string) bool {
	if s.many != nil {
		return s.many[name]
	}
	for _, n := range s.few {
		if n == name {
			return true
		}
	}
	return false
}

// thresholdsOf returns the thresholds of the Resource observer of specs
// (observer names are unique, so there is one at most), its defaults
// filled in, or nil when there is none.
func thresholdsOf(specs []observer.Spec) *recorder.Thresholds {
	for _, s := range specs {
		if o, ok := s.Observer.(*resource.Observer); ok && o != nil {
			caution, warning := o.Thresholds()
			return &recorder.Thresholds{CautionAt: caution, WarningAt: warning}
		}
	}
	return nil
}

// Config returns the configuration, with the defaults filled in.
func (l *Lookout) Config() lookout.Config { return l.cfg }

// OnError reports err to the configured error handler.
func (l *Lookout) OnError(ctx context.Context, err error) { l.cfg.OnError(ctx, err) }

// enforcedOf returns which of rs cfg enforces.
func enforcedOf(cfg *lookout.Config, rs ...budget.Resource) []budget.Resource {
	var check []budget.Resource
	for _, res := range rs {
		if enforced(cfg, res) {
			check = append(check, res)
		}
	}
	return check
}

// newStore returns the session a root run uses when ctx carries none.
func (l *Lookout) newStore() *session.Store {
	return session.New(&session.StoreOptions{Now: l.cfg.Now, Retention: l.cfg.Retention})
}

// Recording reports whether runs are recorded: Config.Recorder is set.
func (l *Lookout) Recording() bool { return l.cfg.Recorder != nil }
