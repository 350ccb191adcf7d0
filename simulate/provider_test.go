package simulate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

// provider serves OpenAI chat completions from a scripted model on
// loopback, failing the calls that fail picks with its HTTP status.
type provider struct {
	srv   *httptest.Server
	calls atomic.Int64
}

func newProvider(t *testing.T, m *scripted.Model, fail func() int) *provider {
	t.Helper()
	p := &provider{}
	h := scripted.OpenAIHandler(m)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.calls.Add(1)
		if code := fail(); code != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"error":{"message":"injected %d","type":"server_error"}}`, code)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// client is the eino-ext OpenAI client pointed at the provider.
func (p *provider) client(t *testing.T) model.ToolCallingChatModel {
	t.Helper()
	cm, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{BaseURL: p.srv.URL + "/v1", APIKey: "k", Model: "m"})
	require.NoError(t, err)
	return cm
}

func always(code int) func() int { return func() int { return code } }

// randomly fails a share of calls with code, from a seeded source.
func randomly(share float64, code int, seed uint64) func() int {
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(seed, 1))
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		if r.Float64() < share {
			return code
		}
		return 0
	}
}

// instantRetry retries without waiting, and records the waits it was
// asked for.
type instantRetry struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (ir *instantRetry) retry(attempts int) *Retry {
	return &Retry{MaxAttempts: attempts, Rand: func() float64 { return 0.5 }, Sleep: func(_ context.Context, d time.Duration) error {
		ir.mu.Lock()
		ir.waits = append(ir.waits, d)
		ir.mu.Unlock()
		return nil
	}}
}

func twoSteps() *Graph {
	return &Graph{Steps: []Step{{ID: "a", Instruction: "do a"}, {ID: "b", Instruction: "do b"}}}
}

const bothScores = `{"scores":[{"stepId":"a","score":0.9},{"stepId":"b","score":0.8}]}`

func TestRankerOutage(t *testing.T) {
	ctx := context.Background()
	run := func(t *testing.T, rankModel *scripted.Model, fail func() int) (*Report, string) {
		t.Helper()
		rp := newProvider(t, rankModel, fail)
		var ir instantRetry
		out := t.TempDir()
		b := &Batch{
			Scenarios: []*Scenario{{Name: "s", Goal: "g", Graph: twoSteps(), MaxTurns: 3}}, Repetitions: 2, OutDir: out, Progress: io.Discard,
			Setup: func(context.Context, Job) (*Runner, Target, error) {
				return &Runner{UserModel: stepUser(), Ranker: NewRanker(rp.client(t)), Retry: ir.retry(3)}, echoTarget(), nil
			},
		}
		rep, err := b.Run(ctx)
		require.NoError(t, err)
		return rep, out
	}
	noDone := func(t *testing.T, rep *Report) {
		t.Helper()
		for _, j := range rep.Jobs {
			assert.NoFileExists(t, filepath.Join(j.Dir, DoneFile))
		}
	}

	t.Run("malformed answers fail the run on the ranker's side, with no done.json", func(t *testing.T) {
		rep, _ := run(t, scripted.New(scripted.Forever(scripted.Reply("I think a is best"))), always(0))
		assert.Equal(t, 2, rep.Failed)
		for _, j := range rep.Jobs {
			assert.ErrorIs(t, j.Err, ErrRanker)
			assert.Equal(t, SideRanker, j.End.ErrorSide)
			assert.Equal(t, "rank", j.End.ErrorOp)
			assert.Equal(t, StopError, j.End.Reason)
		}
		noDone(t, rep)
	})

	t.Run("HTTP 500 after retries fails the run as infrastructure, in the ranker, with no done.json", func(t *testing.T) {
		rep, _ := run(t, scripted.New(scripted.Forever(scripted.Reply(bothScores))), always(500))
		assert.Equal(t, 2, rep.Failed)
		for _, j := range rep.Jobs {
			assert.ErrorIs(t, j.Err, ErrInfrastructure)
			assert.Equal(t, SideInfrastructure, j.End.ErrorSide)
			assert.Equal(t, "rank", j.End.ErrorOp)
		}
		noDone(t, rep)
	})

	t.Run("a resumed batch runs them again once the ranker is back", func(t *testing.T) {
		var down atomic.Bool
		down.Store(true)
		fail := func() int {
			if down.Load() {
				return 429
			}
			return 0
		}
		rp := newProvider(t, scripted.New(scripted.Forever(scripted.Reply(bothScores))), fail)
		out := t.TempDir()
		var ir instantRetry
		b := &Batch{
			Scenarios: []*Scenario{{Name: "s", Goal: "g", Graph: twoSteps(), MaxTurns: 3}}, Repetitions: 4, OutDir: out, Progress: io.Discard,
			Setup: func(context.Context, Job) (*Runner, Target, error) {
				return &Runner{UserModel: stepUser(), Ranker: NewRanker(rp.client(t)), Retry: ir.retry(2)}, echoTarget(), nil
			},
		}
		rep, err := b.Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, 4, rep.Failed)
		down.Store(false)
		rep, err = b.Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, 0, rep.Skipped)
		assert.Equal(t, 0, rep.Failed)
		assert.Equal(t, 4, rep.Ran)
	})

	t.Run("a scenario that degrades goes on without a step, and counts it", func(t *testing.T) {
		rp := newProvider(t, scripted.New(scripted.Forever(scripted.Reply("no idea"))), always(0))
		sc := &Scenario{Goal: "g", Graph: twoSteps(), MaxTurns: 3, OnRankerFailure: RankerDegrade}
		res, err := (&Runner{UserModel: stepUser(), Ranker: NewRanker(rp.client(t))}).Run(ctx, sc, echoTarget())
		require.NoError(t, err)
		assert.Equal(t, StopMaxTurns, res.End.Reason)
		assert.Equal(t, 3, res.End.DegradedTurns)
		assert.True(t, res.Traces[0].Selection.Degraded)
	})
}

func TestProviderFailuresAreInfrastructure(t *testing.T) {
	ctx := context.Background()
	t.Run("the agent's model", func(t *testing.T) {
		ap := newProvider(t, scripted.New(scripted.Forever(scripted.Reply("ok"))), always(503))
		agent := ap.client(t)
		target := TargetFunc(func(ctx context.Context, h []*schema.Message) ([]*schema.Message, error) {
			m, err := agent.Generate(ctx, h)
			if err != nil {
				return nil, err
			}
			return []*schema.Message{m}, nil
		})
		res, err := (&Runner{UserModel: stepUser()}).Run(ctx, &Scenario{Goal: "g"}, target)
		assert.ErrorIs(t, err, ErrInfrastructure)
		assert.NotErrorIs(t, err, ErrAgent)
		assert.Equal(t, "respond", res.End.ErrorOp)
	})
	t.Run("the agent's model through RetryModel, counted with its attempts", func(t *testing.T) {
		ap := newProvider(t, scripted.New(scripted.Forever(scripted.Reply("ok"))), always(503))
		var ir instantRetry
		agent := RetryModel(ap.client(t), ir.retry(3))
		target := TargetFunc(func(ctx context.Context, h []*schema.Message) ([]*schema.Message, error) {
			m, err := agent.Generate(ctx, h)
			if err != nil {
				return nil, err
			}
			return []*schema.Message{m}, nil
		})
		out := t.TempDir()
		b := &Batch{Scenarios: []*Scenario{{Name: "s", Goal: "g"}}, OutDir: out, Progress: io.Discard,
			Runner: &Runner{UserModel: stepUser()}, Target: target}
		rep, err := b.Run(ctx)
		require.NoError(t, err)
		assert.ErrorIs(t, rep.Jobs[0].Err, ErrInfrastructure)
		s, err := ReadBatch([]string{out}, nil, nil)
		require.NoError(t, err)
		agentUse := s.PerConversation.ByRole[RoleAgent]
		assert.Equal(t, RoleUsage{Calls: 1, Attempts: 3, Failures: 1}, agentUse)
		assert.Equal(t, int64(3), ap.calls.Load())
	})
	t.Run("the user's model, after its retries", func(t *testing.T) {
		up := newProvider(t, scripted.New(scripted.Forever(scripted.Reply("hi"))), always(429))
		var ir instantRetry
		res, err := (&Runner{UserModel: up.client(t), Retry: ir.retry(4)}).Run(ctx, &Scenario{Goal: "g"}, echoTarget())
		assert.ErrorIs(t, err, ErrInfrastructure)
		assert.Equal(t, "user", res.End.ErrorOp)
		assert.Equal(t, int64(4), up.calls.Load())
		assert.Equal(t, &ModelUsage{Calls: 1, Attempts: 4, Failures: 1}, res.Usage[RoleUser])
		assert.Len(t, ir.waits, 3)
	})
	t.Run("an error that is not transient is not retried", func(t *testing.T) {
		up := newProvider(t, scripted.New(scripted.Forever(scripted.Reply("hi"))), always(400))
		res, err := (&Runner{UserModel: up.client(t)}).Run(ctx, &Scenario{Goal: "g"}, echoTarget())
		assert.ErrorIs(t, err, ErrSimulator)
		assert.Equal(t, SideSimulator, res.End.ErrorSide)
		assert.Equal(t, int64(1), up.calls.Load())
	})
}

// With 429s on 5% of the HTTP calls of the user's, the ranker's and the
// agent's models, retries leave no run blamed on the agent.
func TestRateLimitsAreRetriedAndNeverBlamedOnTheAgent(t *testing.T) {
	ctx := context.Background()
	var ir instantRetry
	retry := ir.retry(5)
	const runs = 200
	var seed atomic.Uint64
	setup := func(context.Context, Job) (*Runner, Target, error) {
		n := seed.Add(1)
		up := newProvider(t, scripted.New(scripted.Forever(scripted.Reply("I want a trip").WithUsage(20, 5))), randomly(0.05, 429, n))
		rp := newProvider(t, scripted.New(scripted.Forever(scripted.Reply(bothScores))), randomly(0.05, 429, n+1000))
		ap := newProvider(t, scripted.New(scripted.Forever(scripted.Reply("sure").WithUsage(100, 10))), randomly(0.05, 429, n+2000))
		agent := RetryModel(ap.client(t), retry)
		target := TargetFunc(func(ctx context.Context, h []*schema.Message) ([]*schema.Message, error) {
			m, err := agent.Generate(ctx, h)
			if err != nil {
				return nil, err
			}
			return []*schema.Message{m}, nil
		})
		r := &Runner{UserModel: up.client(t), Ranker: NewRanker(rp.client(t)), Retry: retry,
			ModelNames: ModelNames{User: "user-model", Ranker: "rank-model", Agent: "agent-model"}}
		return r, target, nil
	}
	var mu sync.Mutex
	calls, attempts := map[string]int{}, map[string]int{}
	b := &Batch{Scenarios: []*Scenario{{Name: "trip", Goal: "g", Graph: twoSteps(), MaxTurns: 3}}, Repetitions: runs, Concurrency: 8, Setup: setup, Progress: io.Discard,
		OnResult: func(_ Job, r *Result, _ error) {
			mu.Lock()
			defer mu.Unlock()
			for role, u := range r.Usage {
				calls[role] += u.Calls
				attempts[role] += u.Attempts
			}
		}}
	rep, err := b.Run(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Jobs, runs)
	for _, j := range rep.Jobs {
		assert.NotErrorIs(t, j.Err, ErrAgent, j.Job.ID)
		if j.Err != nil {
			assert.Equal(t, SideInfrastructure, j.End.ErrorSide, j.Job.ID)
		}
	}
	assert.Equal(t, 0, rep.Failed, "with five attempts a call fails 0.05^5 of the time")
	assert.NotEmpty(t, ir.waits, "some calls were retried")
	for _, role := range []string{RoleUser, RoleRanker, RoleAgent} {
		assert.Greater(t, attempts[role], calls[role], "%s: the retries are counted", role)
	}
	assert.Equal(t, runs*2, calls[RoleUser], "both steps are done in two turns")
}

func TestRetry(t *testing.T) {
	ctx := context.Background()
	transient := fmt.Errorf("call: %w", &httpError{code: 503})
	t.Run("backs off exponentially, with jitter, capped", func(t *testing.T) {
		var ir instantRetry
		r := ir.retry(6)
		r.BaseDelay, r.MaxDelay = time.Second, 5*time.Second
		jitter := []float64{0, 0.5, 0.99, 0, 0}
		r.Rand = func() float64 { j := jitter[0]; jitter = jitter[1:]; return j }
		n, err := r.Do(ctx, func(context.Context) error { return transient })
		assert.Equal(t, 6, n)
		assert.Equal(t, transient, err)
		ms := time.Millisecond
		assert.Equal(t, []time.Duration{500 * ms, 1500 * ms, 3980 * ms, 2500 * ms, 2500 * ms}, ir.waits)
	})
	t.Run("stops at success", func(t *testing.T) {
		var ir instantRetry
		calls := 0
		n, err := ir.retry(5).Do(ctx, func(context.Context) error {
			calls++
			if calls < 3 {
				return transient
			}
			return nil
		})
		assert.NoError(t, err)
		assert.Equal(t, 3, n)
	})
	t.Run("never waits past the context's deadline", func(t *testing.T) {
		var ir instantRetry
		r := ir.retry(10)
		r.BaseDelay = time.Second
		// A deadline two and a half seconds away allows waits of 0.75 s
		// and 1.5 s, not the 3 s after them.
		dl := time.Now().Add(time.Hour)
		dctx, cancel := context.WithDeadline(ctx, dl)
		defer cancel()
		r.Now = func() time.Time { return dl.Add(-2500 * time.Millisecond) }
		n, err := r.Do(dctx, func(context.Context) error { return transient })
		assert.Equal(t, transient, err)
		assert.Equal(t, 3, n)
		assert.Equal(t, []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}, ir.waits)
	})
	t.Run("stops when the context ends", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		r := &Retry{Sleep: func(context.Context, time.Duration) error { cancel(); return context.Canceled }}
		n, err := r.Do(cctx, func(context.Context) error { return transient })
		assert.Equal(t, 1, n)
		assert.Equal(t, transient, err)
	})
}

type httpError struct{ code int }

func (e *httpError) Error() string   { return fmt.Sprintf("http %d", e.code) }
func (e *httpError) StatusCode() int { return e.code }

type fieldError struct{ HTTPStatusCode int }

func (e *fieldError) Error() string { return "api error" }

func TestIsTransient(t *testing.T) {
	yes := []error{
		&httpError{429}, &httpError{500}, &httpError{503}, &httpError{408},
		fmt.Errorf("x: %w", &fieldError{HTTPStatusCode: 502}),
		errors.New("error, status code: 429, status: 429 Too Many Requests, message: slow down"),
		context.DeadlineExceeded, fmt.Errorf("read: %w", errors.New("connection reset by peer")),
		errors.New(`Post "http://127.0.0.1/v1/chat/completions": EOF`),
		&os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET},
	}
	no := []error{nil, &httpError{400}, &httpError{401}, &fieldError{HTTPStatusCode: 404}, context.Canceled, errors.New("bad json"), ErrBadRanking}
	for _, e := range yes {
		assert.True(t, IsTransient(e), "%v", e)
	}
	for _, e := range no {
		assert.False(t, IsTransient(e), "%v", e)
	}
}
