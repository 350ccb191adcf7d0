package drive

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/internal/runctx"
	"github.com/lookout-go/lookout/internal/sessionhook"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// Run is one run of an agent: one query, from its start to its end. It
// holds the run's session, budget tracker and observer pipeline, which the
// runs it starts (sub-agents, agents used as tools) share as its children.
// A Run is safe for concurrent use.
//
// Its life, as an adapter drives it: [Lookout.Start] starts it (or a child
// of the run on the ctx); [Run.BeforeModel] gates each model call and
// gives what to inject; [Run.StartModel] and [ModelCall.End] charge and
// record each attempt; [Run.Admit] admits each tool call and
// [Call.End] ends it; [Run.End] records how the run ended.
// [Run.State] keeps it in a checkpoint, and [Run.Begin] continues it from
// one.
type Run struct {
	l     *Lookout
	cfg   *lookout.Config
	store *session.Store
	// tracker charges the budget; pipeline runs the observers.
	tracker  *budget.Tracker
	pipeline *observer.Pipeline
	// budgetCell changes the budget where the tracker keeps it, which the
	// gate reads under its lock (see reserveModelCall).
	budgetCell sessionhook.Unguarded[budget.Budget]

	// parent is the run that started this one, or nil for a root.
	parent *Run
	// agentName names the agent in the recording, when known.
	agentName string
	// callID is the parent's tool call that started this run, if any.
	callID string
	// lease caps what the run may spend itself (see Config.Leases), and
	// spent counts that, for a run with a lease.
	lease *budget.Limits
	spent leaseUse
	// streams are the run's streamed replies not yet ended.
	streams inflight

	// cancel releases the deadline set on the run's ctx, if any; held
	// leaves that to the caller (see StartOptions.Held).
	cancel context.CancelFunc
	held   bool

	// setup guards the start of the recording, once per run; see Begin.
	setup     sync.Once
	setupDone atomic.Bool

	wrapUp atomic.Bool
	// reserved says a model call is counted in the budget, by the gate,
	// and its first attempt is not to be counted again.
	reserved atomic.Bool
	// final is the spent limit of a run given its last turn once the
	// limit was spent: it may not hand over (Config.HandoverTools).
	final atomic.Pointer[budget.ExceededError]
	// spoke says the run's agent is known to the family as having made a
	// model call in the query.
	spoke atomic.Bool
	// ownControl holds the run's own control tools besides the
	// configured ones; see AddControlTools.
	ownControl atomic.Pointer[[]string]
	// seenModel is the model the run's model calls last reported through
	// their callbacks; see IdentifyModel.
	seenModel atomic.Pointer[modelID]
	// near is when the budget's time is nearly spent; see nearTime.
	near nearTime
	// repeatRefusals counts the tool calls an observer refused in this
	// run since the last call it let run: the refusals of one loop. stuck
	// is the run's stuck state: once the model makes a refused call
	// again, its next model call is a wrap-up turn without tools; a tool
	// call the model makes on that turn all the same is refused, and
	// stuckEnd ends the run at its next model call.
	repeatRefusals atomic.Int64
	stuck          atomic.Int32
	stuckEnd       atomic.Pointer[stuckStop]
	// ignored is the refusal of a tool call the model made after it was
	// given a wrap-up turn: the model ignored both, and its next call
	// ends the run with this error.
	ignored atomic.Pointer[budget.ExceededError]
	// handover names the control tool the run's last model reply called
	// and that succeeded: the run hands over (to another agent, out of a
	// loop) rather than answers.
	handover atomic.Pointer[string]
	trace    recording
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
	// blockRecord is room for the record of block alone, made with it;
	// nil once taken (see injectedIn).
	blockRecord []recorder.InjectedMessage
	// shown is the block the pipeline was last told the model is shown.
	shown *schema.Message
	// blockLen is how many sections the block had: withdrawing one
	// leaves the assessment's call index and time as they were.
	blockLen int
	// lastUser is the latest user message a root run saw at the end of a
	// model call's input.
	lastUser *schema.Message

	calls   *session.Log[observer.ToolCallRecord]
	current *session.Value[observer.CurrentAssessment]

	// handle is what a ctx carries of the run.
	handle runctx.Handle
	// rendered is the markdown of the assessment last rendered.
	rendered rendering
	// blockExtra is the Extra of the run's assessment blocks; see tagged.
	blockExtra map[string]any
}

// newRun builds the state of a root run on store, which may carry a
// budget and tool calls from earlier runs.
func (l *Lookout) newRun(store *session.Store) (*Run, error) {
	cfg := &l.cfg
	tracker, err := budget.NewTracker(store, cfg.Limits, &budget.TrackerOptions{Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	r := &Run{
		l: l, cfg: cfg, store: store, tracker: tracker, family: &family{},
		budgetCell: sessionhook.UnguardedOf[budget.Budget](session.ValueOf[budget.Budget](store)),
		calls:      session.LogOf[observer.ToolCallRecord](store),
		current:    session.ValueOf[observer.CurrentAssessment](store),
	}
	r.handle = runctx.Handle{Reader: r, Run: r}
	// Opened before a checkpoint's session is restored into the store.
	session.ValueOf[runctx.Conversation](store)
	r.pipeline, err = observer.NewPipeline(store, cfg.Observers, &observer.PipelineOptions{
		Now: cfg.Now, OnError: cfg.OnError, OnEfficacy: r.recordEfficacy,
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// child returns the state of a sub-agent run: the same session, tracker
// and pipeline, with its own record of injected messages.
func (r *Run) child(agentName, callID string) *Run {
	c := &Run{l: r.l, cfg: r.cfg, store: r.store, tracker: r.tracker, budgetCell: r.budgetCell, pipeline: r.pipeline, calls: r.calls, current: r.current,
		family: r.family, parent: r, agentName: agentName, callID: callID}
	c.handle = runctx.Handle{Reader: c, Run: c, Parent: &r.handle}
	if lease, ok := r.cfg.Leases[agentName]; ok && agentName != "" {
		c.lease = &lease
	}
	r.family.started(c)
	return c
}

// leaseUse counts what a run with a lease has spent itself.
type leaseUse struct {
	tokens, modelCalls, toolCalls atomic.Int64
}

// leaseSpent says which part of the run's lease is spent or nearly
// spent (within WrapUpAt of its cap, or one model call left), or "" when
// none is. A spent lease gives a wrap-up turn, never an error: the query
// goes on once the run hands back.
func (r *Run) leaseSpent() string {
	l := r.lease
	w := max(r.cfg.WrapUpAt, 0)
	if used := r.spent.tokens.Load(); l.MaxTokens > 0 && float64(l.MaxTokens-used) <= w*float64(l.MaxTokens) {
		return "this agent's lease: " + observer.FormatCount(used) + " of " + observer.FormatCount(l.MaxTokens) + " tokens used"
	}
	if used := r.spent.modelCalls.Load(); l.MaxModelCalls > 0 && l.MaxModelCalls-used <= 1 {
		return "this agent's lease: " + observer.FormatCount(used) + " of " + observer.FormatCount(l.MaxModelCalls) + " model calls used"
	}
	if used := r.spent.toolCalls.Load(); l.MaxToolCalls > 0 && used >= l.MaxToolCalls {
		return "this agent's lease: no tool calls left, " + observer.FormatCount(used) + " of " + observer.FormatCount(l.MaxToolCalls) + " used"
	}
	return ""
}

// Exceeded returns the error that ends the run before a model call: the
// ctx's budget cause, an enforced resource already spent, or the refusal
// of a tool call the model made on a wrap-up turn.
func (r *Run) exceededNow(ctx context.Context) error {
	if err := r.Failure(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return budgetDeadline(ctx, err)
	}
	if ex := r.ignored.Load(); ex != nil {
		return ex
	}
	return r.exceeded(r.tracker.Budget(), r.tracker.Now())
}

// exceeded is the budget part of exceededNow, on budget b at now.
func (r *Run) exceeded(b budget.Budget, now time.Time) error {
	if len(r.l.enforced) == 0 {
		return nil
	}
	if err := b.Exceeded(now, r.l.enforced...); err != nil {
		return err
	}
	return nil
}

// Turn is what to add to the next model input.
type Turn struct {
	// Messages are the injected messages, tagged (see [lookout.Injected]): the
	// current assessment when it is fresh, and the wrap-up reminder.
	Messages []*schema.Message
	// WrapUp is true when the model must not call tools on this call:
	// pass the runtime's "no tool calls" tool choice.
	WrapUp bool
}

// BeforeModel is the gate before each model call. On the run's first
// call it records the run's input and gives the Drift observer its task.
// Then it returns the error that ends the run, once tokens or time are
// spent, the ctx's deadline passed, or the model ignored a wrap-up turn;
// the run's end is then recorded with that error. Otherwise it returns
// the turn: what to inject, and whether tools are withheld. It tells the
// pipeline which assessment the model is shown, so that what the agent
// does next can be classified (feedback efficacy). tools are the tools
// the call offers: a wrap-up reminder names the control tools among them.
//
// Should Lookout's own work panic, the panic goes to Config.OnError and
// the call goes ahead with nothing injected.
func (r *Run) BeforeModel(ctx context.Context, input []*schema.Message, tools []*schema.ToolInfo) (t Turn, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.fault(ctx, "preparing a model call", p)
			t, err = Turn{}, nil
		}
	}()
	r.readInput(ctx, input)
	t, err = r.gate(ctx, tools)
	if err != nil {
		r.recordExceeded(ctx, err)
		r.End(ctx, err)
	}
	return t, err
}

// readInput does what a model call's input tells the run: it begins the
// run at its first call, records the input, seeds the task and notes a
// new user message.
func (r *Run) readInput(ctx context.Context, input []*schema.Message) {
	if !r.setupDone.Load() {
		r.Begin(ctx, nil)
	}
	if r.trace.rec != nil && !r.trace.input.Load() {
		r.recordInput(ctx, input)
	}
	if !r.trace.task.Load() {
		r.seedTask(input)
	}
	if r.parent == nil {
		r.noteUser(ctx, input)
	}
	if r.handover.Load() != nil {
		r.handover.Store(nil) // the model is called again: no handover
	}
}

// gate returns exceededNow's error, or else the turn, counting the model
// call in the budget. Once a limit is spent, each agent of the query has
// one last turn at most, and hands nothing over on it; see lastTurn.
func (r *Run) gate(ctx context.Context, tools []*schema.ToolInfo) (Turn, error) {
	if err := r.stopped(ctx); err != nil {
		return Turn{}, err
	}
	now := r.tracker.Now()
	var b budget.Budget // read only when the budget is not calm
	ex, calm := r.reserveModelCall(now, &b)
	if ex != nil {
		return r.lastTurn(ctx, now, ex, tools)
	}
	r.reserved.Store(true)
	r.spoken()
	reason := ""
	if !calm {
		reason = r.nearlySpent(b, now)
		if r.lastModelCall(&b) {
			r.family.closeTurns(r.agentName)
		}
	}
	if reason == "" && r.lease != nil {
		reason = r.leaseSpent()
	}
	switch {
	case reason != "":
		return r.turn(ctx, reason, tools), nil
	case r.stuck.Load() != notStuck:
		return r.stuckTurn(ctx, tools), nil
	default:
		return r.turn(ctx, "", nil), nil
	}
}

// reserve counts a model call the limits do not allow but the run makes
// all the same: its last turn.
func (r *Run) reserve(now time.Time) {
	r.tracker.ReserveModelCall(now)
	r.reserved.Store(true)
}

// spoken tells the family, once per run, that the run's agent made a
// model call in the query.
func (r *Run) spoken() {
	if !r.spoke.Load() {
		r.spoke.Store(true)
		r.family.spoken(r.agentName)
	}
}

// lastTurn returns the wrap-up turn a run whose budget err spent still
// gets, or err when it gets none.
func (r *Run) lastTurn(ctx context.Context, now time.Time, err *budget.ExceededError, tools []*schema.ToolInfo) (Turn, error) {
	if !r.lastWord(err) {
		return Turn{}, err
	}
	r.reserve(now)
	if r.cfg.WrapUpAt < 0 {
		return r.turn(ctx, "", nil), nil // a last turn, not a wrap-up turn
	}
	return r.turn(ctx, r.spentReason(err), tools), nil
}

// stopped returns the error that stops the run before a model call: a
// recording failure, the ctx's end, or an exceeded budget the run was
// already told about.
func (r *Run) stopped(ctx context.Context) error {
	if err := r.Failure(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return r.exceededNow(ctx)
	}
	if ex := r.ignored.Load(); ex != nil {
		return ex
	}
	if stop := r.stuckEnd.Load(); stop != nil {
		return stop.err
	}
	return nil
}

// nearlySpent says which of tokens and time has WrapUpAt or less left
// on budget b at now, or "" when neither has.
func (r *Run) nearlySpent(b budget.Budget, now time.Time) string {
	if r.cfg.WrapUpAt <= 0 {
		return ""
	}
	for _, reason := range nearlySpentReasons {
		if s := reason(r, &b, now); s != "" {
			return s
		}
	}
	return ""
}

// nearlySpentReasons say, in order, why a budget is nearly spent: one
// resource each, "" when it is not.
var nearlySpentReasons = []func(r *Run, b *budget.Budget, now time.Time) string{
	func(r *Run, b *budget.Budget, now time.Time) string {
		if f, ok := b.FractionRemaining(budget.Tokens, now); ok && f <= r.cfg.WrapUpAt {
			return "tokens: " + observer.FormatCount(b.TokensUsed) + " of " + observer.FormatCount(b.MaxTokens) + " used"
		}
		return ""
	},
	func(r *Run, b *budget.Budget, now time.Time) string {
		if f, ok := b.FractionRemaining(budget.CostUSD, now); ok && f <= r.cfg.WrapUpAt {
			return costReason(b.CostUSD, b.MaxCostUSD)
		}
		return ""
	},
	func(r *Run, b *budget.Budget, now time.Time) string {
		left, ok := b.TimeRemaining(now)
		if f, _ := b.FractionRemaining(budget.Time, now); ok && f <= r.cfg.WrapUpAt {
			return "time: " + observer.FormatDuration(max(left, 0)) + " left before the deadline"
		}
		return ""
	},
	func(r *Run, b *budget.Budget, _ time.Time) string {
		if r.lastModelCall(b) { // b counts the call the turn is for
			return "model calls: " + observer.FormatCount(b.ModelCalls-1) + " of " + observer.FormatCount(b.MaxModelCalls) + " used"
		}
		return ""
	},
}

// controlOf returns the names of the control tools among tools.
func (r *Run) controlOf(tools []*schema.ToolInfo) []string {
	var names []string
	for _, t := range tools {
		if t != nil && r.Control(t.Name) {
			names = append(names, t.Name)
		}
	}
	return names
}

// lastWord reports whether err, a spent limit, gives way to one last
// wrap-up turn of the run, and if so marks the run's agent as having had
// it: each agent of the query gets one, on which it may not hand over
// (see Config.HandoverTools), so that the query ends on an answer where
// it can and within one model call per agent. A spent tool-call limit
// gives every agent its last turn, which needs no tools; a spent
// model-call limit gives it only to an agent the query hands back to, one
// that made a model call before (a supervisor after its sub-agent wrapped
// up, a parent after its agent tool), and none with wrap-up turns off.
// Time, tokens and cost give none: their wrap-up turns came before they
// ran out. With wrap-up turns off, the last turn is a plain one.
func (r *Run) lastWord(err *budget.ExceededError) bool {
	switch {
	case r.ignored.Load() != nil:
		return false
	case err.Resource == budget.ModelCalls:
		if r.cfg.WrapUpAt < 0 {
			return false
		}
		if !r.family.hasSpoken(r.agentName) {
			return false
		}
	case err.Resource != budget.ToolCalls:
		return false
	}
	if !r.family.closeTurns(r.agentName) {
		return false
	}
	r.final.Store(err)
	return true
}

// spentReason says what err, a budget stop, spent, for a wrap-up turn.
func (r *Run) spentReason(err error) string {
	var ex *budget.ExceededError
	if errors.As(err, &ex) {
		switch ex.Resource {
		case budget.CostUSD:
			return costReason(float64(ex.Used)/1e6, float64(ex.Limit)/1e6)
		case budget.ToolCalls:
			return "no tool calls left: " + observer.FormatCount(ex.Used) + " of " + observer.FormatCount(ex.Limit) + " used"
		}
		return string(ex.Resource) + ": " + observer.FormatCount(ex.Used) + " of " + observer.FormatCount(ex.Limit) + " used"
	}
	return err.Error()
}

// costReason says how much of the cost limit is spent, for a wrap-up
// reminder.
func costReason(used, limit float64) string {
	return "cost: $" + strconv.FormatFloat(used, 'f', 4, 64) + " of $" + strconv.FormatFloat(limit, 'f', 2, 64) + " spent"
}

// lastModelCall reports whether b's model-call limit is enforced and
// reached by the call b counts: it is the last, and a wrap-up turn.
func (r *Run) lastModelCall(b *budget.Budget) bool {
	return r.l.modelCalls && b.MaxModelCalls > 0 && b.ModelCalls >= b.MaxModelCalls
}

// turn builds the next turn: the current assessment, and the wrap-up
// reminder when nearlySpent is not "".
func (r *Run) turn(ctx context.Context, nearlySpent string, tools []*schema.ToolInfo) Turn {
	var t Turn
	if msg, turn, report, current := r.assessmentMessage(); msg != nil {
		t.Messages = turn
		if report {
			r.pipeline.Injected(ctx, current)
		}
	}
	if reason := nearlySpent; reason != "" {
		r.wrapUp.Store(true)
		t.WrapUp = true
		// A fresh slice: the shared one-block turn is never appended to.
		t.Messages = append(slices.Clip(t.Messages), r.message(wrapUpText(reason, r.controlOf(tools)), lookout.TagWrapUp))
	}
	return t
}

// stuckTurn builds a wrap-up turn for a run whose model made a refused
// call again: the current assessment, and a reminder to finish.
func (r *Run) stuckTurn(ctx context.Context, tools []*schema.ToolInfo) Turn {
	t := r.turn(ctx, "", nil)
	r.stuck.Store(stuckTurnGiven)
	r.wrapUp.Store(true)
	t.WrapUp = true
	t.Messages = append(slices.Clip(t.Messages), r.message(stuckText(r.controlOf(tools)), lookout.TagWrapUp))
	return t
}

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
		if _, injected := lookout.Injected(msg); !injected {
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
	w, ok := withoutOld(msgs, old)
	if !ok {
		return nil, false
	}
	// Every old message was found, so that w+len(add) is within the
	// capacity checked above; add is copied in by hand, which costs less
	// than append's copy for the message or two it holds.
	out := msgs[:w+len(add)]
	for i, msg := range add {
		out[w+i] = msg
	}
	if len(out) < len(msgs) {
		clear(msgs[len(out):])
	}
	return out, true
}

// withoutOld moves the messages of msgs that are not in old to the front
// of the tail the old messages sit in, and returns how many messages are
// left; false, changing nothing, when not all of old are there. The usual
// old is one message, the last block, a few messages from the end.
func withoutOld(msgs, old []*schema.Message) (int, bool) {
	switch len(old) {
	case 0:
		return len(msgs), true
	case 1:
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i] == old[0] {
				// Moved by hand: copy's typed copy costs more than the
				// message or two after the block.
				for ; i < len(msgs)-1; i++ {
					msgs[i] = msgs[i+1]
				}
				return i, true
			}
		}
		return 0, false
	}
	from, ok := oldFrom(msgs, old)
	if !ok {
		return 0, false
	}
	w := from
	for _, msg := range msgs[from:] {
		if !slices.Contains(old, msg) {
			msgs[w] = msg
			w++
		}
	}
	return w, true
}

// oldFrom returns where the earliest of the old messages sits in msgs,
// looking back from the end, and false when not all of them are there.
func oldFrom(msgs, old []*schema.Message) (int, bool) {
	from, found := len(msgs), 0
	for i := len(msgs) - 1; i >= 0 && found < len(old); i-- {
		if slices.Contains(old, msgs[i]) {
			from, found = i, found+1
		}
	}
	return from, found == len(old)
}

// seedTask gives the Drift observer the task: the first user message in
// msgs, unless the session already has one (declared by the user, or from
// an earlier run).
func (r *Run) seedTask(msgs []*schema.Message) {
	if !r.trace.task.CompareAndSwap(false, true) {
		return
	}
	m := firstUser(msgs)
	if m == nil {
		return
	}
	session.ValueOf[observer.Task](r.store).Update(func(t observer.Task, set bool) observer.Task {
		if set && (t.Prompt != "" || len(t.Scope) > 0) {
			return t
		}
		t.Prompt = m.Content
		return t
	})
}

// firstUser returns the first user message of msgs that Lookout did not
// inject, or nil.
func firstUser(msgs []*schema.Message) *schema.Message {
	for _, m := range msgs {
		if m != nil && m.Role == schema.User && !isInjected(m) {
			return m
		}
	}
	return nil
}

// noteUser tells the pipeline when the input ends with a user message the
// run has not seen: the user has spoken since the detectors' sections were
// made, so they leave the block.
func (r *Run) noteUser(ctx context.Context, input []*schema.Message) {
	last := lastOwn(input)
	if last == nil || last.Role != schema.User {
		return
	}
	r.mu.Lock()
	seen := r.lastUser == last
	r.lastUser = last
	r.mu.Unlock()
	if !seen {
		r.pipeline.UserMessage(ctx)
	}
}

// lastOwn returns the last message of input that Lookout did not inject,
// or nil. Lookout injects user and system messages only (see
// Config.InjectAs), so a reply or a tool result, the usual last message,
// is taken without looking for the tag.
func lastOwn(input []*schema.Message) *schema.Message {
	for i := len(input) - 1; i >= 0; i-- {
		if m := input[i]; m == nil || m.Role != schema.User && m.Role != schema.System || !isInjected(m) {
			return m
		}
	}
	return nil
}

// wrapUpText is the reminder of the wrap-up turn.
func wrapUpText(reason string, control []string) string {
	withheld, answer := withheldText(control)
	return "## Budget nearly spent\n\n" +
		"Your budget is nearly spent (" + reason + "). " + withheld +
		answer + ": summarise what you have done, what you found, and what remains to be done."
}

// stuckText is the wrap-up reminder for a model that made a refused call
// again.
func stuckText(control []string) string {
	withheld, answer := withheldText(control)
	return "## Stuck in a loop\n\n" +
		"You made again a call that was refused because repeating it would not change its result. " + withheld +
		answer + ": summarise what you have done, what you found, and what is blocking you."
}

// withheldText says which tools a wrap-up turn withholds, and what the
// model is to do instead.
func withheldText(control []string) (withheld, answer string) {
	withheld, answer = "Tools are withheld from this turn. ", "Write your final answer now"
	if len(control) > 0 {
		withheld = "Tools are withheld from this turn, except those that hand back or finish (" + strings.Join(control, ", ") + "). "
		answer = "Write your final answer now, or hand back"
	}
	return withheld, answer
}
