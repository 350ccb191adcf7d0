package simulate

import (
	"context"
	"sync"

	"github.com/cloudwego/eino/schema"
)

// Model roles, the keys of Result.Usage.
const (
	RoleUser   = "user"   // the simulated user's model
	RoleRanker = "ranker" // the ranker, or its model
	RoleJudge  = "judge"  // the judge, or its model
	RoleAgent  = "agent"  // the agent under test, from its assistant messages
)

// ModelNames labels the models of a run for reports, which count tokens and
// cost per model. Labels are free text, typically the provider's model
// name ("gpt-4o-mini").
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type ModelNames struct {
	User   string `json:"user,omitempty"`
	Ranker string `json:"ranker,omitempty"`
	Judge  string `json:"judge,omitempty"`
	Agent  string `json:"agent,omitempty"`
}

func (n ModelNames) of(role string) string {
	switch role {
	case RoleUser:
		return n.User
	case RoleRanker:
		return n.Ranker
	case RoleJudge:
		return n.Judge
	}
	return n.Agent
}

// ModelUsage is what one role's model did in a run. Calls counts the calls
// simulate made (for the agent, the assistant messages it answered with,
// and the calls of a RetryModel that failed), Attempts the tries they took,
// retries included (for the agent, those a RetryModel made), and Failures
// the calls that failed after every attempt. Tokens are the sums of the replies'
// reported usage; a model or ranker that reports none counts none.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type ModelUsage struct {
	Model            string `json:"model,omitempty"`
	Calls            int    `json:"calls"`
	Attempts         int    `json:"attempts"`
	Failures         int    `json:"failures,omitempty"`
	PromptTokens     int    `json:"promptTokens"`
	CompletionTokens int    `json:"completionTokens"`
}

// meter gathers the token usage of the replies a model call produced,
// across its attempts. It travels in the call's context, so that the
// default ranker and judge report what their model used.
type meter struct {
	mu                 sync.Mutex
	prompt, completion int
}

type meterKey struct{}

func withMeter(ctx context.Context, m *meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// noteUsage adds the usage that msg reports to the meter in ctx, if any.
func noteUsage(ctx context.Context, msg *schema.Message) {
	m, _ := ctx.Value(meterKey{}).(*meter)
	if m == nil || msg == nil || msg.ResponseMeta == nil || msg.ResponseMeta.Usage == nil {
		return
	}
	u := msg.ResponseMeta.Usage
	m.mu.Lock()
	m.prompt += u.PromptTokens
	m.completion += u.CompletionTokens
	m.mu.Unlock()
}

// usageOf returns the role's usage in the run's record, creating it.
func (ru *run) usageOf(role string) *ModelUsage {
	if ru.res.Usage == nil {
		ru.res.Usage = make(map[string]*ModelUsage, 4)
	}
	u := ru.res.Usage[role]
	if u == nil {
		u = &ModelUsage{Model: ru.r.ModelNames.of(role)}
		ru.res.Usage[role] = u
	}
	return u
}

// call makes one call of role's model through fn, retried as the Runner
// says, each attempt bounded by its CallTimeout, and counts it.
func (ru *run) call(ctx context.Context, role string, fn func(ctx context.Context) error) error {
	var m meter
	mctx := withMeter(ctx, &m)
	attempts, err := ru.r.retry().Do(mctx, func(ctx context.Context) error {
		if ru.r.CallTimeout <= 0 {
			return fn(ctx)
		}
		tctx, cancel := context.WithTimeout(ctx, ru.r.CallTimeout)
		defer cancel()
		return fn(tctx)
	})
	u := ru.usageOf(role)
	u.Calls++
	u.Attempts += attempts
	u.PromptTokens += m.prompt
	u.CompletionTokens += m.completion
	if err != nil {
		u.Failures++
	}
	return err
}

// agentCalls gathers what the RetryModels of the agent under test saw in
// a turn: the retries of the calls that succeeded, and the calls that
// failed after every attempt, with their attempts. It travels in the
// target's context.
type agentCalls struct {
	mu                              sync.Mutex
	retries, failed, failedAttempts int
}

type agentCallsKey struct{}

// noteAgentCall records, in the turn's agentCalls in ctx if any, a call
// of the agent's model that took attempts and ended with err.
func noteAgentCall(ctx context.Context, attempts int, err error) {
	ac, _ := ctx.Value(agentCallsKey{}).(*agentCalls)
	if ac == nil {
		return
	}
	ac.mu.Lock()
	defer ac.mu.Unlock()
	if err != nil {
		ac.failed++
		ac.failedAttempts += attempts
		return
	}
	ac.retries += attempts - 1
}

// noteAgent counts the assistant messages of a turn as the agent's calls,
// with the tokens they report, and the retries and failed calls that its
// RetryModels saw (ac).
func (ru *run) noteAgent(out []*schema.Message, ac *agentCalls) {
	ac.mu.Lock()
	defer ac.mu.Unlock()
	if ac.failed+ac.retries > 0 {
		u := ru.usageOf(RoleAgent)
		u.Calls += ac.failed
		u.Failures += ac.failed
		u.Attempts += ac.failedAttempts + ac.retries
	}
	for _, msg := range out {
		if msg.Role != schema.Assistant {
			continue
		}
		u := ru.usageOf(RoleAgent)
		u.Calls++
		u.Attempts++
		if msg.ResponseMeta != nil && msg.ResponseMeta.Usage != nil {
			u.PromptTokens += msg.ResponseMeta.Usage.PromptTokens
			u.CompletionTokens += msg.ResponseMeta.Usage.CompletionTokens
		}
	}
}
