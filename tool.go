package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cloudwego/eino/compose"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// Call is one tool call in flight.
type Call struct {
	run     *Run
	name    string
	id      string
	args    string
	started time.Time
	// tracked says the call is counted in the run's inflight until its
	// records are written; see Run.EndAfterCalls.
	tracked bool
}

// Admit admits a tool call. When the budget does not allow it, it returns
// nil and a refusal for the model; the call must then not run. A recording
// failure that must end the run is returned as an error. Should Lookout's
// own work panic, the call runs unobserved (see AdmitValue).
func (r *Run) Admit(ctx context.Context, name, callID, args string) (*Call, string, error) {
	c, ok, refusal, err := r.AdmitValue(ctx, name, callID, args)
	if !ok {
		return nil, refusal, err
	}
	return &c, "", err
}

// AdmitValue is Admit returning the call by value, for a caller that ends
// the call before it returns, so the call need not be allocated. ok is
// false when the call must not run; refusal then says why, for the model.
//
// Should Lookout's own work panic, the panic goes to Cfg.OnError and the
// call runs unobserved: ok is true and c is the zero Call, whose End and
// Record pass the tool's outcome through unchanged.
func (r *Run) AdmitValue(ctx context.Context, name, callID, args string) (c Call, ok bool, refusal string, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.fault(ctx, "admitting tool call "+callID, p)
			c, ok, refusal, err = Call{}, true, "", nil
		}
	}()
	return r.admit(ctx, name, callID, args)
}

// admit is AdmitValue without the guard against panics.
func (r *Run) admit(ctx context.Context, name, callID, args string) (c Call, ok bool, refusal string, err error) {
	if err := r.Failure(); err != nil {
		return Call{}, false, "", err
	}
	now := r.Cfg.Now()
	// From here on the call's records are to come: an end of the run
	// recorded meanwhile waits for them.
	tracked := r.trace.rec != nil
	if tracked {
		r.callArrived()
	}
	if err := r.Tracker.ReserveToolCallAt(now, r.beforeTool...); err != nil {
		r.RecordExceeded(ctx, err)
		var ex *budget.ExceededError
		if r.wrapUp.Load() && errors.As(err, &ex) {
			r.ignored.CompareAndSwap(nil, ex)
		}
		refusal := Refusal(err)
		r.recordRefused(ctx, name, callID, refusal, err)
		if tracked {
			r.callDone(ctx)
		}
		return Call{}, false, refusal, r.Failure()
	}
	c = Call{run: r, name: name, id: callID, args: args, started: now, tracked: tracked}
	c.recordStart(ctx)
	if err := r.Failure(); err != nil {
		// The call will not run, nor be recorded.
		if tracked {
			c.tracked = false
			r.callDone(ctx)
		}
		return c, true, "", err
	}
	return c, true, "", nil
}

// The stages of a call in Invoke, and of a model call in ChargingModel,
// which tell a panic in Lookout's own work from one in the tool's or the
// model's.
const (
	stageBefore = iota
	stageRunning
	stageAfter
)

// Invoke runs one call of a tool that answers at once: it admits the
// call, runs it with run unless the budget refuses it, and ends it. It
// returns what End returns, or, for a refused call, the refusal and a nil
// error; a recording failure that must end the run is returned as an
// error, as from AdmitValue.
//
// It does what AdmitValue, run and End do, with one guard where those
// have three (End guards Record too). Should Lookout's own work panic
// before the call, the call runs unobserved; after it, the tool's
// outcome passes through. Either way the panic goes to Cfg.OnError. A
// panic in run is the tool's and goes on.
func (r *Run) Invoke(ctx context.Context, name, callID, args string, run func() (string, error)) (out string, err error) {
	stage := stageBefore
	var result string
	var runErr error
	var c Call
	defer func() {
		if stage == stageRunning {
			// run panicked: the panic is the tool's and goes on, once
			// the call is recorded as failed.
			c.EndPanicked(ctx)
			return
		}
		p := recover()
		if p == nil {
			return
		}
		if stage == stageBefore {
			r.fault(ctx, "admitting tool call "+callID, p)
			stage = stageRunning
			out, err = run()
			return
		}
		r.fault(ctx, "recording a tool call", p)
		out, err = result, runErr
	}()
	c, ok, refusal, err := r.admit(ctx, name, callID, args)
	if !ok || err != nil {
		return refusal, err
	}
	stage = stageRunning
	result, runErr = run()
	stage = stageAfter
	return c.end(ctx, result, runErr)
}

// fault reports p, the value of a panic in Lookout's own work while
// doing what, to Cfg.OnError.
func (r *Run) fault(ctx context.Context, what string, p any) {
	r.Cfg.OnError(ctx, fmt.Errorf("lookout: %s panicked: %v", what, p))
}

// Refusal is the tool message for a call the budget did not allow.
func Refusal(err error) string {
	var ex *budget.ExceededError
	if errors.As(err, &ex) && ex.Resource == budget.ToolCalls {
		return "Tool call refused: the tool-call budget is spent (" + err.Error() + "). " +
			"Do not call more tools; finish with what you have."
	}
	return "Tool call refused: " + err.Error() + ". Finish with what you have."
}

// ErrToolPanicked is the error a call is recorded with when its tool
// panicked.
var ErrToolPanicked = errors.New("the tool panicked")

// EndPanicked records the call as failed with [ErrToolPanicked]. Adapters
// call it from a deferred function while the tool's panic unwinds,
// without recovering it: the panic goes on to Eino as it would without
// Lookout, and the call is not left started and never ended.
func (c *Call) EndPanicked(ctx context.Context) {
	_, _ = c.End(ctx, "", ErrToolPanicked)
}

// Guarded runs the tool with run and returns what it returns. Should run
// panic, the call is recorded as failed (see [Call.EndPanicked]) and the
// panic goes on.
func Guarded[O any](ctx context.Context, c *Call, run func() (O, error)) (O, error) {
	done := false
	defer func() {
		if !done {
			c.EndPanicked(ctx)
		}
	}()
	out, err := run()
	done = true
	return out, err
}

// End records the call's outcome and runs the observers. It returns what
// to hand back to the runtime: a tool error becomes the message
// "Error: ..." and a nil error, unless ToolErrors says abort, the error is
// the budget's, or the error is an interrupt. The zero Call, and a call
// whose recording panicked (see Record), pass result and err through.
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
	return c.end(ctx, result, err)
}

// end is End without the guard against panics.
func (c *Call) end(ctx context.Context, result string, err error) (msg string, out error) {
	if c.run == nil {
		return result, err
	}
	recorded, rerr := c.record(ctx, result, err)
	if failure := c.run.Failure(); failure != nil {
		return result, failure
	}
	if rerr == nil {
		return result, nil
	}
	var ex *budget.ExceededError
	if !recorded || c.run.Cfg.ToolErrors == ToolErrorsAbort || errors.As(rerr, &ex) {
		return result, rerr
	}
	return "Error: " + rerr.Error(), nil
}

// Record writes the call to the session and runs the observers. It returns
// whether the call was recorded, and its error, replaced by the run's
// budget error when the deadline cut the call short. An interrupt is
// control flow, not an outcome, and is not recorded: Eino runs the call
// again when the run resumes, and it counts as one call, admitted on the
// resume (see Call.interrupted). The zero Call records nothing; should
// Lookout's own work panic, the panic goes to Cfg.OnError and Record
// returns false and err.
func (c *Call) Record(ctx context.Context, result string, err error) (recorded bool, out error) {
	if c.run == nil {
		return false, err
	}
	defer func() {
		if p := recover(); p != nil {
			c.run.fault(ctx, "recording a tool call", p)
			recorded, out = false, err
		}
	}()
	return c.record(ctx, result, err)
}

// record is Record without the guard against panics.
func (c *Call) record(ctx context.Context, result string, err error) (recorded bool, out error) {
	r := c.run
	if c.tracked {
		defer r.callDone(ctx)
	}
	out = err
	if out != nil {
		if _, interrupt := compose.IsInterruptRerunError(out); interrupt {
			c.interrupted()
			return false, out
		}
		out = budgetDeadline(ctx, out)
	}
	end := r.Cfg.Now()
	rec := observer.ToolCallRecord{
		CallID:        c.id,
		ToolName:      c.name,
		ParamsSummary: Summarize(c.args, 120),
		Arguments:     Truncate(c.args, r.Cfg.MaxRecordBytes),
		Result:        Truncate(result, r.Cfg.MaxRecordBytes),
		Success:       out == nil,
		Timestamp:     end,
		Duration:      end.Sub(c.started),
	}
	if out != nil {
		rec.ErrorMessage = Truncate(out.Error(), r.Cfg.MaxRecordBytes)
	}
	if r.trace.rec == nil {
		r.Pipeline.AfterToolCall(ctx, rec)
	} else {
		c.writeInOrder(ctx, rec, result, out)
	}
	return true, out
}

// writeInOrder runs the pipeline on rec and writes the call's tool_ended
// and assessment records, one call at a time: parallel calls then reach
// the recording in the order of their call indices, and the last
// assessment recorded is the current one.
func (c *Call) writeInOrder(ctx context.Context, rec observer.ToolCallRecord, result string, err error) {
	r := c.run
	r.trace.order.Lock()
	defer r.trace.order.Unlock()
	rec, current := r.Pipeline.AfterToolCall(ctx, rec)
	c.writeEnd(ctx, &rec, result, err)
	r.RecordAssessment(ctx, current)
}

// interrupted handles a call an interrupt paused. Eino runs it again when
// the run resumes, and admits it again there, so the tool call it reserved
// is given back; a call that the human was asked to approve must not be
// refused on the resume for having asked. Its tool_started, written
// already, is not written again (see Run.PausedCalls).
func (c *Call) interrupted() {
	session.ValueOf[budget.Budget](c.run.Store).Change(func(b *budget.Budget, _ bool) {
		b.ToolCalls = max(b.ToolCalls-1, 0)
	})
	if c.run.trace.rec != nil {
		c.run.pause(c.id)
	}
}

// Truncate cuts s to at most n bytes on a rune boundary. A cut string is
// a copy: the call log keeps thousands of calls, and a slice of a tool's
// output would keep all of that output in memory.
func Truncate(s string, n int) string {
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

// Summarize abbreviates arguments for evidence lines: white space folded,
// cut to n bytes with an ellipsis.
func Summarize(args string, n int) string {
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
// between words, which Summarize folds. Compact JSON, the usual case, has
// none, and is then used as it is.
func needsFolding(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c >= utf8.RuneSelf:
			return true
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' '):
			return true
		}
	}
	return false
}
