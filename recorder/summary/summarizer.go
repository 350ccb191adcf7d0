package summary

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
	"github.com/lookout-go/lookout/recorder"
)

// Defaults for Config.
const (
	// DefaultMaxFieldBytes cuts each text in a summary request (the query,
	// the answer, every tool argument, output and message).
	DefaultMaxFieldBytes = 1 << 10
	// DefaultMaxRequestBytes bounds a whole summary request; entries are
	// left out of the middle of the trajectory to stay under it.
	DefaultMaxRequestBytes = 24 << 10
)

// Config configures a Summarizer. New reads it once and keeps no
// reference to it, so a Config may be reused or changed afterwards; it is
// plain data, not safe for concurrent modification. The zero Config has
// no model, which New rejects; every other field has a default.
type Config struct {
	// Model writes the summaries. It is required.
	Model model.BaseChatModel

	// Options are passed to every model call, for example
	// model.WithTemperature(0).
	Options []model.Option

	// Clock stamps Prompt.SummarizedAt. The default is time.Now.
	Clock func() time.Time

	// MaxFieldBytes cuts each text in a request. Zero means
	// DefaultMaxFieldBytes.
	MaxFieldBytes int

	// MaxRequestBytes bounds the user message of each request: the
	// query and the final answer take at most a quarter of it each, and
	// entries are left out of the middle of the trajectory to stay under
	// it. Zero means DefaultMaxRequestBytes.
	MaxRequestBytes int

	// Concurrency bounds the model calls in flight. Zero means
	// DefaultConcurrency.
	Concurrency int

	// MaxAttempts bounds the calls made for one prompt: a call that fails,
	// or answers without a usable summary, is tried again after a wait of
	// about RetryDelay × 2ⁿ⁻¹ (capped at 30s, with jitter), unless ctx has
	// ended or its deadline would pass during the wait. Zero means
	// DefaultMaxAttempts; 1 disables retries. Zero RetryDelay means 500ms.
	MaxAttempts int
	RetryDelay  time.Duration

	// Sleep waits between attempts; nil waits on a timer or until ctx
	// ends. Tests inject it so that no time passes.
	Sleep func(ctx context.Context, d time.Duration) error

	// Previous holds prompts summarized before, by an interrupted run of
	// the same records for example: a prompt of Previous with a summary
	// and the same RunID and Seq is taken as it is, not sent again.
	Previous Prompts

	// OnPrompt, when set, is called with each prompt as soon as it is
	// summarized or has failed, one call at a time, so that progress can
	// be saved as it is made.
	OnPrompt func(Prompt)
}

// Defaults for Config's scale settings.
const (
	DefaultConcurrency = 4
	DefaultMaxAttempts = 3
)

// Summarizer asks a chat model to summarize each user prompt of a
// trajectory: what the agent did, why it chose its tools, what it found and
// how confident the trajectory makes its answer.
//
// A Summarizer is safe for concurrent use when its model is. The zero
// Summarizer has no model: Summarize reports ErrNoModel for every prompt.
type Summarizer struct {
	model    model.BaseChatModel
	clock    func() time.Time
	maxField int
	maxReq   int

	// opts has no spare capacity, so that a model appending to the
	// options it is given copies them rather than writing into a slice
	// that concurrent calls share.
	opts []model.Option

	concurrency int
	attempts    int
	delay       time.Duration
	sleep       func(ctx context.Context, d time.Duration) error
	previous    map[promptKey]Prompt
	onPrompt    func(Prompt)
	onPromptMu  sync.Mutex
}

type promptKey struct {
	run string
	seq uint64
}

// New returns a Summarizer. It fails with ErrNoModel when cfg or
// cfg.Model is nil.
func New(cfg *Config) (*Summarizer, error) {
	if cfg == nil || cfg.Model == nil {
		return nil, ErrNoModel
	}
	s := &Summarizer{
		model:       cfg.Model,
		opts:        slices.Clip(slices.Clone(cfg.Options)),
		clock:       cfg.Clock,
		maxField:    orDefault(cfg.MaxFieldBytes, DefaultMaxFieldBytes),
		maxReq:      orDefault(cfg.MaxRequestBytes, DefaultMaxRequestBytes),
		concurrency: orDefault(cfg.Concurrency, DefaultConcurrency),
		attempts:    orDefault(cfg.MaxAttempts, DefaultMaxAttempts),
		delay:       orDefault(cfg.RetryDelay, 500*time.Millisecond),
		sleep:       cfg.Sleep,
		onPrompt:    cfg.OnPrompt,
		previous:    summarizedBefore(cfg.Previous),
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.sleep == nil {
		s.sleep = sleepCtx
	}
	return s, nil
}

// summarizedBefore returns the prompts of prev that were summarized, by
// run and seq, or nil when there are none.
func summarizedBefore(prev []Prompt) map[promptKey]Prompt {
	var out map[promptKey]Prompt
	for _, p := range prev {
		if p.Summary == "" || p.Error != "" {
			continue
		}
		if out == nil {
			out = map[promptKey]Prompt{}
		}
		out[promptKey{p.RunID, p.Seq}] = p
	}
	return out
}

// orDefault returns n when it is positive, and def otherwise.
func orDefault[T int | time.Duration](n, def T) T {
	if n > 0 {
		return n
	}
	return def
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Summarize splits records into prompts (see Split) and asks the model to
// summarize each one, up to Config.Concurrency at a time, each with up to
// Config.MaxAttempts calls. Prompts found summarized in Config.Previous are
// not sent again.
//
// It always returns every prompt, in the order of Split. A prompt whose
// model calls fail, panic or answer without a usable summary keeps its
// counted fields, has its Error set, and contributes a *PromptError to the
// returned error, which joins them all (nil when every prompt was
// summarized). Once ctx is done, the remaining prompts are not sent and
// fail with ctx's error.
func (s *Summarizer) Summarize(ctx context.Context, records []recorder.Record) (Prompts, error) {
	segs := split(records)
	out := make(Prompts, len(segs))
	errs := make([]error, len(segs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(s.workers(), len(segs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				out[i], errs[i] = s.one(ctx, segs[i])
			}
		}()
	}
	for i := range segs {
		work <- i
	}
	close(work)
	wg.Wait()
	return out, errors.Join(errs...)
}

func (s *Summarizer) workers() int {
	if s == nil || s.concurrency <= 0 {
		return 1
	}
	return s.concurrency
}

// one summarizes the prompt of seg, or takes it from Previous, and hands
// it to OnPrompt.
func (s *Summarizer) one(ctx context.Context, seg segment) (Prompt, error) {
	p := seg.prompt
	var perr error
	if prev, ok := s.previousOf(p); ok {
		p.Summary, p.Rationale, p.Findings, p.Confidence = prev.Summary, prev.Rationale, prev.Findings, prev.Confidence
		p.SummarizedAt, p.Attempts = prev.SummarizedAt, prev.Attempts
	} else if err := s.retried(ctx, seg, &p); err != nil {
		p.Error = err.Error()
		perr = &PromptError{RunID: p.RunID, Seq: p.Seq, Err: err}
	}
	if s != nil && s.onPrompt != nil {
		s.onPromptMu.Lock()
		s.onPrompt(p)
		s.onPromptMu.Unlock()
	}
	return p, perr
}

func (s *Summarizer) previousOf(p Prompt) (Prompt, bool) {
	if s == nil {
		return Prompt{}, false
	}
	prev, ok := s.previous[promptKey{p.RunID, p.Seq}]
	return prev, ok
}

// retried summarizes seg into p, trying again after failures, and counts
// the attempts in p.
func (s *Summarizer) retried(ctx context.Context, seg segment, p *Prompt) error {
	for n := 1; ; n++ {
		p.Attempts = n
		err := s.summarize(ctx, seg, p)
		if s.final(ctx, err, n) || !s.pause(ctx, n) {
			return err
		}
	}
}

// final reports whether attempt n, which ended with err, is the last one:
// it succeeded, ctx is done, there is no model, or no attempts are left.
func (s *Summarizer) final(ctx context.Context, err error, n int) bool {
	return err == nil || ctx.Err() != nil || errors.Is(err, ErrNoModel) || n >= s.attempts
}

// pause waits before the retry that follows attempt n, and reports false,
// for no retry, when ctx's deadline would come first or ctx ends while
// waiting.
func (s *Summarizer) pause(ctx context.Context, n int) bool {
	d := backoff(s.delay, n)
	if dl, ok := ctx.Deadline(); ok && !time.Now().Add(d).Before(dl) {
		return false
	}
	return s.sleep(ctx, d) == nil
}

// backoff is the wait before retry n (1 for the first): base × 2ⁿ⁻¹,
// capped at 30s, between half of that and all of it.
func backoff(base time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < 30*time.Second; i++ {
		d *= 2
	}
	d = min(d, 30*time.Second)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

func (s *Summarizer) summarize(ctx context.Context, seg segment, p *Prompt) error {
	if s == nil || s.model == nil {
		return ErrNoModel
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	in := []*schema.Message{
		schema.SystemMessage(instructions),
		schema.UserMessage(request(seg, s.maxField, s.maxReq)),
	}
	msg, err := s.generate(ctx, in)
	if err != nil {
		return err
	}
	a, err := parseAnswer(msgtext.Of(msg))
	if err != nil {
		return err
	}
	p.Summary, p.Rationale, p.Findings, p.Confidence = a.summary, a.rationale, a.findings, a.confidence
	p.SummarizedAt = s.clock()
	return nil
}

// generate calls the model, turning a panic or a nil message into an
// error wrapping ErrModel.
func (s *Summarizer) generate(ctx context.Context, in []*schema.Message) (msg *schema.Message, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg, err = nil, fmt.Errorf("%w: panic: %v", ErrModel, r)
		}
	}()
	msg, err = s.model.Generate(ctx, in, s.opts...)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrModel, err)
	}
	if msg == nil {
		return nil, fmt.Errorf("%w: no message returned", ErrModel)
	}
	return msg, nil
}
