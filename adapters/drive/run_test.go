package drive

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

func contents(msgs []*schema.Message) string {
	var parts []string
	for _, m := range msgs {
		parts = append(parts, m.Content)
	}
	return strings.Join(parts, " ")
}

func tagged(content string) *schema.Message {
	return &schema.Message{Role: schema.User, Content: content, Extra: map[string]any{lookout.Tag: lookout.TagAssessment}}
}

func TestReinjectKeepsAtMostTheNewBlocks(t *testing.T) {
	r := &Run{}
	sys, user := schema.SystemMessage("sys"), schema.UserMessage("task")
	stale := tagged("stale") // left by an earlier run, found by the first scan
	history := []*schema.Message{sys, stale, user}

	b1 := tagged("b1")
	out := r.Reinject(history, []*schema.Message{b1})
	assert.Equal(t, "sys task b1", contents(out))
	assert.Greater(t, cap(out), len(out), "room for the reply and tool results")

	// Eino appends the reply and tool results to the same array.
	out = append(out, schema.AssistantMessage("r1", nil), schema.ToolMessage("t1", "c1"))
	b2 := tagged("b2")
	before := &out[0]
	out = r.Reinject(out, []*schema.Message{b2})
	assert.Equal(t, "sys task r1 t1 b2", contents(out))
	assert.Same(t, before, &out[0], "rewritten in place")

	// Nothing fresh to inject: the old block goes, nothing comes.
	out = append(out, schema.AssistantMessage("r2", nil))
	out = r.Reinject(out, nil)
	assert.Equal(t, "sys task r1 t1 r2", contents(out))

	// An assessment and a wrap-up reminder together.
	out = append(out, schema.ToolMessage("t2", "c2"))
	out = r.Reinject(out, []*schema.Message{tagged("b3"), tagged("wrap")})
	assert.Equal(t, "sys task r1 t1 r2 t2 b3 wrap", contents(out))
	out = r.Reinject(append(out, schema.AssistantMessage("r3", nil)), []*schema.Message{tagged("b4")})
	assert.Equal(t, "sys task r1 t1 r2 t2 r3 b4", contents(out))
}

func TestReinjectCopiesWhenTheHistoryWasRewritten(t *testing.T) {
	r := &Run{}
	b1 := tagged("b1")
	out := r.Reinject([]*schema.Message{schema.UserMessage("task")}, []*schema.Message{b1})
	require.Equal(t, "task b1", contents(out))

	// Another middleware replaced the history: the remembered block is
	// gone, and a tagged copy of it must still be dropped.
	summary := []*schema.Message{schema.UserMessage("summary"), tagged("b1 copy"), schema.AssistantMessage("r", nil)}
	out = r.Reinject(summary, []*schema.Message{tagged("b2")})
	assert.Equal(t, "summary r b2", contents(out))
	assert.Equal(t, "summary b1 copy r", contents(summary), "the caller's slice is untouched")
}

func TestReinjectInPlaceRefusesWithoutRoom(t *testing.T) {
	b1 := tagged("b1")
	full := []*schema.Message{schema.UserMessage("task"), b1}
	full = full[:2:2]
	_, ok := reinjectInPlace(full, []*schema.Message{b1}, []*schema.Message{tagged("b2"), tagged("wrap")})
	assert.False(t, ok)
	_, ok = reinjectInPlace(full, []*schema.Message{tagged("missing")}, nil)
	assert.False(t, ok)
}

// TestWithoutOldAgreesWithTheGeneralWay checks withoutOld's shortcut for
// one old message against the way it takes for several, on every
// history of up to five messages drawn from four, duplicates included.
func TestWithoutOldAgreesWithTheGeneralWay(t *testing.T) {
	pool := []*schema.Message{schema.UserMessage("a"), schema.UserMessage("b"), tagged("c"), tagged("d")}
	for n := 0; n <= 5; n++ {
		for code := 0; code < pow(len(pool), n); code++ {
			msgs := make([]*schema.Message, n)
			for i, c := 0, code; i < n; i, c = i+1, c/len(pool) {
				msgs[i] = pool[c%len(pool)]
			}
			for _, old := range pool {
				fast, general := slices.Clone(msgs), slices.Clone(msgs)
				wf, okf := withoutOld(fast, []*schema.Message{old})
				wg, okg := generalWithoutOld(general, old)
				require.Equal(t, okg, okf, "found, %s without %s", contents(msgs), old.Content)
				assert.Equal(t, contents(general[:wg]), contents(fast[:wf]), "%s without %s", contents(msgs), old.Content)
			}
		}
	}
}

// generalWithoutOld is withoutOld's way for several old messages, given one.
func generalWithoutOld(msgs []*schema.Message, old *schema.Message) (int, bool) {
	from, ok := oldFrom(msgs, []*schema.Message{old})
	if !ok {
		return 0, false
	}
	w := from
	for _, msg := range msgs[from:] {
		if msg != old {
			msgs[w] = msg
			w++
		}
	}
	return w, true
}

func pow(b, e int) int {
	n := 1
	for range e {
		n *= b
	}
	return n
}

func TestSummarizeFoldsWhiteSpaceAndCuts(t *testing.T) {
	for in, want := range map[string]string{
		`{"path":"a.go"}`:            `{"path":"a.go"}`,
		"{\n  \"path\": \"a.go\"\n}": `{ "path": "a.go" }`,
		" padded  twice ":            "padded twice",
		"tab\there":                  "tab here",
		"non\u00a0breaking":          "non breaking",
		strings.Repeat("x", 200):     strings.Repeat("x", 17) + "...",
	} {
		assert.Equal(t, want, summarize(in, 20), "summarize(%q)", in)
	}
}

// calm is a shortcut for "neither exceeded nor nearlySpent has anything to
// say"; it must agree with them on every budget, on both sides of each
// threshold and at it.
func TestCalmAgreesWithTheFullChecks(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, wrap := range []float64{-1, 0, 0.1, 0.5} {
		r := &Run{cfg: &lookout.Config{WrapUpAt: wrap}, l: &Lookout{enforced: []budget.Resource{budget.Time, budget.Tokens}}}
		for _, maxTokens := range []int64{0, 100} {
			for _, used := range []int64{0, 50, 89, 90, 91, 99, 100, 150} {
				for _, timeout := range []time.Duration{0, 100 * time.Second} {
					for _, elapsed := range []time.Duration{0, 50 * time.Second, 90 * time.Second, 95 * time.Second, 100 * time.Second, 200 * time.Second} {
						b := budget.New(budget.Limits{Timeout: timeout, MaxTokens: maxTokens}, start)
						b.TokensUsed = used
						now := start.Add(elapsed)
						want := r.exceeded(b, now) == nil && r.nearlySpent(b, now) == ""
						assert.Equal(t, want, r.calm(&b, now),
							"wrap %v, tokens %d of %d, %v of %v", wrap, used, maxTokens, elapsed, timeout)
					}
				}
			}
		}
	}
}

// newTestRun returns a root run of cfg on store, without a recording.
func newTestRun(t testing.TB, cfg *lookout.Config, store *session.Store) *Run {
	t.Helper()
	l, err := New(cfg)
	require.NoError(t, err)
	r, err := l.newRun(store)
	require.NoError(t, err)
	return r
}

// The wrap-up reminder names the control tools the call offers, and
// only those; with none, it withholds every tool. Once the tool calls are
// spent, each agent has one such turn.
func TestTheWrapUpReminderNamesTheOfferedControlTools(t *testing.T) {
	l, err := New(&lookout.Config{ControlTools: []string{"exit", "transfer_to_agent"}, Limits: budget.Limits{MaxToolCalls: 1}})
	require.NoError(t, err)
	r, err := l.newRun(session.New(nil))
	require.NoError(t, err)
	ctx := context.Background()
	_, refusal, err := r.Admit(ctx, "search", "c1", "{}")
	require.NoError(t, err)
	require.Empty(t, refusal)

	turn, err := r.BeforeModel(ctx, nil, []*schema.ToolInfo{{Name: "search"}, {Name: "exit"}})
	require.NoError(t, err)
	require.True(t, turn.WrapUp)
	reminder := turn.Messages[len(turn.Messages)-1].Content
	assert.Contains(t, reminder, "except those that hand back or finish (exit)")

	other := r.child("other", "")
	turn, err = other.BeforeModel(ctx, nil, []*schema.ToolInfo{{Name: "search"}})
	require.NoError(t, err)
	reminder = turn.Messages[len(turn.Messages)-1].Content
	assert.Contains(t, reminder, "Tools are withheld from this turn. Write your final answer now:")

	_, err = r.BeforeModel(ctx, nil, []*schema.ToolInfo{{Name: "search"}, {Name: "exit"}})
	assert.ErrorIs(t, err, budget.ErrExceeded, "an agent has one last turn once the tool calls are spent")
}

// TestZeroModelCallPassesTheOutcomeThrough checks that the zero
// ModelCall, which StartModel returns when Lookout's own work panicked,
// charges and records nothing and hands the call's error back.
func TestZeroModelCallPassesTheOutcomeThrough(t *testing.T) {
	ctx := context.Background()
	var c ModelCall
	failed := errors.New("model down")
	assert.Same(t, failed, c.End(ctx, nil, failed))
	assert.NoError(t, c.End(ctx, schema.AssistantMessage("ok", nil), nil))
	assert.NoError(t, c.Streamed().EndStream(ctx, nil, nil, -1, nil))
}
