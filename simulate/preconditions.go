package simulate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// eligible evaluates preconditions of every unfinished step and reports
// which steps may be selected. Custom checks run in parallel; a step whose
// step-satisfied preconditions already fail skips its custom ones.
func (ru *run) eligible(ctx context.Context, st Progress) ([]bool, error) {
	steps := ru.sc.steps()
	ok, checks := ru.stepPreconditions(steps, st)
	if len(checks) > 0 {
		passed, err := runChecks(ctx, checks, steps, st)
		if err != nil {
			return nil, err
		}
		for k, c := range checks {
			if !passed[k] {
				ok[c.step] = false
			}
		}
	}
	ru.updateStatuses(ok)
	return ok, nil
}

// check is a custom precondition of a step, by the step's index.
type check struct {
	step int
	name string
	fn   CheckFunc
}

// stepPreconditions reports which unfinished steps have every step
// precondition satisfied, and lists the custom checks of those steps.
func (ru *run) stepPreconditions(steps []Step, st Progress) ([]bool, []check) {
	ok := make([]bool, len(steps))
	var checks []check
	for i, s := range steps {
		if ru.steps[i].Status.finished() || !stepsSatisfied(s, st) {
			continue
		}
		ok[i] = true
		for _, p := range s.Preconditions {
			if p.Check != nil {
				checks = append(checks, check{step: i, name: p.Name, fn: p.Check})
			}
		}
	}
	return ok, checks
}

// stepsSatisfied reports whether every step a step waits for is
// satisfied.
func stepsSatisfied(s Step, st Progress) bool {
	for _, p := range s.Preconditions {
		if p.Step != "" && !st.Satisfied(p.Step) {
			return false
		}
	}
	return true
}

// runChecks runs the checks in parallel and reports which passed, or the
// errors they failed with, joined. The first check to fail cancels the
// others. Their context.Canceled errors are the runner's doing, not the
// caller's, and are left out so that errors.Is(err, context.Canceled)
// keeps meaning that the caller cancelled.
func runChecks(ctx context.Context, checks []check, steps []Step, st Progress) ([]bool, error) {
	results := make([]bool, len(checks))
	errs := make([]error, len(checks))
	cctx, cancel := context.WithCancelCause(ctx)
	var first atomic.Int64
	first.Store(-1)
	var wg sync.WaitGroup
	for k, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[k], errs[k] = safeCheck(cctx, c.fn, st)
			if errs[k] != nil && first.CompareAndSwap(-1, int64(k)) {
				cancel(errSiblingFailed)
			}
		}()
	}
	wg.Wait()
	cancel(nil)
	siblingsCancelled := ctx.Err() == nil && errors.Is(context.Cause(cctx), errSiblingFailed)
	return results, checkErrors(checks, steps, errs, int(first.Load()), siblingsCancelled)
}

// checkErrors joins the errors of the checks, each naming its step and
// precondition. When the first failure, the check at first, cancelled its
// siblings, their context.Canceled errors are left out.
func checkErrors(checks []check, steps []Step, errs []error, first int, siblingsCancelled bool) error {
	var all []error
	for k, c := range checks {
		if errs[k] != nil && (k == first || !siblingsCancelled || !errors.Is(errs[k], context.Canceled)) {
			all = append(all, fmt.Errorf("step %q precondition %q: %w", steps[c.step].ID, c.name, errs[k]))
		}
	}
	return errors.Join(all...)
}

// updateStatuses marks the steps that are neither finished nor in
// progress idle when they are eligible (ok) and blocked when not.
func (ru *run) updateStatuses(ok []bool) {
	for i := range ok {
		switch s := ru.steps[i].Status; {
		case s.finished() || s == StatusInProgress:
		case ok[i]:
			ru.setStatus(i, StatusIdle)
		default:
			ru.setStatus(i, StatusBlocked)
		}
	}
}

// errSiblingFailed is the cause with which the runner cancels the custom
// preconditions of a turn once one of them has failed.
var errSiblingFailed = errors.New("simulate: another precondition failed")
