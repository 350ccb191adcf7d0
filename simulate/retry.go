package simulate

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// Retry says how simulate retries the calls of its own models (the
// simulated user's, the ranker's and the judge's) when they fail with a
// transient error: HTTP 408, 425, 429 or 5xx, a timeout, a connection reset
// or refused, or a response cut short.
//
// Attempt n+1 waits a delay drawn from [d/2, d), where d is BaseDelay × 2ⁿ⁻¹
// capped at MaxDelay (exponential backoff with jitter). A call is not
// retried once its run's context has ended, nor when the wait would pass the
// context's deadline: a run's deadline bounds all of its retries.
//
// Zero values: MaxAttempts 0 means 4 (1 disables retries); BaseDelay 0
// means 500ms; MaxDelay 0 means 20s; Transient nil means IsTransient; Rand
// nil means math/rand/v2; Sleep nil waits on a timer, or until the context
// ends; Now nil means time.Now. Tests inject Rand, Sleep and Now so that no
// time passes.
//
// A Retry is not modified by its users and is safe for concurrent use when
// its functions are.
type Retry struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
	Transient   func(error) bool
	Rand        func() float64
	Sleep       func(ctx context.Context, d time.Duration) error
	Now         func() time.Time
}

// NoRetry makes every call once.
var NoRetry = &Retry{MaxAttempts: 1}

func (r *Retry) maxAttempts() int {
	if r == nil || r.MaxAttempts <= 0 {
		return 4
	}
	return r.MaxAttempts
}

// delay is the wait before retry n (1 for the first retry).
func (r *Retry) delay(n int) time.Duration {
	top := r.maxDelay()
	d := r.baseDelay()
	for i := 1; i < n && d < top; i++ {
		d *= 2
	}
	d = min(d, top)
	return d/2 + time.Duration(r.random()*float64(d/2))
}

func (r *Retry) baseDelay() time.Duration {
	if r == nil || r.BaseDelay <= 0 {
		return 500 * time.Millisecond
	}
	return r.BaseDelay
}

func (r *Retry) maxDelay() time.Duration {
	if r == nil || r.MaxDelay <= 0 {
		return 20 * time.Second
	}
	return r.MaxDelay
}

func (r *Retry) random() float64 {
	if r != nil && r.Rand != nil {
		return r.Rand()
	}
	return rand.Float64()
}

func (r *Retry) transient(err error) bool {
	if r != nil && r.Transient != nil {
		return r.Transient(err)
	}
	return IsTransient(err)
}

func (r *Retry) now() time.Time {
	if r != nil && r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Retry) sleep(ctx context.Context, d time.Duration) error {
	if r != nil && r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Do calls fn until it succeeds, fails with an error that is not transient,
// or runs out of attempts or time, and returns the attempts made with fn's
// last error. It stops waiting when ctx ends and returns the error fn last
// returned.
func (r *Retry) Do(ctx context.Context, fn func(ctx context.Context) error) (attempts int, err error) {
	for attempts = 1; ; attempts++ {
		err = fn(ctx)
		if r.final(ctx, err, attempts) {
			return attempts, err
		}
		d := r.delay(attempts)
		if !r.beforeDeadline(ctx, d) || r.sleep(ctx, d) != nil {
			return attempts, err
		}
	}
}

// final reports whether the attempt that returned err ends the retries: it
// succeeded, its context ended, err is not transient, or it was the last
// attempt allowed.
func (r *Retry) final(ctx context.Context, err error, attempts int) bool {
	return err == nil || ctx.Err() != nil || !r.transient(err) || attempts >= r.maxAttempts()
}

// beforeDeadline reports whether a wait of d from now ends before ctx's
// deadline, if it has one.
func (r *Retry) beforeDeadline(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || r.now().Add(d).Before(dl)
}

// IsTransient reports whether err is worth retrying: a provider's HTTP
// status 408, 425, 429 or 5xx (read from a StatusCode method, an
// HTTPStatusCode or StatusCode field, as the OpenAI clients have, or a
// "status code: N" in the message), a timeout (context.DeadlineExceeded
// included), a connection reset, refused or broken, or a response cut short
// (io.ErrUnexpectedEOF, or io.EOF from a request). A cancelled context is
// not transient.
func IsTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if code, ok := StatusCode(err); ok {
		return transientStatus(code)
	}
	return slices.ContainsFunc(transientKinds, func(is func(error) bool) bool { return is(err) })
}

// transientStatus reports whether an HTTP status is worth retrying: 408,
// 425, 429 or 5xx.
func transientStatus(code int) bool {
	return code == 408 || code == 425 || code == 429 || code >= 500 && code <= 599
}

// transientKinds are the tests, other than an HTTP status, by which
// IsTransient finds an error worth retrying.
var transientKinds = []func(error) bool{isTransientError, timedOut, temporary, transientText}

// transientErrors are the errors whose presence in a chain makes it
// transient: a timeout, a connection reset, refused, broken or aborted, or
// a response cut short.
var transientErrors = []error{
	context.DeadlineExceeded,
	syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.EPIPE, syscall.ECONNABORTED,
	io.ErrUnexpectedEOF,
}

// isTransientError reports whether err's chain holds one of
// transientErrors.
func isTransientError(err error) bool {
	return slices.ContainsFunc(transientErrors, func(t error) bool { return errors.Is(err, t) })
}

// timedOut reports whether err's chain holds a net.Error that timed out.
func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// temporary reports whether err's chain holds an error that says it is
// temporary.
func temporary(err error) bool {
	var ue interface{ Temporary() bool }
	return errors.As(err, &ue) && ue.Temporary()
}

// transientText reports whether err's message tells of a connection reset
// or a response cut short, as clients that keep no typed error write it.
func transientText(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "connection reset") || strings.HasSuffix(msg, ": EOF")
}

// statusInText finds an HTTP status in an error message, as clients that
// keep no typed error write it.
var statusInText = regexp.MustCompile(`status(?: code)?:? (\d{3})\b`)

// StatusCode returns the HTTP status that err carries: from the first error
// in its chain with a StatusCode() int method or an int field named
// HTTPStatusCode or StatusCode (the go-openai clients' errors have one),
// else from a "status code: N" in its message.
func StatusCode(err error) (int, bool) {
	for _, e := range errChain(err) {
		if s, ok := e.(interface{ StatusCode() int }); ok && s.StatusCode() > 0 {
			return s.StatusCode(), true
		}
		if code := statusField(e); code > 0 {
			return code, true
		}
	}
	if m := statusInText.FindStringSubmatch(err.Error()); m != nil {
		code, _ := strconv.Atoi(m[1])
		return code, true
	}
	return 0, false
}

// statusField reads an int HTTPStatusCode or StatusCode field of the
// struct that e is or points to, or returns 0.
func statusField(e error) int {
	v, ok := indirect(reflect.ValueOf(e))
	if !ok || v.Kind() != reflect.Struct {
		return 0
	}
	for _, name := range []string{"HTTPStatusCode", "StatusCode"} {
		if f := v.FieldByName(name); f.IsValid() && f.CanInt() {
			return int(f.Int())
		}
	}
	return 0
}

// indirect follows v through pointers and interfaces to the value they
// hold; it reports false when one of them is nil.
func indirect(v reflect.Value) (reflect.Value, bool) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return v, false
		}
		v = v.Elem()
	}
	return v, true
}

// errChain lists err and every error it wraps, depth first.
func errChain(err error) []error {
	var out []error
	var walk func(error)
	walk = func(e error) {
		if e == nil || len(out) > 64 {
			return
		}
		out = append(out, e)
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}

// RetryModel wraps m so that Generate and Stream retry transient failures
// as r says (nil means the default Retry). Use it for the agent's own
// model, whose calls simulate does not make itself: the retries and the
// calls that failed after every attempt enter the run's agent usage
// (Result.Usage[RoleAgent]). The result is a
// model.ToolCallingChatModel when m is one. A stream is retried only when it
// fails to open.
//
// The wrapper is safe for concurrent use when m is.
func RetryModel(m model.BaseChatModel, r *Retry) model.BaseChatModel {
	rm := retryModel{m: m, r: r}
	if _, ok := m.(model.ToolCallingChatModel); ok {
		return retryToolModel{rm}
	}
	return rm
}

type retryModel struct {
	m model.BaseChatModel
	r *Retry
}

func (rm retryModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (out *schema.Message, err error) {
	n, err := rm.r.Do(ctx, func(ctx context.Context) error {
		out, err = rm.m.Generate(ctx, in, opts...)
		return err
	})
	noteAgentCall(ctx, n, err)
	return out, err
}

func (rm retryModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (out *schema.StreamReader[*schema.Message], err error) {
	n, err := rm.r.Do(ctx, func(ctx context.Context) error {
		out, err = rm.m.Stream(ctx, in, opts...)
		return err
	})
	noteAgentCall(ctx, n, err)
	return out, err
}

type retryToolModel struct{ retryModel }

func (rm retryToolModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := rm.m.(model.ToolCallingChatModel).WithTools(tools)
	if err != nil {
		return nil, err
	}
	return retryToolModel{retryModel{m: inner, r: rm.r}}, nil
}
