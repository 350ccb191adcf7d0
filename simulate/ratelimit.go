package simulate

import (
	"context"
	"sync"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// RateLimit paces the calls to one model provider: at most
// RequestsPerMinute calls and TokensPerMinute tokens a minute, spread
// evenly (a call waits its turn rather than bursting). Zero means no limit
// of that kind. Share one RateLimit between every model of a provider, in
// every job of a batch (LimitModel in Batch.Setup), so that the workers
// keep to the provider's limits together instead of each meeting its 429s.
//
// A call's tokens are counted before it is sent from its prompt (a
// quarter of its bytes), then corrected with the usage its reply reports.
// Now and Sleep are injected by tests (nil means time.Now, and a timer
// that stops when the context ends).
//
// A RateLimit is safe for concurrent use; it must not be copied after
// first use.
type RateLimit struct {
	RequestsPerMinute int
	TokensPerMinute   int
	Now               func() time.Time
	Sleep             func(ctx context.Context, d time.Duration) error

	mu      sync.Mutex
	reqFree time.Time // when the next call may start, by requests
	tokFree time.Time // when the tokens spent so far are paid off
}

// reserve books a call of tokens tokens and returns how long it must wait
// before it is sent.
func (l *RateLimit) reserve(tokens int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	start := now
	if l.RequestsPerMinute > 0 {
		start = later(start, l.reqFree)
	}
	if l.TokensPerMinute > 0 {
		// A call may start once the tokens before it are paid off.
		start = later(start, l.tokFree)
		l.tokFree = later(start, l.tokFree).Add(l.tokenTime(tokens))
	}
	if l.RequestsPerMinute > 0 {
		l.reqFree = start.Add(time.Minute / time.Duration(l.RequestsPerMinute))
	}
	return start.Sub(now)
}

// settle corrects the tokens booked for a call, estimated, with those it
// used.
func (l *RateLimit) settle(estimated, used int) {
	if l.TokensPerMinute <= 0 || used == estimated {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokFree = l.tokFree.Add(l.tokenTime(used - estimated))
}

// tokenTime is the share of a minute that n tokens take.
func (l *RateLimit) tokenTime(n int) time.Duration {
	return time.Duration(int64(n) * int64(time.Minute) / int64(l.TokensPerMinute))
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (l *RateLimit) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *RateLimit) wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if l.Sleep != nil {
		return l.Sleep(ctx, d)
	}
	return (*Retry)(nil).sleep(ctx, d)
}

// LimitModel wraps m so that each of its calls first waits its turn under
// l (nil means no limit). Wrap every model of a provider with the same l;
// put LimitModel inside RetryModel, so that retries wait their turn too.
// The result is a model.ToolCallingChatModel when m is one.
//
// The wrapper is safe for concurrent use when m is.
func LimitModel(m model.BaseChatModel, l *RateLimit) model.BaseChatModel {
	if l == nil {
		return m
	}
	lm := limitModel{m: m, l: l}
	if _, ok := m.(model.ToolCallingChatModel); ok {
		return limitToolModel{lm}
	}
	return lm
}

type limitModel struct {
	m model.BaseChatModel
	l *RateLimit
}

// admit waits for the turn of a call with input in, and returns its
// estimated tokens.
func (lm limitModel) admit(ctx context.Context, in []*schema.Message) (int, error) {
	est := 0
	for _, m := range in {
		est += (len(m.Content) + len(m.ReasoningContent) + 3) / 4
		for _, tc := range m.ToolCalls {
			est += (len(tc.Function.Arguments) + 3) / 4
		}
	}
	return est, lm.l.wait(ctx, lm.l.reserve(est))
}

func (lm limitModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	est, err := lm.admit(ctx, in)
	if err != nil {
		return nil, err
	}
	out, err := lm.m.Generate(ctx, in, opts...)
	if out != nil && out.ResponseMeta != nil && out.ResponseMeta.Usage != nil {
		lm.l.settle(est, out.ResponseMeta.Usage.TotalTokens)
	}
	return out, err
}

func (lm limitModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	if _, err := lm.admit(ctx, in); err != nil {
		return nil, err
	}
	return lm.m.Stream(ctx, in, opts...)
}

type limitToolModel struct{ limitModel }

func (lm limitToolModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := lm.m.(model.ToolCallingChatModel).WithTools(tools)
	if err != nil {
		return nil, err
	}
	return limitToolModel{limitModel{m: inner, l: lm.l}}, nil
}
