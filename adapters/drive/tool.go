package drive

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/recorder"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// Call is one tool call in flight, from [Run.Admit] to its end. The
// zero Call stands for a call Lookout does not observe: its methods
// pass the tool's outcome through and record nothing.
type Call struct {
	run     *Run
	name    string
	id      string
	args    string
	started time.Time
	// tracked says the call is counted in the run's inflight until its
	// records are written; see Run.EndAfterCalls.
	tracked bool
	// control says the call is of a control tool, one the run hands over
	// with when it succeeds.
	control bool
	parts   []recorder.Part // the result's media; see SetResultMedia
}

// Admit admits a tool call about to run. When the budget does not allow
// it, refusal is the tool message to give the model instead, and the call
// must not run. A recording failure that must end the run, or the budget
// error that ends a run whose model handed over on its last turn (see
// Config.HandoverTools), is returned as an error; the call must not run
// then either.
//
// Should Lookout's own work panic, the panic goes to Config.OnError and
// the call runs unobserved: Admit returns the zero Call.
func (r *Run) Admit(ctx context.Context, name, callID, args string) (c Call, refusal string, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.fault(ctx, "admitting tool call "+callID, p)
			c, refusal, err = Call{}, "", nil
		}
	}()
	refusal, err = r.admit(ctx, &c, name, callID, args)
	return c, refusal, err
}

// admit is Admit without the guard against panics. It fills in c, which
// is zero, for a call that may run.
func (r *Run) admit(ctx context.Context, c *Call, name, callID, args string) (refusal string, err error) {
	if err := r.Failure(); err != nil {
		return "", err
	}
	if !r.setupDone.Load() {
		r.Begin(ctx, nil)
	}
	now := r.cfg.Now()
	// From here on the call's records are to come: an end of the run
	// recorded meanwhile waits for them.
	tracked := r.trace.rec != nil
	if tracked {
		r.callArrived()
	}
	control := r.control(name)
	switch {
	case !control:
		if refusal := r.charge(ctx, name, callID, args, now, tracked); refusal != "" {
			return refusal, r.Failure()
		}
	case !r.Control(name):
		// A handover on the last turn after a limit was spent: the work
		// is not handed on, and the run ends with the budget's error.
		// (A refusal message would end it too, on a runtime that ends a
		// turn after a handover, but silently.)
		ex := r.final.Load()
		r.refuse(ctx, name, callID, ex, tracked)
		return "", ex
	}
	// A control tool steers the run: it is neither refused nor charged.
	c.run, c.name, c.id, c.args, c.started, c.tracked, c.control = r, name, callID, args, now, tracked, control
	c.recordStart(ctx)
	return "", nil
}

// charge admits a call of a tool other than a control tool: the observers
// may refuse a repeat, then the lease and the budget may refuse it;
// otherwise the call is counted. It returns the refusal for the model, or
// "" when the call may run.
func (r *Run) charge(ctx context.Context, name, callID, args string, now time.Time, tracked bool) string {
	if r.stuck.Load() == stuckTurnGiven {
		return r.refuseWithheld(ctx, name, callID, tracked)
	}
	if refusal, by := r.pipeline.Admit(ctx, name, args); refusal != "" {
		return r.refuseRepeat(ctx, name, callID, refusal, by, tracked)
	}
	if r.repeatRefusals.Load() != 0 {
		r.repeatRefusals.Store(0) // the agent moved on: a later loop is another
	}
	if r.overLease() {
		return r.refuseOverLease(ctx, name, callID, tracked)
	}
	if err := r.tracker.ReserveToolCallAt(now, r.l.beforeTool...); err != nil {
		return r.refuse(ctx, name, callID, err, tracked)
	}
	if r.lease != nil {
		r.spent.toolCalls.Add(1)
	}
	return ""
}

// overLease reports whether a run with a lease has made as many tool
// calls as the lease allows.
func (r *Run) overLease() bool {
	return r.lease != nil && r.lease.MaxToolCalls > 0 && r.spent.toolCalls.Load() >= r.lease.MaxToolCalls
}

// refuse records a call the budget refused with err and returns the
// refusal for the model.
func (r *Run) refuse(ctx context.Context, name, callID string, err error, tracked bool) string {
	r.recordExceeded(ctx, err)
	var ex *budget.ExceededError
	if r.wrapUp.Load() && errors.As(err, &ex) {
		r.ignored.CompareAndSwap(nil, ex)
	}
	refusal := refusal(err)
	r.recordRefused(ctx, name, callID, refusal, err)
	if tracked {
		r.callDone(ctx)
	}
	return refusal
}

// refuseOverLease records a call over the run's lease of tool calls and
// returns the refusal for the model. It is not a budget stop: the agent
// is told to hand back, and the query goes on.
func (r *Run) refuseOverLease(ctx context.Context, name, callID string, tracked bool) string {
	refusal := "Tool call refused: this agent's lease of " + observer.FormatCount(r.lease.MaxToolCalls) +
		" tool calls is spent. Hand back or finish with what you have."
	r.recordRefused(ctx, name, callID, refusal, errLeaseSpent)
	if tracked {
		r.callDone(ctx)
	}
	return refusal
}

// refuseRepeat records a call an observer refused, as the repeat of a
// stuck loop, and returns the refusal for the model. A run whose model
// makes a refused call again, before any call of its runs, is stuck: its
// next model call is a wrap-up turn.
func (r *Run) refuseRepeat(ctx context.Context, name, callID, refusal, by string, tracked bool) string {
	r.recordRefused(ctx, name, callID, refusal, fmt.Errorf("%w: %s", lookout.ErrRepeatRefused, by))
	if r.repeatRefusals.Add(1) > 1 {
		r.stuck.CompareAndSwap(notStuck, stuckLooping)
	}
	if tracked {
		r.callDone(ctx)
	}
	return refusal
}

// The stuck states of a run.
const (
	notStuck       int32 = iota
	stuckLooping         // the model made a refused call again
	stuckTurnGiven       // and was given a wrap-up turn without tools
)

// stuckStop is the error that ends a stuck run.
type stuckStop struct{ err error }

// refuseWithheld refuses a tool call the model made on its stuck wrap-up
// turn, whose tools were withheld, and ends the run at its next model
// call with an error that satisfies errors.Is(err, lookout.ErrRepeatRefused).
func (r *Run) refuseWithheld(ctx context.Context, name, callID string, tracked bool) string {
	err := fmt.Errorf("%w: %s called on the wrap-up turn of a stuck loop, whose tools were withheld", lookout.ErrRepeatRefused, name)
	r.stuckEnd.CompareAndSwap(nil, &stuckStop{err})
	const refusal = "Tool call refused: tools are withheld from this turn because you were stuck in a loop. Write your final answer now."
	r.recordRefused(ctx, name, callID, refusal, err)
	if tracked {
		r.callDone(ctx)
	}
	return refusal
}

// errLeaseSpent is the error a call over its run's lease is recorded with.
var errLeaseSpent = errors.New("the agent's lease of tool calls is spent")

// fault reports p, the value of a panic in Lookout's own work while
// doing what, to Config.OnError.
func (r *Run) fault(ctx context.Context, what string, p any) {
	r.cfg.OnError(ctx, panicError(what, p))
}

// panicError describes a panic in Lookout's own work.
func panicError(what string, p any) error {
	return fmt.Errorf("lookout: %s panicked: %v", what, p)
}

// refusal is the tool message for a call the budget did not allow.
func refusal(err error) string {
	var ex *budget.ExceededError
	if errors.As(err, &ex) && ex.Resource == budget.ToolCalls {
		return "Tool call refused: the tool-call budget is spent (" + err.Error() + "). " +
			"Do not call more tools; finish with what you have."
	}
	return "Tool call refused: " + err.Error() + ". Finish with what you have."
}

// EndPanicked records the call as failed with [lookout.ErrToolPanicked]. Adapters
// call it from a deferred function while the tool's panic unwinds,
// without recovering it: the panic goes on to the runtime as it would
// without Lookout, and the call is not left started and never ended.
func (c *Call) EndPanicked(ctx context.Context) {
	_, _ = c.End(ctx, "", lookout.ErrToolPanicked)
}

// End records the call's outcome and runs the observers. It returns what
// to hand back to the runtime: a tool error becomes the message
// "Error: ..." and a nil error, unless ToolErrors says abort or the error
// is the budget's. A call that ends the run this way should be followed
// by [Run.EndAfterCalls]. Should Lookout's own work panic, the panic goes
// to Config.OnError and result and err pass through.
func (c *Call) End(ctx context.Context, result string, err error) (msg string, out error) {
	if c.run == nil {
		return result, err
	}
	defer func() {
		if p := recover(); p != nil {
			c.run.fault(ctx, "recording a tool call", p)
			msg, out = result, err
		}
	}()
	out = c.record(ctx, result, err, true)
	if out == nil && c.control {
		name := c.name // a copy, so that c does not escape
		c.run.handover.Store(&name)
	}
	return c.run.handBack(result, out)
}

// handBack returns what the runtime gets for a call that ended with
// result and out: the run's recording failure, which ends the run; the
// call's error, as a message unless it ends the run; or the result.
func (r *Run) handBack(result string, out error) (string, error) {
	if failure := r.Failure(); failure != nil {
		return result, failure
	}
	if out == nil {
		return result, nil
	}
	if !r.errorAsMessage(out) {
		return result, out
	}
	return errorMessage(out), nil
}

// errorAsMessage reports whether a call's error err, not nil, reaches the
// model as a message (see errorMessage) rather than ending the run.
func (r *Run) errorAsMessage(err error) bool {
	var ex *budget.ExceededError
	return r.cfg.ToolErrors != lookout.ToolErrorsAbort && !errors.As(err, &ex)
}

// errorMessage is the tool message the model reads for a call that failed
// with err.
func errorMessage(err error) string { return "Error: " + err.Error() }

// EndStream records the end of a call whose tool handed back a stream,
// read to its end or to its first error: result is the start of the
// output, err the stream's error. It returns err, or the budget's error
// when the deadline cut the stream short. Part of the output has already
// reached the model, so an error is not turned into a message.
func (c *Call) EndStream(ctx context.Context, result string, err error) (out error) {
	if c.run == nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			c.run.fault(ctx, "recording a tool call", p)
			out = err
		}
	}()
	return c.record(ctx, result, err, false)
}

// record writes the call to the session and runs the observers. It
// returns the call's error, replaced by the run's budget error when the
// deadline cut the call short. asMessage says that an error the model is
// to read as a message (see errorAsMessage) is recorded as that message,
// the result the model gets.
func (c *Call) record(ctx context.Context, result string, err error, asMessage bool) (out error) {
	r := c.run
	if c.tracked {
		defer r.callDone(ctx)
	}
	out = err
	if out != nil {
		out = budgetDeadline(ctx, out)
	}
	rec := c.toolCallRecord(result, out)
	if r.trace.rec == nil {
		r.pipeline.AfterToolCall(ctx, rec)
		return out
	}
	read := result
	if asMessage && out != nil && r.errorAsMessage(out) {
		read = errorMessage(out)
	}
	c.writeInOrder(ctx, rec, read, out)
	return out
}

// toolCallRecord is the session's record of the call, ending now with
// result and out.
func (c *Call) toolCallRecord(result string, out error) (rec observer.ToolCallRecord) {
	r := c.run
	end := r.cfg.Now()
	// Set field by field in the result, which a composite literal would
	// be built beside and copied into.
	rec.CallID = c.id
	rec.ToolName = c.name
	rec.ParamsSummary = summarize(c.args, 120)
	rec.Arguments = truncate(c.args, r.cfg.MaxRecordBytes)
	rec.Result = truncate(result, r.cfg.MaxRecordBytes)
	rec.Success = out == nil
	rec.Timestamp = end
	rec.Duration = end.Sub(c.started)
	if out != nil {
		rec.ErrorMessage = truncate(out.Error(), r.cfg.MaxRecordBytes)
	}
	return rec
}

// writeInOrder runs the pipeline on rec and writes the call's tool_ended
// and assessment records, one call at a time: parallel calls then reach
// the recording in the order of their call indices, and the last
// assessment recorded is the current one. A sub-agent the call started
// and that is still open (it failed, so no hook ended it) is ended first.
func (c *Call) writeInOrder(ctx context.Context, rec observer.ToolCallRecord, result string, err error) {
	r := c.run
	r.family.endChildOf(ctx, r.trace.rec.ID(), c.id, err)
	r.trace.order.Lock()
	defer r.trace.order.Unlock()
	rec, current := r.pipeline.AfterToolCall(ctx, rec)
	c.writeEnd(ctx, &rec, result, err)
	r.recordAssessment(ctx, current)
}

// Pause handles a call an interrupt paused. The runtime runs it again
// when the run resumes, and admits it again there, so the tool call it
// reserved is given back: a call that a human was asked to approve must
// not be refused on the resume for having asked. Its tool_started,
// written already, is not written again (see State).
func (c *Call) Pause(ctx context.Context) {
	if c.run == nil {
		return
	}
	r := c.run
	if c.tracked {
		defer r.callDone(ctx)
	}
	session.ValueOf[budget.Budget](r.store).Change(func(b *budget.Budget, _ bool) {
		b.ToolCalls = max(b.ToolCalls-1, 0)
	})
	if r.trace.rec != nil {
		r.trace.open.remove(c.id)
		r.pause(c.id)
	}
}

// HandOff says the call's tool has handed back a stream, whose end is
// recorded with EndStream when the stream is read to its end. An end of
// the run recorded meanwhile (see Run.EndAfterCalls) does not wait for
// it: a runtime may abandon the streams of a tool node that fails, and a
// stream nobody reads never ends.
func (c *Call) HandOff(ctx context.Context) {
	if c.tracked {
		c.tracked = false
		c.run.callDone(ctx)
	}
}

// MaxRecordBytes returns how much of a call's output the observers keep,
// which is all a streaming adapter needs to collect; 0 for the zero
// Call.
func (c *Call) MaxRecordBytes() int {
	if c.run == nil {
		return 0
	}
	return c.run.cfg.MaxRecordBytes
}

// truncate cuts s to at most n bytes on a rune boundary. A cut string is
// a copy: the call log keeps thousands of calls, and a slice of a tool's
// output would keep all of that output in memory.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.Clone(s[:runeCut(s, n)])
}

// runeCut returns the largest length of at most n bytes, n < len(s), that
// cuts s on a rune boundary.
func runeCut(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// summarize abbreviates arguments for evidence lines: white space folded,
// cut to n bytes with an ellipsis.
func summarize(args string, n int) string {
	s := args
	if needsFolding(s) {
		s = strings.Join(strings.Fields(s), " ")
	}
	if len(s) <= n {
		return s
	}
	return s[:runeCut(s, max(n-3, 0))] + "..."
}

// needsFolding reports whether s has white space other than single spaces
// between words, which summarize folds. Compact JSON, the usual case, has
// none, and is then used as it is.
func needsFolding(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case foldedSpace[c]:
			return true
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' '):
			return true
		}
	}
	return false
}

// foldedSpace marks the bytes summarize always folds: white space other
// than the space, and every byte of a non-ASCII character, which may be
// white space.
var foldedSpace = func() (t [256]bool) {
	for _, c := range "\t\n\r\v\f" {
		t[c] = true
	}
	for c := utf8.RuneSelf; c < len(t); c++ {
		t[c] = true
	}
	return t
}()
