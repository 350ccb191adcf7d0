package engine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// Run is the state of one agent run. Sub-agents share its session, tracker
// and pipeline through [Run.Child]. A Run is safe for concurrent use.
type Run struct {
	Cfg      *Config
	Store    *session.Store
	Tracker  *budget.Tracker
	Pipeline *observer.Pipeline

	// Root is true for the run that created the state; its children share
	// it.
	Root bool
	// AgentName names the agent in the recording, when known.
	AgentName string

	// Cancel releases the deadline set on the run's ctx, if any.
	Cancel context.CancelFunc

	// setup guards work an adapter does once per run, inside the runtime,
	// such as restoring a checkpointed session; see SetUp.
	setup     sync.Once
	setupDone atomic.Bool

	wrapUp atomic.Bool
	// ignored is the refusal of a tool call the model made after it was
	// given a wrap-up turn: the model ignored both, and its next call
	// ends the run with this error.
	ignored atomic.Pointer[budget.ExceededError]
	trace   recording
	// family is shared by a root run and its sub-agent runs.
	family *family
	// familyKey names a sub-agent run by its parent run and the tool
	// call that started it; see family.
	familyKey string

	mu sync.Mutex
	// injected holds the messages injected before the last model call, to
	// be replaced before the next.
	injected []*schema.Message
	// scanned is set once the history has been searched for injected
	// messages this run does not know about, such as after a resume.
	scanned bool
	// block is the message of the assessment made after call blockIndex
	// at blockTime.
	block      *schema.Message
	blockIndex int64
	blockTime  time.Time
	// blockOf is the first Assessment of the assessment the block was
	// last used for.
	blockOf *observer.Assessment
	// blockTurn is block alone, the usual messages of a turn, made with
	// block and never written to.
	blockTurn []*schema.Message
	// shown is the block the pipeline was last told the model is shown.
	shown *schema.Message

	// enforced lists which of time and tokens are enforced, checked
	// before each model call; beforeTool which of time and tool calls
	// are, checked before each tool call.
	enforced, beforeTool []budget.Resource
	// toolCalls is true when the tool-call limit is enforced: once it is
	// spent, the model gets a wrap-up turn.
	toolCalls bool

	calls   *session.Log[observer.ToolCallRecord]
	current *session.Value[observer.CurrentAssessment]
}

// NewRun builds the state of a run on store, which may carry a budget and
// tool calls from earlier runs.
func NewRun(cfg *Config, store *session.Store) (*Run, error) {
	tracker, err := budget.NewTracker(store, cfg.Limits, &budget.TrackerOptions{Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	r := &Run{
		Cfg: cfg, Store: store, Tracker: tracker, Root: true, family: &family{},
		calls:   session.LogOf[observer.ToolCallRecord](store),
		current: session.ValueOf[observer.CurrentAssessment](store),
	}
	r.enforced = enforcedOf(cfg, budget.Time, budget.Tokens)
	r.beforeTool = enforcedOf(cfg, budget.Time, budget.ToolCalls)
	r.toolCalls = cfg.Enforced(budget.ToolCalls)
	r.Pipeline, err = observer.NewPipeline(store, cfg.Observers, &observer.PipelineOptions{
		Now: cfg.Now, OnError: cfg.OnError, OnEfficacy: r.recordEfficacy,
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Child returns the state of a sub-agent run: the same session, tracker
// and pipeline, with its own record of injected messages.
func (r *Run) Child() *Run {
	return &Run{Cfg: r.Cfg, Store: r.Store, Tracker: r.Tracker, Pipeline: r.Pipeline, calls: r.calls, current: r.current,
		enforced: r.enforced, beforeTool: r.beforeTool, toolCalls: r.toolCalls, family: r.family}
}

// enforcedOf returns which of rs cfg enforces.
func enforcedOf(cfg *Config, rs ...budget.Resource) []budget.Resource {
	var check []budget.Resource
	for _, res := range rs {
		if cfg.Enforced(res) {
			check = append(check, res)
		}
	}
	return check
}

type runKey struct{}

type toolCallKey struct{}

// ToolCallMark stands for one tool call. Models number their calls within
// a turn, so two calls, at different depths of nested agents, may share an
// id; their marks differ.
type ToolCallMark struct{ id string }

// WithToolCall returns a copy of ctx that says it runs inside tool call id,
// so a sub-agent started by the call can name it.
func WithToolCall(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, toolCallKey{}, &ToolCallMark{id: id})
}

// ToolCallFrom returns the tool call ctx runs inside, if any.
func ToolCallFrom(ctx context.Context) string {
	if m := ToolCallMarkFrom(ctx); m != nil {
		return m.id
	}
	return ""
}

// ToolCallMarkFrom returns the mark of the tool call ctx runs inside, or
// nil.
func ToolCallMarkFrom(ctx context.Context) *ToolCallMark {
	m, _ := ctx.Value(toolCallKey{}).(*ToolCallMark)
	return m
}

// WithRun returns a copy of ctx carrying r.
func WithRun(ctx context.Context, r *Run) context.Context {
	return context.WithValue(ctx, runKey{}, r)
}

// FromContext returns the run carried by ctx, or nil.
func FromContext(ctx context.Context) *Run {
	r, _ := ctx.Value(runKey{}).(*Run)
	return r
}

// Lookup returns the run carried by ctx, and whether ctx carries a run
// mark at all: WithRun(ctx, nil) marks a run that goes on without Lookout,
// whose nested components must not start runs of their own.
func Lookup(ctx context.Context) (r *Run, marked bool) {
	r, marked = ctx.Value(runKey{}).(*Run)
	return r, marked
}

// Exceeded returns the error that ends the run before a model call: the
// ctx's budget cause, an enforced resource already spent, or the refusal
// of a tool call the model made on a wrap-up turn.
func (r *Run) Exceeded(ctx context.Context) error {
	if err := r.Failure(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return budgetDeadline(ctx, err)
	}
	if ex := r.ignored.Load(); ex != nil {
		return ex
	}
	return r.exceeded(r.Tracker.Budget(), r.Tracker.Now())
}

// exceeded is the budget part of Exceeded, on budget b at now.
func (r *Run) exceeded(b budget.Budget, now time.Time) error {
	if len(r.enforced) == 0 {
		return nil
	}
	if err := b.Exceeded(now, r.enforced...); err != nil {
		return err
	}
	return nil
}

// BeforeModel readies a model call: it returns Exceeded's error, or else
// what Prepare returns, reading the budget and the clock once for both.
func (r *Run) BeforeModel(ctx context.Context) (Turn, error) {
	if err := r.Failure(); err != nil {
		return Turn{}, err
	}
	if ctx.Err() != nil {
		return Turn{}, r.Exceeded(ctx)
	}
	if ex := r.ignored.Load(); ex != nil {
		return Turn{}, ex
	}
	b, now := r.Tracker.Budget(), r.Tracker.Now()
	if r.calm(&b, now) {
		return r.turn(ctx, ""), nil
	}
	if err := r.exceeded(b, now); err != nil {
		return Turn{}, err
	}
	return r.prepare(ctx, b, now), nil
}

// calm reports whether b at now is clear of every limit BeforeModel
// checks: neither tokens nor time is spent or within WrapUpAt of its
// limit, and the tool calls are not spent. It is the usual case, and then
// neither Exceeded nor the wrap-up turn applies.
func (r *Run) calm(b *budget.Budget, now time.Time) bool {
	if r.toolCallsSpent(b) {
		return false
	}
	w := max(r.Cfg.WrapUpAt, 0)
	if b.MaxTokens > 0 && float64(b.MaxTokens-b.TokensUsed) <= w*float64(b.MaxTokens) {
		return false
	}
	if !b.Deadline.IsZero() && float64(b.Deadline.Sub(now)) <= w*float64(b.Deadline.Sub(b.StartedAt)) {
		return false
	}
	return true
}

// nearlySpent says which of tokens and time has WrapUpAt or less left
// on budget b at now, or "" when neither has.
func (r *Run) nearlySpent(b budget.Budget, now time.Time) string {
	if r.Cfg.WrapUpAt <= 0 {
		return ""
	}
	if f, ok := b.FractionRemaining(budget.Tokens, now); ok && f <= r.Cfg.WrapUpAt {
		return "tokens: " + observer.FormatCount(b.TokensUsed) + " of " + observer.FormatCount(b.MaxTokens) + " used"
	}
	if left, ok := b.TimeRemaining(now); ok {
		if f, _ := b.FractionRemaining(budget.Time, now); f <= r.Cfg.WrapUpAt {
			return "time: " + observer.FormatDuration(max(left, 0)) + " left before the deadline"
		}
	}
	if r.toolCallsSpent(&b) {
		return "no tool calls left: " + observer.FormatCount(b.ToolCalls) + " of " + observer.FormatCount(b.MaxToolCalls) + " used"
	}
	return ""
}

// toolCallsSpent reports whether b's tool-call limit is enforced and
// spent, so that further calls would be refused.
func (r *Run) toolCallsSpent(b *budget.Budget) bool {
	return r.toolCalls && b.MaxToolCalls > 0 && b.ToolCalls >= b.MaxToolCalls
}

// Turn is what to add to the next model input.
type Turn struct {
	// Messages are the injected messages, tagged.
	Messages []*schema.Message
	// WrapUp is true when tools must be withheld from this call.
	WrapUp bool
}

// Prepare builds the messages to inject before a model call: the current
// assessment when it is fresh, and the wrap-up reminder when the budget is
// nearly spent. It tells the pipeline which assessment the model is shown,
// so that what the agent does next can be classified (feedback efficacy).
func (r *Run) Prepare(ctx context.Context) Turn {
	return r.prepare(ctx, r.Tracker.Budget(), r.Tracker.Now())
}

// prepare is Prepare on budget b at now.
func (r *Run) prepare(ctx context.Context, b budget.Budget, now time.Time) Turn {
	return r.turn(ctx, r.nearlySpent(b, now))
}

// turn builds the next turn: the current assessment, and the wrap-up
// reminder when nearlySpent is not "".
func (r *Run) turn(ctx context.Context, nearlySpent string) Turn {
	var t Turn
	if msg, turn, report, current := r.assessmentMessage(); msg != nil {
		t.Messages = turn
		if report {
			r.Pipeline.Injected(ctx, current)
		}
	}
	if reason := nearlySpent; reason != "" {
		r.wrapUp.Store(true)
		t.WrapUp = true
		// A fresh slice: the shared one-block turn is never appended to.
		t.Messages = append(slices.Clip(t.Messages), r.message(WrapUpText(reason), TagWrapUp))
	}
	return t
}

// SetUp runs f, the first time it is called for the run; later calls
// return at once, and calls made while f runs wait for it.
func (r *Run) SetUp(f func()) {
	r.setup.Do(f)
	r.setupDone.Store(true)
}

// NeedsSetUp reports whether the run is a root run and SetUp has not run
// to the end. Adapters check it before each hook's work, where it costs
// less than a call to SetUp. Sub-agent runs share their root's setup.
func (r *Run) NeedsSetUp() bool { return r.Root && !r.setupDone.Load() }

// WrappingUp reports whether the run has been given a wrap-up turn.
func (r *Run) WrappingUp() bool { return r.wrapUp.Load() }

// Reinject returns msgs without the messages this run injected before,
// followed by add.
//
// Injected messages are remembered by pointer. In the common case the
// previous ones sit near the end of the history, followed only by the
// model's reply and the tool results appended since, and the history is
// rewritten in place from there: the cost depends on the messages since
// the last model call, not on the length of the history. Otherwise (the
// first call of a run, a resume, another middleware having rewritten the
// history) it builds a new slice, dropping every tagged message.
func (r *Run) Reinject(msgs, add []*schema.Message) []*schema.Message {
	r.mu.Lock()
	old, first := r.injected, !r.scanned
	r.injected, r.scanned = add, true
	r.mu.Unlock()

	if !first {
		if out, ok := reinjectInPlace(msgs, old, add); ok {
			return out
		}
	}
	out := make([]*schema.Message, 0, len(msgs)+len(add)+len(msgs)/2+8)
	for _, msg := range msgs {
		if _, injected := Injected(msg); !injected {
			out = append(out, msg)
		}
	}
	return append(out, add...)
}

// reinjectInPlace removes old from the tail of msgs and appends add,
// reusing msgs' array. It reports false, changing nothing, when an old
// message is not found or the array is too small.
func reinjectInPlace(msgs, old, add []*schema.Message) ([]*schema.Message, bool) {
	if len(msgs)-len(old)+len(add) > cap(msgs) {
		return nil, false
	}
	from, found := len(msgs), 0
	for i := len(msgs) - 1; i >= 0 && found < len(old); i-- {
		if slices.Contains(old, msgs[i]) {
			from, found = i, found+1
		}
	}
	if found < len(old) {
		return nil, false
	}
	w := from
	for _, msg := range msgs[from:] {
		if !slices.Contains(old, msg) {
			msgs[w] = msg
			w++
		}
	}
	out := append(msgs[:w], add...)
	if len(out) < len(msgs) {
		clear(msgs[len(out):])
	}
	return out, true
}

// assessmentMessage returns the message for the current assessment, or
// nil when there is none or it is stale, with a turn holding just that
// message. The message is made once per assessment and reused while the
// assessment stays current. report is false when the pipeline has already
// been told that this run shows it.
func (r *Run) assessmentMessage() (msg *schema.Message, turn []*schema.Message, report bool, current observer.CurrentAssessment) {
	current, ok := r.current.Latest()
	if !ok || len(current.Assessments) == 0 || current.IsStale(r.calls.Total(), r.Cfg.MaxAgeCalls) {
		return nil, nil, false, current
	}
	// An assessment is known by its call index and time. Comparing times
	// costs more than comparing the address of its first Assessment,
	// which tells the usual case, the same assessment as before.
	first := &current.Assessments[0]
	r.mu.Lock()
	if r.block == nil || r.blockIndex != current.CallIndex || first != r.blockOf && !r.blockTime.Equal(current.GeneratedAt) {
		r.block = r.message(current.Render(), TagAssessment)
		r.blockTurn = []*schema.Message{r.block}
		r.blockIndex, r.blockTime = current.CallIndex, current.GeneratedAt
	}
	r.blockOf = first
	msg, turn = r.block, r.blockTurn
	report = r.shown != msg
	r.shown = msg
	r.mu.Unlock()
	return msg, turn, report, current
}

// SeedTask gives the Drift observer the task: the first user message in
// msgs, unless the session already has one (declared by the user, or from
// an earlier run).
func (r *Run) SeedTask(msgs []*schema.Message) {
	if !r.trace.task.Load() {
		r.seedTask(msgs)
	}
}

func (r *Run) seedTask(msgs []*schema.Message) {
	if !r.trace.task.CompareAndSwap(false, true) {
		return
	}
	for _, m := range msgs {
		if _, injected := Injected(m); m != nil && m.Role == schema.User && !injected {
			session.ValueOf[observer.Task](r.Store).Update(func(t observer.Task, set bool) observer.Task {
				if set && (t.Prompt != "" || len(t.Scope) > 0) {
					return t
				}
				t.Prompt = m.Content
				return t
			})
			return
		}
	}
}

func (r *Run) message(content, kind string) *schema.Message {
	return &schema.Message{Role: r.Cfg.InjectAs, Content: content, Extra: map[string]any{Tag: kind}}
}

// Tag is the key Lookout sets in the Extra of every message it injects.
// Its value says what the message is: [TagAssessment] or [TagWrapUp].
const Tag = "lookout"

// The values of [Tag].
const (
	TagAssessment = "assessment"
	TagWrapUp     = "wrap_up"
)

// Injected reports whether msg was injected by Lookout, and what it is.
func Injected(msg *schema.Message) (kind string, ok bool) {
	if msg == nil || msg.Extra == nil {
		return "", false
	}
	kind, ok = msg.Extra[Tag].(string)
	return kind, ok
}

// WrapUpText is the reminder of the wrap-up turn.
func WrapUpText(reason string) string {
	return "## Budget nearly spent\n\n" +
		"Your budget is nearly spent (" + reason + "). Tools are withheld from this turn. " +
		"Write your final answer now: summarise what you have done, what you found, and what remains to be done."
}
