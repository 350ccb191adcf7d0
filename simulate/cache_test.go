package simulate

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

// A batch run again from the cache, into another folder, makes no call to
// the user's, the ranker's or the judge's model and writes the same bytes.
func TestABatchRerunFromTheCacheMakesNoSimulatorCall(t *testing.T) {
	up := newProvider(t, scripted.New(scripted.Forever(scripted.Reply("I want a trip").WithUsage(20, 5))), always(0))
	rp := newProvider(t, scripted.New(scripted.Forever(scripted.Reply(bothScores))), always(0))
	jp := ruleJudge(t, "Assistant called tool", "")
	cache := t.TempDir()
	at := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	batch := func(out string) *Batch {
		return &Batch{
			Scenarios: []*Scenario{
				{Name: "plan", Goal: "g", Graph: twoSteps(), MaxTurns: 4, Criteria: []string{"the agent uses its tools"}},
				{Name: "book", Goal: "g", Goals: []Goal{ToolCalled("book")}, MaxTurns: 3},
			},
			Repetitions: 2, Concurrency: 2, OutDir: out, Progress: io.Discard,
			Setup: func(context.Context, Job) (*Runner, Target, error) {
				r := &Runner{UserModel: up.client(t), Ranker: NewRanker(rp.client(t)), Judge: NewJudge(jp.client(t)),
					CacheDir: cache, Clock: func() time.Time { return at }}
				return r, toolTarget(func(turn int) string { return []string{"search", "", "book"}[turn%3] }), nil
			},
		}
	}
	cold, warm := t.TempDir(), t.TempDir()
	_, err := batch(cold).Run(context.Background())
	require.NoError(t, err)
	calls := up.calls.Load() + rp.calls.Load() + jp.calls.Load()
	require.Positive(t, up.calls.Load())
	require.Positive(t, rp.calls.Load())
	require.Positive(t, jp.calls.Load())

	rep, err := batch(warm).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 4, rep.Ran)
	assert.Equal(t, calls, up.calls.Load()+rp.calls.Load()+jp.calls.Load(), "no simulator call from the cache")

	a, b := files(t, cold), files(t, warm)
	require.Len(t, b, len(a))
	for path, data := range a {
		other := b[strings.Replace(path, cold, warm, 1)]
		assert.Equal(t, string(data), string(other), filepath.Base(path))
	}
}

func TestRateLimitsAreSharedByABatchsWorkers(t *testing.T) {
	ap := newProvider(t, scripted.New(scripted.Forever(scripted.Reply("sure").WithUsage(0, 0))), always(0))
	var mu sync.Mutex
	var waits []time.Duration
	t0 := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	limit := &RateLimit{RequestsPerMinute: 60, Now: func() time.Time { return t0 },
		Sleep: func(_ context.Context, d time.Duration) error {
			mu.Lock()
			waits = append(waits, d)
			mu.Unlock()
			return nil
		}}
	b := &Batch{Scenarios: []*Scenario{{Name: "s", Goal: "g", MaxTurns: 2}}, Repetitions: 4, Concurrency: 4, Progress: io.Discard,
		Setup: func(context.Context, Job) (*Runner, Target, error) {
			agent := LimitModel(ap.client(t), limit)
			return &Runner{UserModel: stepUser()}, TargetFunc(func(ctx context.Context, h []*schema.Message) ([]*schema.Message, error) {
				m, err := agent.Generate(ctx, h)
				return []*schema.Message{m}, err
			}), nil
		}}
	rep, err := b.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 0, rep.Failed)
	// Eight calls at one instant, a second apart: the first goes at once,
	// the others wait 1 s to 7 s, whichever worker made them.
	require.Len(t, waits, 7)
	var sum time.Duration
	for _, w := range waits {
		sum += w
	}
	assert.Equal(t, 28*time.Second, sum)
}

func TestRateLimitCountsTokens(t *testing.T) {
	t0 := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	l := &RateLimit{TokensPerMinute: 600, Now: func() time.Time { return t0 }}
	assert.Equal(t, time.Duration(0), l.reserve(100))
	assert.Equal(t, 10*time.Second, l.reserve(100), "100 tokens take 10 s of a 600-token minute")
	l.settle(100, 300)
	assert.Equal(t, 40*time.Second, l.reserve(10), "the second call used 300 tokens, not 100")
}
