package lookoutadk_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

// BenchmarkEssentialWork measures how close any middleware with Lookout's
// features could come to the bare agent. It runs four agents side by side
// in each iteration, as BenchmarkMiddlewareOverhead does: bare, the
// do-nothing middleware, a middleware that does only the essential work
// of those features (essential, below), and Lookout as in
// BenchmarkMiddlewareOverhead, recording included (the essential
// middleware records nothing beyond its slice). It reports each one's median ratio to
// bare.
func BenchmarkEssentialWork(b *testing.B) {
	agents := []namedAgent{breakdown[0], breakdown[1],
		{"essential", func(b *testing.B) *subject { return plain(scriptedAgent(b, &essential{})) }},
		breakdown[len(breakdown)-1],
	}
	ratios := ratiosToFirst(b, agents)
	for k, a := range agents[1:] {
		b.ReportMetric(median(ratios[k+1]), a.name)
	}
}

// essential is the least a middleware does that gives an agent what
// Lookout's benchmark configuration gives it, with none of the rest: no
// session store, recording, efficacy tracking, fault isolation, streaming
// or sub-agents. Per run it keeps one struct under one mutex. Before each
// model call it checks the token and time limits and moves its block to
// the end of the history in place; after each model call it charges the
// tokens; around each tool call it reserves a call from the tool-call
// limit, then appends a record of the call and, every 10 calls, renders a
// short assessment of the budget. The run's ctx carries the deadline.
type essential struct {
	adk.BaseChatModelAgentMiddleware
}

type essentialKey struct{}

type essentialRecord struct {
	index                  int64
	name, id, args, result string
	ok                     bool
	at                     time.Time
	took                   time.Duration
}

type essentialRun struct {
	mu                      sync.Mutex
	calls                   []essentialRecord
	tokens, maxTokens       int64
	toolCalls, maxToolCalls int64
	deadline                time.Time
	cancel                  context.CancelFunc
	block, injected         *schema.Message
}

var errEssentialExceeded = errors.New("budget exceeded")

func essentialRunOf(ctx context.Context) *essentialRun {
	r, _ := ctx.Value(essentialKey{}).(*essentialRun)
	return r
}

func (*essential) BeforeAgent(ctx context.Context, rc *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	r := &essentialRun{
		maxTokens:    overheadLimits.MaxTokens,
		maxToolCalls: overheadLimits.MaxToolCalls,
		deadline:     time.Now().Add(overheadLimits.Timeout),
	}
	ctx, r.cancel = context.WithDeadlineCause(ctx, r.deadline, errEssentialExceeded)
	return context.WithValue(ctx, essentialKey{}, r), rc, nil
}

func (*essential) AfterAgent(ctx context.Context, _ *adk.ChatModelAgentState) (context.Context, error) {
	essentialRunOf(ctx).cancel()
	return ctx, nil
}

func (*essential) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	r := essentialRunOf(ctx)
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tokens >= r.maxTokens || !now.Before(r.deadline) {
		return ctx, nil, errEssentialExceeded
	}
	msgs := state.Messages
	if r.injected != nil {
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i] == r.injected {
				copy(msgs[i:], msgs[i+1:])
				msgs[len(msgs)-1] = nil
				msgs = msgs[:len(msgs)-1]
				break
			}
		}
	}
	if r.block != nil {
		msgs = append(msgs, r.block)
	}
	r.injected = r.block
	state.Messages = msgs
	return ctx, state, nil
}

func (*essential) WrapModel(ctx context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	return &essentialModel{inner: inner, run: essentialRunOf(ctx)}, nil
}

type essentialModel struct {
	inner model.BaseChatModel
	run   *essentialRun
}

func (m *essentialModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	out, err := m.inner.Generate(ctx, input, opts...)
	if err == nil && out != nil && out.ResponseMeta != nil && out.ResponseMeta.Usage != nil {
		m.run.mu.Lock()
		m.run.tokens += int64(out.ResponseMeta.Usage.TotalTokens)
		m.run.mu.Unlock()
	}
	return out, err
}

func (m *essentialModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return m.inner.Stream(ctx, input, opts...)
}

func (*essential) WrapInvokableToolCall(ctx context.Context, next adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	r := essentialRunOf(ctx)
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		start := time.Now()
		r.mu.Lock()
		if r.toolCalls >= r.maxToolCalls {
			r.mu.Unlock()
			return "Tool call refused: the tool-call budget is spent.", nil
		}
		r.toolCalls++
		r.mu.Unlock()
		out, err := next(ctx, args, opts...)
		end := time.Now()
		r.mu.Lock()
		defer r.mu.Unlock()
		n := int64(len(r.calls)) + 1
		r.calls = append(r.calls, essentialRecord{index: n, name: tc.Name, id: tc.CallID, args: args, result: out, ok: err == nil, at: end, took: end.Sub(start)})
		if n%10 == 0 {
			r.block = &schema.Message{Role: schema.User, Content: r.render(n, end), Extra: map[string]any{"lookout": "assessment"}}
		}
		if err != nil {
			return "Error: " + err.Error(), nil
		}
		return out, nil
	}, nil
}

// render is a short assessment of the budget after call n, at now.
func (r *essentialRun) render(n int64, now time.Time) string {
	b := make([]byte, 0, 256)
	b = append(b, "## Trajectory Assessment\n\n_Generated after tool call #"...)
	b = strconv.AppendInt(b, n, 10)
	b = append(b, "_\n\n### Resources [info]\n\nYou have "...)
	b = strconv.AppendInt(b, int64(r.deadline.Sub(now)/time.Minute), 10)
	b = append(b, " minutes remaining before the deadline. You have used "...)
	b = strconv.AppendInt(b, r.tokens, 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, r.maxTokens, 10)
	b = append(b, " tokens. You have made "...)
	b = strconv.AppendInt(b, r.toolCalls, 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, r.maxToolCalls, 10)
	b = append(b, " allowed tool calls.\n"...)
	return string(b)
}

// TestEssentialDoesItsWork checks that BenchmarkEssentialWork's reference
// middleware does the work it stands for: it counts tool calls and
// tokens, and shows one block, moved to the end of each model input and
// replaced every 10 calls.
func TestEssentialDoesItsWork(t *testing.T) {
	m := scripted.New(scripted.Repeat(25, scripted.Call("noop", "{}")), scripted.Reply("done"))
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, bare: true, handlers: []adk.ChatModelAgentMiddleware{&essential{}}, maxIter: 30})
	ctx := context.Background()
	if o := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")); o.err != nil {
		t.Fatal(o.err)
	}
	reqs := m.Requests()
	require.Len(t, reqs, 26)
	blocks := func(r scripted.Request) (n int, last string) {
		for _, msg := range r.Messages {
			if msg.Extra["lookout"] == "assessment" {
				n++
				last = msg.Content
			}
		}
		return n, last
	}
	for i, r := range reqs {
		n, content := blocks(r)
		if i < 10 {
			require.Zero(t, n, "model call %d", i+1)
			continue
		}
		require.Equal(t, 1, n, "model call %d", i+1)
		require.Equal(t, "assessment", r.Messages[len(r.Messages)-1].Extra["lookout"], "model call %d: the block is last", i+1)
		after := strconv.Itoa(i / 10 * 10)
		require.Contains(t, content, "after tool call #"+after+"_")
		require.Contains(t, content, "You have made "+after+" of ")
		require.NotContains(t, content, "You have used 0 of")
	}
}
