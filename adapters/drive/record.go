package drive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/internal/endwait"
	"github.com/lookout-go/lookout/internal/recordhook"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
)

// recording is the trajectory side of a run. Its zero value records
// nothing.
type recording struct {
	rec    *recorder.Trace
	task   atomic.Bool
	input  atomic.Bool
	ended  atomic.Bool
	failed atomic.Pointer[error]
	tools  offeredTools
	usage  runUsage
	// injected is what the last model call was injected.
	injected lastInjected
	// exceeded is the budget error last recorded.
	exceeded atomic.Pointer[budget.ExceededError]
	// efficacyBase holds the session's feedback-efficacy counts when the
	// run started, which recordEfficacy subtracts: runs of a conversation
	// share the session's counts, and each records its own.
	efficacyBase atomic.Pointer[map[string]observer.EfficacyCounts]

	// order keeps a call's tool_ended and assessment records in the
	// order the pipeline numbered the call: parallel calls are numbered
	// one at a time, and their records must not overtake each other.
	order sync.Mutex
	// expected counts the tool calls of the model's last reply not yet
	// admitted, and inflight those being admitted or run: their records
	// are still to come. endErr is the error a tool call ended the run
	// with, recorded once both reach zero. See EndAfterCalls.
	expected atomic.Int64
	inflight atomic.Int64
	endErr   atomic.Pointer[error]
	// paused holds the ids of the calls an interrupt paused after their
	// tool_started was written. The resumed run runs them again; their
	// tool_started is not written twice. hasPaused is set while paused
	// is not empty.
	pausedMu  sync.Mutex
	paused    []string
	hasPaused atomic.Bool
	// open holds the calls whose tool_started is written and whose
	// tool_ended is not yet.
	open openCalls
}

// openCalls are a run's calls started and not ended in its recording. Once
// the run's end is recorded, the set is closed: the calls still open are
// ended then, and their own ends, if they come, are not written after the
// run's.
type openCalls struct {
	mu     sync.Mutex
	calls  []openCall
	closed bool
}

type openCall struct{ id, name string }

func (o *openCalls) add(id, name string) {
	o.mu.Lock()
	o.calls = append(o.calls, openCall{id, name})
	o.mu.Unlock()
}

// remove forgets call id, reporting false when the set is closed.
func (o *openCalls) remove(id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, c := range o.calls {
		if c.id == id {
			o.calls = append(o.calls[:i], o.calls[i+1:]...)
			break
		}
	}
	return !o.closed
}

// close closes the set and returns the calls still open.
func (o *openCalls) close() []openCall {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	calls := o.calls
	o.calls = nil
	return calls
}

// streamWait bounds how long a run's end waits for its streamed replies.
const streamWait = time.Second

// errAbandoned is the error a call is recorded with when its run ended
// before it did, such as a streamed result nobody read to its end.
var errAbandoned = errors.New("the run ended before the call did")

// runUsage counts what a run's own calls consume, for its run_ended
// record: the budget it charges may be shared with earlier runs of the
// session and with sub-agents, which record their own.
type runUsage struct {
	prompt, completion, total, modelCalls, toolCalls atomic.Int64
	cached, cacheWrite, reasoning                    atomic.Int64
	// cost holds the float64 bits of the dollars spent.
	cost atomic.Uint64
}

func (u *runUsage) load() recorder.RunUsage {
	return recorder.RunUsage{
		PromptTokens: u.prompt.Load(), CompletionTokens: u.completion.Load(), TotalTokens: u.total.Load(),
		CachedTokens: u.cached.Load(), CacheWriteTokens: u.cacheWrite.Load(), ReasoningTokens: u.reasoning.Load(),
		CostUSD:   math.Float64frombits(u.cost.Load()),
		ToolCalls: u.toolCalls.Load(), ModelCalls: u.modelCalls.Load(),
	}
}

func (u *runUsage) store(v recorder.RunUsage) {
	u.prompt.Store(v.PromptTokens)
	u.completion.Store(v.CompletionTokens)
	u.total.Store(v.TotalTokens)
	u.cached.Store(v.CachedTokens)
	u.cacheWrite.Store(v.CacheWriteTokens)
	u.reasoning.Store(v.ReasoningTokens)
	u.cost.Store(math.Float64bits(v.CostUSD))
	u.toolCalls.Store(v.ToolCalls)
	u.modelCalls.Store(v.ModelCalls)
}

// addCost adds usd to the dollars spent.
func (u *runUsage) addCost(usd float64) {
	for {
		old := u.cost.Load()
		if u.cost.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+usd)) {
			return
		}
	}
}

// startRecording writes the run's run_started record, as a child of
// parent's recording when parent is not nil.
func (r *Run) startRecording(ctx context.Context, parent *Run) {
	if r.cfg.Recorder == nil {
		return
	}
	info := r.runInfo()
	switch {
	case parent != nil && parent.trace.rec != nil:
		r.startChildRecording(ctx, parent, info)
	case parent == nil:
		r.startRootRecording(ctx, info)
	}
}

// runInfo describes the run for its run_started record.
func (r *Run) runInfo() recorder.RunInfo {
	b := r.tracker.Budget()
	return recorder.RunInfo{
		AgentName: r.agentName,
		Limits: recorder.RunLimits{
			Timeout:       r.cfg.Limits.Timeout,
			Deadline:      b.Deadline,
			MaxTokens:     b.MaxTokens,
			MaxToolCalls:  b.MaxToolCalls,
			MaxModelCalls: b.MaxModelCalls,
		},
		Thresholds:       r.l.thresholds,
		ParentToolCallID: r.callID,
	}
}

// startChildRecording starts the recording of a child run as a sub-run of
// parent's, or goes on with the one an interrupt paused.
func (r *Run) startChildRecording(ctx context.Context, parent *Run, info recorder.RunInfo) {
	if r.callID != "" {
		// Models number their calls per turn, so the key names the
		// parent run too.
		r.familyKey = parent.trace.rec.ID() + "/" + r.callID
	}
	var err error
	if p, ok := r.family.resume(r.familyKey); ok {
		// A sub-agent resumed after an interrupt inside its call goes
		// on with the run it recorded before, whose input is recorded.
		r.trace.rec = r.cfg.Recorder.ResumeRun(recorder.RunInfo{
			RunID: p.RunID, ParentRunID: parent.trace.rec.ID(), Depth: parent.trace.rec.Depth() + 1,
		}, p.Next)
		r.trace.usage.store(p.Usage)
		r.trace.input.Store(true)
		r.setPausedCalls(p.Calls)
	} else {
		r.trace.rec, err = parent.trace.rec.StartChild(ctx, info)
	}
	r.family.opened(r)
	r.note(err)
}

// startRootRecording starts the recording of a root run, as the next turn
// of its conversation.
func (r *Run) startRootRecording(ctx context.Context, info recorder.RunInfo) {
	conv := r.takeTurn(ctx)
	info.ConversationID, info.Turn = conv.ID, conv.Turn
	info.AgentVersion, info.AgentModel = r.cfg.Agent.Version, r.cfg.Agent.Model
	if info.AgentVersion == "" {
		info.AgentVersion = mainVersion()
	}
	var err error
	r.trace.rec, err = r.cfg.Recorder.StartRun(ctx, info)
	if r.trace.efficacyBase.Load() == nil {
		r.trace.efficacyBase.Store(ptr(r.pipeline.Efficacy().ByObserver))
	}
	r.note(err)
}

func ptr[T any](v T) *T { return &v }

// efficacyBase returns the feedback-efficacy counts of the session when
// the run started. The counts of the run's efficacy records are those of
// the session less these, so that runs sharing a session count their own.
func (r *Run) efficacyBase() map[string]observer.EfficacyCounts {
	if p := r.trace.efficacyBase.Load(); p != nil {
		return *p
	}
	return nil
}

// ID returns the id of the run's recording, or "" when nothing is
// recorded.
func (r *Run) ID() string { return r.trace.rec.ID() }

// Usage returns what the run's own model and tool calls have used so far,
// without its children's, as its run_ended record will say. It is counted
// only while the run is recorded.
func (r *Run) Usage() recorder.RunUsage { return r.trace.usage.load() }

// note keeps the first recording error. Under the recorder's Escalate
// policy such an error must end the run; under Drop it never happens.
func (r *Run) note(err error) {
	if err != nil {
		first := err // on the heap only when there is an error
		r.trace.failed.CompareAndSwap(nil, &first)
	}
}

// Failure returns the recording error that must end the run, if any:
// under the recorder's Escalate policy, the first failed write.
func (r *Run) Failure() error {
	if r.cfg.Recorder == nil {
		return nil // only a recording fails
	}
	return r.failure()
}

// failure is Failure for a run with a Recorder. It is kept apart so that
// Failure, on the path of every hook, inlines.
func (r *Run) failure() error {
	if p := r.trace.failed.Load(); p != nil {
		return *p
	}
	if err := r.cfg.Recorder.Err(); err != nil {
		r.note(err)
		return err
	}
	return nil
}

// recordInput records the system and user messages of the run's input,
// skipping what Lookout injected. A run that continues a conversation is
// given the turns before it too; their user messages were recorded by the
// runs that made them, so only the user messages after the last reply or
// tool result are recorded, with the system messages that open the input.
// Only the first call of a run records.
func (r *Run) recordInput(ctx context.Context, msgs []*schema.Message) {
	if !r.trace.input.CompareAndSwap(false, true) {
		return
	}
	since := turnStart(msgs)
	opening := true // still in the system messages that open the input
	for i, m := range msgs {
		if m == nil || isInjected(m) {
			continue
		}
		opening = opening && m.Role == schema.System
		if (i >= since || opening) && r.ownInput(m) {
			r.note(r.trace.rec.Message(ctx, m))
		}
	}
}

// turnStart returns where the last turn of msgs starts: after the last
// reply or tool result, or at 0.
func turnStart(msgs []*schema.Message) int {
	since := 0
	for i, m := range msgs {
		if m != nil && (m.Role == schema.Assistant || m.Role == schema.Tool) {
			since = i + 1
		}
	}
	return since
}

// isInjected reports whether Lookout injected m.
func isInjected(m *schema.Message) bool {
	_, injected := lookout.Injected(m)
	return injected
}

// ownInput reports whether input message m is the run's own to record: a
// system or user message, except that a segment of a query that no tool
// call started (a transfer target, a workflow's agent) records only its
// system messages. Its user messages are the query's, recorded by the
// root, or the runtime's rewriting of earlier segments ("For context:
// ..."), not a user's.
func (r *Run) ownInput(m *schema.Message) bool {
	switch m.Role {
	case schema.System:
		return true
	case schema.User:
		return r.parent == nil || r.callID != ""
	default:
		return false
	}
}

// RecordInput records the query's messages as the run's input, for a run
// whose own model calls do not see them: the root of a supervisor or a
// workflow, whose agents run as its children. Only the first call of a
// run records, here or in BeforeModel.
func (r *Run) RecordInput(ctx context.Context, msgs []*schema.Message) {
	if !r.setupDone.Load() {
		r.Begin(ctx, nil)
	}
	if r.trace.rec != nil && !r.trace.input.Load() {
		r.recordInput(ctx, msgs)
	}
}

// recordAssessment records a new assessment block.
func (r *Run) recordAssessment(ctx context.Context, a *observer.CurrentAssessment) {
	if r.trace.rec == nil || a == nil {
		return
	}
	var notes []recorder.ObserverNote
	if n := len(a.Assessments); n <= len(notesOfFew{}) {
		notes = r.l.notes.Zero()[:n:n]
	} else {
		notes = make([]recorder.ObserverNote, n)
	}
	for i, x := range a.Assessments {
		notes[i] = recorder.ObserverNote{Name: x.Observer, Severity: x.Severity.String()}
	}
	r.note(r.trace.rec.Assessment(ctx, recorder.AssessmentRecord{
		Markdown: r.render(a), AfterCallIndex: int(a.CallIndex), Observers: notes,
	}))
}

// notesOfFew is room for the observer notes of an assessment record with
// few observers, and efficacyBody for an efficacy record's body: both are
// taken from slabs shared by the Lookout's runs, several to an allocation,
// as are the efficacy records themselves.
type (
	notesOfFew   [4]recorder.ObserverNote
	efficacyBody [256]byte
)

// recordExceeded records a budget stop or refusal.
func (r *Run) recordExceeded(ctx context.Context, err error) {
	var ex *budget.ExceededError
	if r.trace.rec == nil || !errors.As(err, &ex) {
		return
	}
	// A refusal on a wrap-up turn is recorded when it happens, and comes
	// back as the error that ends the run: one event, one record.
	if r.trace.exceeded.Swap(ex) == ex {
		return
	}
	r.note(r.trace.rec.Budget(ctx, recorder.BudgetRecord{
		Event: recorder.BudgetExceeded, Resource: string(ex.Resource), Used: ex.Used, Limit: ex.Limit,
	}))
}

// End records how the run ended, once, and releases its deadline. A nil
// err means it completed. A root run first ends its sub-agent runs still
// open, so its run_ended is its recording's last record. Adapters call
// End before the caller can see that the run is over, so a program that
// closes its Recorder right after a run loses nothing.
func (r *Run) End(ctx context.Context, err error) {
	if !r.trace.ended.CompareAndSwap(false, true) {
		return
	}
	if !r.held {
		defer r.Release()
	}
	if r.parent != nil {
		defer r.family.stopped(r)
	}
	// The records are written whatever ctx says. The waits of a root's
	// end give way to the caller's cancellation (wait nil), not to the
	// budget's deadline.
	wait := ctx
	if ctx.Err() != nil {
		byBudget := errors.As(context.Cause(ctx), new(*budget.ExceededError))
		ctx, wait = context.WithoutCancel(ctx), nil
		if byBudget {
			wait = ctx
		}
	}
	// A streamed reply the runtime stopped reading is still being read to
	// its end, to charge it: its records come before the run's end.
	r.streams.wait(ctx, streamWait)
	if r.parent == nil {
		// The model calls in flight are charged and recorded before the
		// query's end.
		if r.cfg.EndWait > 0 && wait != nil {
			r.family.attempts.wait(wait, r.cfg.EndWait)
		}
	}
	if !r.setupDone.Load() {
		// A run that ended before its first hook is recorded from here.
		r.Begin(ctx, nil)
	}
	if r.trace.rec == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			r.fault(ctx, "recording the end of a run", p)
		}
	}()
	if r.parent == nil && !r.held {
		// Every sub-agent run ends before the root's own run_ended, its
		// recording's last record.
		r.EndChildren(ctx, err)
	}
	for _, c := range r.trace.open.close() {
		r.note(r.trace.rec.ToolEnded(ctx, recorder.ToolEnded{CallID: c.id, Name: c.name, IsError: true, Error: errAbandoned.Error()}))
	}
	end := r.ending(err)
	r.note(r.trace.rec.End(ctx, end))
	r.family.ended(r)
	if r.parent == nil && r.cfg.EndWait > 0 && wait != nil {
		r.flush(wait)
	}
}

// flush waits, up to Config.EndWait or until ctx ends, for the Recorder
// to hand what is queued to the sink and flush it.
func (r *Run) flush(ctx context.Context) {
	if err := r.cfg.Recorder.Flush(&endwait.Context{Context: ctx, Within: r.cfg.EndWait}); err != nil {
		r.cfg.OnError(ctx, fmt.Errorf("lookout: the records of the run's end did not reach the sink: %w", err))
	}
}

// ending is the run_ended record of a run that ended with err (nil: it
// completed): its outcome, stop reason and usage.
func (r *Run) ending(err error) recorder.RunEnded {
	end := recorder.RunEnded{Outcome: recorder.OutcomeCompleted, Usage: r.trace.usage.load()}
	if err != nil {
		end.Error = errorText(err)
		end.Outcome, end.StopReason = failedEnd(err)
		return end
	}
	switch h := r.handover.Load(); {
	case h != nil:
		end.StopReason = "handed over: " + *h
	case r.WrappingUp():
		end.StopReason = "wrapped up near the budget"
	default:
		end.StopReason = "final answer"
	}
	return end
}

// failedEnd returns the outcome and stop reason of a run that ended with
// err.
func failedEnd(err error) (recorder.Outcome, string) {
	var ex *budget.ExceededError
	switch {
	case errors.As(err, &ex):
		return recorder.OutcomeBudgetExceeded, string(ex.Resource) + " budget exceeded"
	case errors.Is(err, lookout.ErrRepeatRefused):
		return recorder.OutcomeError, "stuck in a loop: a tool called on the wrap-up turn"
	case errors.Is(err, context.Canceled):
		return recorder.OutcomeCancelled, "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		// A deadline of the caller's, not the budget's, which ends the
		// run with the budget error.
		return recorder.OutcomeCancelled, "deadline"
	default:
		return recorder.OutcomeError, "error"
	}
}

// ExpectCalls says that the model's reply asks for n tool calls that the
// adapter's tool wrappers will see; see EndAfterCalls.
func (r *Run) ExpectCalls(n int) {
	if r.trace.rec != nil {
		r.trace.expected.Store(int64(n))
	}
}

// EndAfterCalls records how the run ended, as End does, once the calls of
// the model's last reply (see ExpectCalls) are recorded. A tool call that
// ends the run with an error does so while the calls made beside it may
// still run, or not have started; Eino waits for them, and their records
// come before run_ended, the run's last. The first error is the one
// recorded.
func (r *Run) EndAfterCalls(ctx context.Context, err error) {
	if r.trace.rec == nil {
		return
	}
	r.trace.endErr.CompareAndSwap(nil, &err)
	if r.trace.inflight.Load() == 0 && r.trace.expected.Load() == 0 {
		r.End(ctx, *r.trace.endErr.Load())
	}
}

// callArrived counts a call being admitted in inflight, and no longer in
// expected. inflight goes up first, so that the two are never both zero
// while the call's records are to come.
func (r *Run) callArrived() {
	r.trace.inflight.Add(1)
	for {
		n := r.trace.expected.Load()
		if n <= 0 || r.trace.expected.CompareAndSwap(n, n-1) {
			return
		}
	}
}

// callDone is called once the records of a call counted in inflight are
// written; the last call to finish records an end EndAfterCalls left.
func (r *Run) callDone(ctx context.Context) {
	if r.trace.inflight.Add(-1) == 0 && r.trace.expected.Load() == 0 {
		if p := r.trace.endErr.Load(); p != nil {
			r.End(ctx, *p)
		}
	}
}

// errorText returns err's text, or says that producing it panicked: the
// run's end is recorded from places where a panic has no one to catch it.
func errorText(err error) (s string) {
	defer func() {
		if p := recover(); p != nil {
			s = fmt.Sprintf("%T (its Error method panicked: %v)", err, p)
		}
	}()
	return err.Error()
}

// recordEfficacy writes how the agent reacted to an assessment, as an
// extension record the analytics read.
func (r *Run) recordEfficacy(ctx context.Context, ev observer.EfficacyEvent) {
	if r.trace.rec == nil {
		return
	}
	if base, ok := r.efficacyBase()[ev.Observer]; ok {
		ev.Counts = observer.EfficacyCounts{
			Shown:         ev.Counts.Shown - base.Shown,
			ChangedCourse: ev.Counts.ChangedCourse - base.ChangedCourse,
			WrappedUp:     ev.Counts.WrappedUp - base.WrappedUp,
			CarriedOn:     ev.Counts.CarriedOn - base.CarriedOn,
		}
	}
	body := r.l.bodies.Zero()[:0]
	body, nameEnd, err := appendEfficacy(body, &ev)
	if err != nil {
		r.cfg.OnError(ctx, err)
		return
	}
	// The body is valid JSON by construction, and its only text that
	// code did not write is the observer's name: the recorder neither
	// checks it again, as Extension would, nor scans more than the name
	// for secrets.
	ext := r.l.extensions.Zero()
	ext.Name, ext.Body = efficacyExtension, body
	r.note(recordhook.EmitExtension(ctx, r.trace.rec, ext, len(efficacyStart), nameEnd))
}

// efficacyStart is what an efficacy record's body starts with, before the
// observer's name.
const efficacyStart = `{"observer":`

// appendEfficacy appends ev's JSON to b, which must be empty, as
// encoding/json writes it, without its reflection: one event is recorded
// after most tool calls when observers speak often. It also returns where
// the observer's name, the JSON string after efficacyStart, ends.
func appendEfficacy(b []byte, ev *observer.EfficacyEvent) (_ []byte, nameEnd int, _ error) {
	if ev.Severity < observer.Info || ev.Severity > observer.Warning {
		return nil, 0, fmt.Errorf("lookout: efficacy event of unknown severity %d", int(ev.Severity))
	}
	if ev.Reaction < 0 || ev.Reaction > observer.CarriedOn {
		return nil, 0, fmt.Errorf("lookout: efficacy event of unknown reaction %d", int(ev.Reaction))
	}
	// The names of severities and reactions are lower-case words and
	// underscores, which need no escape.
	b = append(b, efficacyStart...)
	b = appendJSONString(b, ev.Observer)
	nameEnd = len(b)
	b = append(b, `,"severity":"`...)
	b = append(b, ev.Severity.String()...)
	b = append(b, `","assessment_call_index":`...)
	b = strconv.AppendInt(b, ev.AssessmentCallIndex, 10)
	b = append(b, `,"reaction":"`...)
	b = append(b, ev.Reaction.String()...)
	b = append(b, '"')
	if ev.CallIndex != 0 {
		b = append(b, `,"call_index":`...)
		b = strconv.AppendInt(b, ev.CallIndex, 10)
	}
	c := &ev.Counts
	b = append(b, `,"counts":{"shown":`...)
	b = strconv.AppendInt(b, c.Shown, 10)
	b = append(b, `,"changed_course":`...)
	b = strconv.AppendInt(b, c.ChangedCourse, 10)
	b = append(b, `,"wrapped_up":`...)
	b = strconv.AppendInt(b, c.WrappedUp, 10)
	b = append(b, `,"carried_on":`...)
	b = strconv.AppendInt(b, c.CarriedOn, 10)
	return append(b, "}}"...), nameEnd, nil
}

// appendJSONString appends s as a JSON string, as encoding/json writes
// it: a string of printable ASCII that needs no escape is copied, and any
// other goes through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// Ended reports whether the run has ended.
func (r *Run) Ended() bool { return r.trace.ended.Load() }
