package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/components/model"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// Options configure a [Cassette]. A nil *Options means the defaults: the
// system prompt, the other messages and the tools offered all count, text
// is normalized as the Stall observer normalizes tool arguments, and the
// live input is redacted with the recorder's built-in Secrets redactor.
type Options struct {
	// IgnoreSystem leaves system messages out of the input check.
	IgnoreSystem bool
	// IgnoreMessages leaves the messages out of the input check
	// altogether: each call is answered by its position alone.
	IgnoreMessages bool
	// IgnoreTools leaves the tools offered (names and definitions) out of
	// the input check.
	IgnoreTools bool
	// Normalizer canonicalizes text before it is compared. Nil means the
	// zero observer.Normalizer: UUIDs, timestamps, epoch times, temporary
	// paths and long ids compare equal whatever their value.
	Normalizer *observer.Normalizer
	// KeepSecrets says the cassette was recorded with
	// recorder.Options.KeepSecrets: the live input is then not redacted
	// with recorder.Secrets before it is compared.
	KeepSecrets bool
	// Redactors are the recorder.Options.Redactors the cassette was
	// recorded with; they run on the live input, after Secrets, so that
	// it compares equal to the redacted recording.
	Redactors []recorder.Redactor
	// Live is the model to record with when [Update] reports true (see
	// [Open]). It is not used to replay.
	Live model.ToolCallingChatModel
}

// Cassette is a recorded trajectory ready to replay: [Cassette.Model]
// answers model calls from it, [Cassette.Tool] answers tool calls,
// [Cassette.Now] is its clock and [Cassette.Err] the divergence, if any.
//
// A Cassette is safe for concurrent use. It keeps the position of every
// recorded run it plays, so it replays one run of the agent (a query,
// or a conversation of several) once; load it again to replay again.
type Cassette struct {
	path string
	opts Options
	norm *observer.Normalizer

	// recording is set in record mode (see Open).
	recording *recording

	mu    sync.Mutex
	roots []*recRun
	runs  []*recRun // every run, in order of first appearance
	bound map[lookout.Run]*recRun
	// matched holds the live messages already found equal to recorded
	// ones; see compare.
	matched map[matched]struct{}
	now     time.Time
	err     error // the first divergence
	// unchecked holds the results of live tool calls that no model call
	// of their run has been given yet; see checkLive.
	unchecked []liveResult
}

// Load reads the cassette at path: a Lookout trajectory (JSON Lines, as a
// recorder.FileSink writes it) or, for a name ending in .json, an ATIF
// document, which the ATIF importer turns into records. A missing
// cassette's error says how to record it.
func Load(path string, opts *Options) (*Cassette, error) {
	records, err := readRecords(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w; record it with Open, Options.Live set, and the test run with -update or %s=1", err, UpdateEnv)
	}
	if err != nil {
		return nil, err
	}
	c, err := FromRecords(records, opts)
	if err != nil {
		return nil, fmt.Errorf("replay: %s: %w", path, err)
	}
	c.path = path
	return c, nil
}

func readRecords(path string) ([]recorder.Record, error) {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		t, err := atif.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		records, err := atif.ToRecords(t)
		if err != nil {
			return nil, fmt.Errorf("replay: %s: %w", path, err)
		}
		return records, nil
	}
	records, _, err := recorder.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return records, nil
}

// FromRecords builds a cassette from records, such as a
// recorder.MemorySink holds. Records of several runs may be interleaved;
// each run's are taken in seq order. It fails with an error wrapping
// [ErrEmpty] when the records hold no model call.
func FromRecords(records []recorder.Record, opts *Options) (*Cassette, error) {
	c := &Cassette{bound: map[lookout.Run]*recRun{}, matched: map[matched]struct{}{}}
	if opts != nil {
		c.opts = *opts
	}
	c.norm = c.opts.Normalizer
	if c.norm == nil {
		c.norm = &observer.Normalizer{}
	}
	if calls := c.build(c.group(records)); calls == 0 {
		return nil, ErrEmpty
	}
	c.now = start(c.runs)
	return c, nil
}

// group splits records by run into c.runs, in the order runs first
// appear, and returns the runs by id.
func (c *Cassette) group(records []recorder.Record) map[string]*recRun {
	byID := map[string]*recRun{}
	for _, rec := range records {
		if recorder.IsNilPayload(rec.Payload) {
			continue
		}
		r := byID[rec.RunID]
		if r == nil {
			r = &recRun{id: rec.RunID, parent: rec.ParentRunID}
			byID[rec.RunID] = r
			c.runs = append(c.runs, r)
		}
		r.records = append(r.records, rec)
	}
	return byID
}

// build builds each run from its records, in seq order, links it to its
// parent, or else makes it a root, and returns how many model calls the
// runs hold.
func (c *Cassette) build(byID map[string]*recRun) (calls int) {
	for _, r := range c.runs {
		slices.SortStableFunc(r.records, func(a, b recorder.Record) int { return cmp.Compare(a.Seq, b.Seq) })
		r.build()
		calls += len(r.calls)
		if p := byID[r.parent]; p != nil && r.parent != "" {
			p.children = append(p.children, r)
		} else {
			c.roots = append(c.roots, r)
		}
	}
	return calls
}

// start is when the recording starts: its first record, or earlier, when
// the budget was started before, the start of the time budget, which
// run_started's limits give as the deadline less the timeout.
func start(runs []*recRun) time.Time {
	var at time.Time
	for _, r := range runs {
		for _, rec := range r.records {
			at = earlier(at, rec.RecordedAt)
			at = earlier(at, budgetStart(rec.Payload))
		}
	}
	return at
}

// earlier is the earlier of two times, of which zero is neither.
func earlier(at, t time.Time) time.Time {
	if !t.IsZero() && (at.IsZero() || t.Before(at)) {
		return t
	}
	return at
}

// budgetStart is the start of the time budget that p, a run_started
// record, gives as its deadline less its timeout; zero for any other
// record or a run without both.
func budgetStart(p recorder.Payload) time.Time {
	if p, ok := p.(*recorder.RunStarted); ok && p.Limits.Timeout > 0 && !p.Limits.Deadline.IsZero() {
		return p.Limits.Deadline.Add(-p.Limits.Timeout)
	}
	return time.Time{}
}

// Model returns the chat model that answers from the cassette; in record
// mode (see [Open]), Options.Live.
func (c *Cassette) Model() model.ToolCallingChatModel {
	if c.recording != nil {
		return c.opts.Live
	}
	return &Model{c: c}
}

// Err returns the divergence that stopped the replay, a
// *[DivergenceError], or nil while the run follows the recording. It
// first compares with the recording the results of live tool calls that
// no model call was given (the run ended with them): call it once the run
// is over.
func (c *Cassette) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checkLive()
	return c.err
}

// Remaining counts the recorded model calls not played yet, over all
// runs: zero once the replay has played the whole recording.
func (c *Cassette) Remaining() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, r := range c.runs {
		n += len(r.calls) - r.next
	}
	return n
}

// diverge keeps d as the divergence, unless there is one already, and
// returns the one kept. The caller holds c.mu.
func (c *Cassette) diverge(d *DivergenceError) error {
	if c.err == nil {
		d.Path = c.path
		c.err = d
	}
	return c.err
}

// runFor returns the recorded run that the live run on ctx replays. The
// caller holds c.mu.
//
// A live run is bound to a recorded run the first time it asks, and stays
// bound: a root run to the first recorded root of the same agent not
// bound yet; an agent used as a tool to the child of its parent's
// recorded run started by the same tool call; another sub-agent (a
// transfer target) to the first unbound child of its agent. A run
// resumed after an interrupt finds its recorded run bound already, and
// takes it again when it still has calls to play.
func (c *Cassette) runFor(ctx context.Context) *recRun {
	r, ok := lookout.FromContext(ctx)
	if !ok {
		for _, rr := range c.roots {
			if rr.next < len(rr.calls) {
				return rr
			}
		}
		return nil
	}
	return c.bind(r)
}

// bind binds live run r to the recorded run it replays, as runFor says,
// and returns it, or nil when none is left. The caller holds c.mu.
func (c *Cassette) bind(r lookout.Run) *recRun {
	if rr, ok := c.bound[r]; ok {
		return rr
	}
	candidates, match, ok := c.candidates(r)
	if !ok {
		return nil
	}
	chosen := choose(candidates, match)
	if chosen == nil {
		return nil
	}
	chosen.claimed = true
	c.bound[r] = chosen
	return chosen
}

// candidates is the recorded runs live run r may replay, and what one of
// them must match: the roots for a root run, else the children of its
// parent's recorded run. ok is false when the parent replays none.
func (c *Cassette) candidates(r lookout.Run) (runs []*recRun, match func(*recRun) bool, ok bool) {
	p, ok := r.Parent()
	if !ok {
		return c.roots, func(rr *recRun) bool { return r.AgentName() == "" || rr.agent == r.AgentName() }, true
	}
	pr := c.bind(p)
	if pr == nil {
		return nil, nil, false
	}
	if id := r.CallID(); id != "" {
		return pr.children, func(rr *recRun) bool { return rr.callID == id }, true
	}
	return pr.children, func(rr *recRun) bool { return rr.callID == "" && rr.agent == r.AgentName() }, true
}

// choose is the first of candidates that matches and no live run has
// claimed, or else the first that matches and still has calls to play
// (a resumed run's), or nil.
func choose(candidates []*recRun, match func(*recRun) bool) *recRun {
	if rr := firstRun(candidates, func(rr *recRun) bool { return match(rr) && !rr.claimed }); rr != nil {
		return rr
	}
	return firstRun(candidates, func(rr *recRun) bool { return match(rr) && rr.next < len(rr.calls) })
}

// firstRun is the first of runs that ok accepts, or nil.
func firstRun(runs []*recRun, ok func(*recRun) bool) *recRun {
	if i := slices.IndexFunc(runs, ok); i >= 0 {
		return runs[i]
	}
	return nil
}

// Now returns the cassette's clock reading: the time recorded for the
// point the replay has reached. It starts at the first record's time and
// moves forward as model calls and tool calls are answered, so that the
// budget's deadline and interval triggers see the times they saw when the
// run was recorded. Pass it as lookout.Config.Now. In record mode it is
// time.Now.
func (c *Cassette) Now() time.Time {
	if c.recording != nil {
		return time.Now()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// advance moves the clock to t, never back. The caller holds c.mu.
func (c *Cassette) advance(t time.Time) {
	if t.After(c.now) {
		c.now = t
	}
}

// noRun reports a call that no recorded run matches. The caller holds
// c.mu.
func (c *Cassette) noRun(ctx context.Context, what string) error {
	r, ok := lookout.FromContext(ctx)
	d := &DivergenceError{ModelCall: -1, Message: -1, ToolCallIndex: -1, Reason: what + ": the recording has no run for it"}
	if ok {
		d.Agent = r.AgentName()
	}
	return c.diverge(d)
}
