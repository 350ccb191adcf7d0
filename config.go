package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
)

// Defaults used when a [Config] field is zero.
const (
	DefaultWrapUpAt       = 0.10
	DefaultRetention      = 10_000
	DefaultMaxRecordBytes = 1024
)

// ToolErrors says what happens when a tool returns an error.
type ToolErrors int

const (
	// ToolErrorsAsMessages turns a tool's error into a tool message the
	// model can read ("Error: ..."), counted as a failure by the observers.
	// It is the default.
	ToolErrorsAsMessages ToolErrors = iota
	// ToolErrorsAbort keeps Eino's behaviour: the error ends the run. The
	// call is still recorded as a failure first.
	ToolErrorsAbort
)

// Config configures Lookout's Eino adapters. A nil *Config, and every zero
// field, means the defaults.
type Config struct {
	// Limits are the run's budget. The zero value is unlimited.
	Limits budget.Limits

	// Observers run after each tool call. Nil means one Resource observer
	// that runs every 10 calls or after 3 consecutive errors. An empty,
	// non-nil slice means no observers.
	Observers []observer.Spec

	// InjectAs is the role of the injected assessment message:
	// schema.User (the default) or schema.System.
	InjectAs schema.RoleType

	// MaxAgeCalls is how many tool calls an assessment stays fresh for.
	// Zero means observer.DefaultMaxAgeCalls.
	MaxAgeCalls int

	// Advisory lists resources that are reported to the model but not
	// enforced. Every other limited resource is enforced: a tool call over
	// the tool-call limit is refused, and a model call after tokens or time
	// ran out ends the run with a *budget.ExceededError.
	Advisory []budget.Resource

	// WrapUpAt is the fraction of tokens or time remaining at or below
	// which the model gets a wrap-up turn: tool calls are forbidden
	// through the tool choice (the tools stay described) and it is asked
	// to summarise its progress. A spent, enforced tool-call limit gives
	// one too. Zero means DefaultWrapUpAt; negative turns wrap-up turns
	// off.
	WrapUpAt float64

	// ToolErrors says what a tool's error does. The zero value turns it
	// into a message the model can read.
	ToolErrors ToolErrors

	// Retention bounds the tool calls kept in memory per session; counts
	// stay exact. Zero means DefaultRetention; negative keeps all.
	Retention int

	// MaxRecordBytes bounds the arguments, result and error message kept
	// per tool call for the observers. A longer text is cut and copied, so
	// the rest of it is not held in memory. Zero means
	// DefaultMaxRecordBytes.
	MaxRecordBytes int

	// Now is the clock. Nil means time.Now.
	Now func() time.Time

	// OnError receives failures of observers and of Lookout itself, which
	// never stop the run. Nil logs them with log/slog.
	OnError func(ctx context.Context, err error)

	// Sink receives the run's trajectory: run_started, messages, model
	// requests and responses, tool calls, assessments, budget events and
	// run_ended records. Nil records nothing, unless Recorder is set.
	Sink recorder.Sink
	// RecorderOptions configure the recorder built on Sink: the failure
	// policy (drop and count, or escalate and end the run), redaction,
	// field limits, the clock. Nil means the defaults, except that
	// dropped writes go to OnError unless ErrorHandler is set.
	RecorderOptions *recorder.Options
	// Recorder, when set, is used instead of one built from Sink, so
	// several agents can share one.
	Recorder *recorder.Recorder
}

// Normalized returns a copy of c with defaults filled in, or an error
// wrapping ErrInvalidConfig.
func (c *Config) Normalized() (Config, error) {
	var n Config
	if c != nil {
		n = *c
	}
	if err := n.Limits.Validate(); err != nil {
		return n, fmt.Errorf("%w: Limits: %w", ErrInvalidConfig, err)
	}
	if n.Observers == nil {
		n.Observers = []observer.Spec{{
			Observer: observer.NewResource(),
			Trigger:  observer.Trigger{EveryNCalls: 10, AfterConsecutiveErrors: 3},
		}}
	}
	switch n.InjectAs {
	case "":
		n.InjectAs = schema.User
	case schema.User, schema.System:
	default:
		return n, fmt.Errorf("%w: InjectAs must be schema.User or schema.System, not %q", ErrInvalidConfig, n.InjectAs)
	}
	if n.MaxAgeCalls < 0 {
		return n, fmt.Errorf("%w: MaxAgeCalls %d is negative", ErrInvalidConfig, n.MaxAgeCalls)
	}
	for _, r := range n.Advisory {
		switch r {
		case budget.Time, budget.Tokens, budget.ToolCalls:
		default:
			return n, fmt.Errorf("%w: Advisory: unknown resource %q", ErrInvalidConfig, r)
		}
	}
	if n.WrapUpAt == 0 {
		n.WrapUpAt = DefaultWrapUpAt
	}
	if n.WrapUpAt >= 1 {
		return n, fmt.Errorf("%w: WrapUpAt %v must be below 1", ErrInvalidConfig, n.WrapUpAt)
	}
	switch n.ToolErrors {
	case ToolErrorsAsMessages, ToolErrorsAbort:
	default:
		return n, fmt.Errorf("%w: unknown ToolErrors %d", ErrInvalidConfig, n.ToolErrors)
	}
	switch {
	case n.Retention == 0:
		n.Retention = DefaultRetention
	case n.Retention < 0:
		n.Retention = 0
	}
	if n.MaxRecordBytes <= 0 {
		n.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if n.Now == nil {
		n.Now = time.Now
	}
	if n.OnError == nil {
		n.OnError = LogError
	} else {
		n.OnError = guardOnError(n.OnError)
	}
	if n.Recorder == nil && n.Sink != nil {
		// Writes the sink fails under the Drop policy go to OnError, as
		// every other observing and recording failure does, unless the
		// options name their own handler.
		var opts recorder.Options
		if n.RecorderOptions != nil {
			opts = *n.RecorderOptions
		}
		if opts.ErrorHandler == nil {
			onError := n.OnError
			opts.ErrorHandler = func(err error) { onError(context.Background(), err) }
		}
		n.Recorder = recorder.New(n.Sink, &opts)
	}
	return n, nil
}

// Enforced reports whether resource r is enforced rather than advisory.
func (c *Config) Enforced(r budget.Resource) bool {
	for _, a := range c.Advisory {
		if a == r {
			return false
		}
	}
	return true
}

// ErrInvalidConfig is returned for a configuration that cannot work. The
// error names the field.
var ErrInvalidConfig = errors.New("lookout: invalid config")

// guardOnError returns onError made safe to call from anywhere in the
// agent: a panic in it is logged with the error it was handling, and goes
// no further.
func guardOnError(onError func(context.Context, error)) func(context.Context, error) {
	return func(ctx context.Context, err error) {
		defer func() {
			if p := recover(); p != nil {
				LogError(ctx, fmt.Errorf("lookout: Config.OnError panicked (%v) handling: %w", p, err))
			}
		}()
		onError(ctx, err)
	}
}

// LogError is the default error handler: it logs with log/slog.
func LogError(ctx context.Context, err error) {
	slog.WarnContext(ctx, "lookout: error", "error", err)
}
