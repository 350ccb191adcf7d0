package lookout

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
)

// Defaults used when a [Config] field is zero.
const (
	DefaultWrapUpAt       = 0.10
	DefaultRetention      = 10_000
	DefaultMaxRecordBytes = 1024
	DefaultEndWait        = 5 * time.Second
)

// ToolErrors says what happens when a tool returns an error.
type ToolErrors int

const (
	// ToolErrorsAbort keeps the runtime's behaviour: the error ends the
	// run, as it would without Lookout. The call is still recorded as a
	// failure first. It is the default.
	ToolErrorsAbort ToolErrors = iota
	// ToolErrorsAsMessages turns a tool's error into a tool message the
	// model can read ("Error: ..."), counted as a failure by the
	// observers: the run goes on where the runtime would have ended it.
	ToolErrorsAsMessages
)

// Config configures Lookout. A nil *Config, and every zero field, means
// the defaults. An adapter copies it when it is made: changing a Config
// afterwards has no effect on it.
type Config struct {
	// Limits are the run's budget: a timeout, tokens and tool calls. The
	// zero value is unlimited.
	Limits budget.Limits

	// Observers run after each tool call, each on its own trigger. Nil
	// means one Resource observer that runs every 10 calls or after 3
	// consecutive errors. An empty, non-nil slice means no observers.
	Observers []observer.Spec

	// InjectAs is the role of the injected assessment and wrap-up
	// messages: schema.User (the default) or schema.System.
	InjectAs schema.RoleType

	// MaxAgeCalls is how many tool calls an assessment stays fresh for;
	// a stale assessment is no longer shown. Zero means
	// observer.DefaultMaxAgeCalls.
	MaxAgeCalls int

	// Advisory lists resources that are reported to the model but not
	// enforced. Every other limited resource is enforced: a tool call
	// over the tool-call limit is refused, and a model call after tokens,
	// cost, time or model calls ran out ends the run with a
	// *budget.ExceededError.
	Advisory []budget.Resource

	// WrapUpAt is the fraction of tokens, cost or time remaining at or below
	// which the model gets a wrap-up turn: tool calls are forbidden
	// through the tool choice (the tools stay described) and the model is
	// asked to summarise its progress. The last model call an enforced
	// model-call limit allows is one too, and so is each agent's last
	// turn once an enforced model-call or tool-call limit is spent (see
	// HandoverTools). Zero means DefaultWrapUpAt; a negative value turns
	// wrap-up turns off.
	WrapUpAt float64

	// ToolErrors says what a tool's error does. The zero value,
	// ToolErrorsAbort, ends the run with it, as the runtime does.
	ToolErrors ToolErrors

	// Leases cap, by agent name, what a child run of that agent may spend
	// of the query's budget: tokens, tool calls and model calls (a
	// lease's Timeout and Deadline are not used). Near its cap the child
	// gets a wrap-up turn, and a tool call over it is refused, so the
	// child hands back and the query goes on. What a child leaves unspent
	// stays with the query.
	Leases map[string]budget.Limits

	// ControlTools names tools that steer the run rather than do work,
	// such as handing over to another agent or leaving a loop. They are
	// recorded and observed like any call, but not charged to
	// MaxToolCalls nor refused by it, and a wrap-up turn still lets the
	// model call them. The ADK adapter adds Eino's transfer and exit
	// tools.
	ControlTools []string

	// HandoverTools names the control tools that hand the work to another
	// agent. Once a limit is spent each agent of the query gets one last
	// turn, on which these are neither offered nor run: the query ends on
	// an answer rather than handing work back and forth. They need not be
	// listed in ControlTools too. The ADK adapter adds Eino's transfer
	// tool.
	HandoverTools []string

	// EndWait bounds how long the end of a query waits, before the
	// caller is told the query is over: first for the model calls its
	// agents still have in flight, so that what they cost is charged and
	// recorded, then for the Recorder to hand the query's records to the
	// sink and flush it. So a program that exits on the query's error,
	// with log.Fatal say, loses nothing. Zero means DefaultEndWait; a
	// negative value waits for neither.
	EndWait time.Duration

	// Retention bounds the tool calls kept in memory per session; counts
	// stay exact. Zero means DefaultRetention; negative keeps all.
	Retention int

	// MaxRecordBytes bounds the arguments, result and error message kept
	// per tool call for the observers. A longer text is cut and copied,
	// so the rest of it is not held in memory. Zero means
	// DefaultMaxRecordBytes.
	MaxRecordBytes int

	// Now is the clock of budgets, triggers and records. Nil means
	// time.Now.
	Now func() time.Time

	// OnError receives failures of observers and of Lookout itself, which
	// never stop the run. Nil logs them with log/slog. A panic in it goes
	// no further.
	OnError func(ctx context.Context, err error)

	// Prices price the model calls, by model name, in US dollars per
	// million tokens. A priced call's cost is recorded, counted in
	// run_ended and the exports, and charged to Limits.MaxCostUSD. Nil
	// means budget.DefaultPrices for a run that is recorded or has a cost
	// limit; a table of your own replaces it (start from
	// budget.DefaultPrices to add to it). Under a cost limit, the first
	// call of a query that no price matches is told to OnError and
	// recorded, and costs nothing against the limit; an empty, non-nil
	// table with a cost limit is an error, since nothing could be
	// charged to it.
	Prices budget.Prices

	// MCPTools names, by tool name, the MCP server that serves each tool
	// wrapped by hand, and the tool's name there (empty: the same name),
	// for the recording. A tool whose info says so itself (see
	// MCPServerKey) needs no entry.
	MCPTools map[string]MCPSource

	// Agent describes the agent in the recording: its name, version and
	// model. The zero value leaves them to what Lookout learns.
	Agent AgentInfo

	// Recorder receives the run's trajectory: run_started, messages,
	// model requests and responses, tool calls, assessments, budget
	// events and run_ended. Nil records nothing. One Recorder may serve
	// many runs and agents; Close it when the program is done with it, so
	// that the records it queued reach the sink.
	Recorder *recorder.Recorder
}

// Check checks c and returns a copy of it with every zero field set to
// its default; a nil c means the defaults. The observers are checked too,
// so a bad trigger fails here rather than at the first run. The error
// wraps [ErrInvalidConfig] (and, for an observer, the observer package's
// ErrInvalidConfig too) and names the field. Adapters check the Config
// they are given with it.
func (c *Config) Check() (Config, error) {
	n, err := c.normalized()
	if err != nil {
		return n, err
	}
	if err := observer.Validate(n.Observers); err != nil {
		return n, fmt.Errorf("%w: Observers: %w", ErrInvalidConfig, err)
	}
	return n, nil
}

// normalized returns a copy of c with defaults filled in, or an error
// wrapping ErrInvalidConfig.
func (c *Config) normalized() (Config, error) {
	var n Config
	if c != nil {
		n = *c
	}
	if err := n.Limits.Validate(); err != nil {
		return n, fmt.Errorf("%w: Limits: %w", ErrInvalidConfig, err)
	}
	if err := n.Prices.Validate(); err != nil {
		return n, fmt.Errorf("%w: Prices: %w", ErrInvalidConfig, err)
	}
	switch {
	case n.Prices == nil && (n.Recorder != nil || n.Limits.MaxCostUSD > 0):
		n.Prices = defaultPrices
	case n.Prices != nil && len(n.Prices) == 0 && n.Limits.MaxCostUSD > 0:
		return n, invalid("Limits.MaxCostUSD is set and Prices is empty: no model call could be charged to it")
	}
	if n.Observers == nil {
		n.Observers = []observer.Spec{{
			Observer: resource.New(),
			Trigger:  observer.Trigger{EveryNCalls: 10, AfterConsecutiveErrors: 3},
		}}
	}
	if err := n.checkFields(); err != nil {
		return n, err
	}
	n.fillDefaults()
	return n, nil
}

// checkFields rejects fields that cannot work, naming the field.
func (n *Config) checkFields() error {
	for _, check := range fieldChecks {
		if err := check(n); err != nil {
			return err
		}
	}
	return nil
}

// fieldChecks check one field of a Config each, in the order checkFields
// reports them.
var fieldChecks = []func(*Config) error{
	func(n *Config) error {
		if n.InjectAs != "" && n.InjectAs != schema.User && n.InjectAs != schema.System {
			return invalid("InjectAs must be schema.User or schema.System, not %q", n.InjectAs)
		}
		return nil
	},
	func(n *Config) error {
		for name, lease := range n.Leases {
			if err := lease.Validate(); err != nil {
				return invalid("Leases[%q]: %w", name, err)
			}
		}
		return nil
	},
	func(n *Config) error {
		if n.MaxAgeCalls < 0 {
			return invalid("MaxAgeCalls %d is negative", n.MaxAgeCalls)
		}
		return nil
	},
	func(n *Config) error {
		for _, r := range n.Advisory {
			if !slices.Contains(budgetResources, r) {
				return invalid("Advisory: unknown resource %q", r)
			}
		}
		return nil
	},
	func(n *Config) error {
		if n.WrapUpAt >= 1 || n.WrapUpAt != n.WrapUpAt {
			return invalid("WrapUpAt %v must be a number below 1", n.WrapUpAt)
		}
		return nil
	},
	func(n *Config) error {
		if n.ToolErrors != ToolErrorsAsMessages && n.ToolErrors != ToolErrorsAbort {
			return invalid("unknown ToolErrors %d", n.ToolErrors)
		}
		return nil
	},
}

// invalid returns an error wrapping ErrInvalidConfig with the message
// format makes of args.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
}

// defaultPrices is the price table of a Config without one; nothing
// writes to it.
var defaultPrices = budget.DefaultPrices()

// budgetResources are the resources a budget limits.
var budgetResources = []budget.Resource{budget.Time, budget.Tokens, budget.ToolCalls, budget.ModelCalls, budget.CostUSD}

// fillDefaults sets the zero fields to their defaults.
func (n *Config) fillDefaults() {
	if n.InjectAs == "" {
		n.InjectAs = schema.User
	}
	if n.WrapUpAt == 0 {
		n.WrapUpAt = DefaultWrapUpAt
	}
	n.Retention = retention(n.Retention)
	if n.MaxRecordBytes <= 0 {
		n.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if n.EndWait == 0 {
		n.EndWait = DefaultEndWait
	}
	if n.Now == nil {
		n.Now = time.Now
	}
	n.OnError = errorHandler(n.OnError)
}

// retention returns the session retention Config.Retention asks for: the
// default for 0, none (0) for a negative value.
func retention(r int) int {
	switch {
	case r == 0:
		return DefaultRetention
	case r < 0:
		return 0
	}
	return r
}

// errorHandler returns the error handler for Config.OnError: h guarded
// against panics, or the default.
func errorHandler(h func(context.Context, error)) func(context.Context, error) {
	if h == nil {
		return logError
	}
	return guardOnError(h)
}

// guardOnError returns onError made safe to call from anywhere in the
// agent: a panic in it is logged with the error it was handling, and goes
// no further.
func guardOnError(onError func(context.Context, error)) func(context.Context, error) {
	return func(ctx context.Context, err error) {
		defer func() {
			if p := recover(); p != nil {
				logError(ctx, fmt.Errorf("lookout: Config.OnError panicked (%v) handling: %w", p, err))
			}
		}()
		onError(ctx, err)
	}
}

// logError is the default error handler: it logs with log/slog.
func logError(ctx context.Context, err error) {
	slog.WarnContext(ctx, "lookout: error", "error", err)
}
