package summary

import (
	"context"
	"errors"
	"sync"

	"github.com/lookout-go/lookout/recorder"
)

// DefaultMaxPendingRecords bounds the records an Online keeps for the runs
// it has not summarized yet.
const DefaultMaxPendingRecords = 100_000

// OnlineConfig configures an Online summarizer.
//
// It is plain data, read once by NewOnline.
type OnlineConfig struct {
	// Summarizer writes the summaries, with its own concurrency and
	// retries for the prompts of one run. Required.
	Summarizer *Summarizer
	// Next receives every record, unchanged, before Online looks at it:
	// the sink the records would go to without summaries. Nil drops them.
	Next recorder.Sink
	// Concurrency bounds the runs summarized at once. Zero means
	// DefaultConcurrency.
	Concurrency int
	// MaxPendingRecords bounds the records kept for runs still going.
	// Zero means DefaultMaxPendingRecords.
	MaxPendingRecords int
	// OnSummary, when set, gets each prompt once it is summarized or has
	// failed, one call at a time.
	OnSummary func(Prompt)
}

// Online produces a summary of each prompt as soon as the run that
// answered it ends, while the agent goes on: the design of a summary after
// each prompt, kept beside the conversation rather than in it.
//
// Online is a recorder.Sink: give it to the recorder that an adapter
// (lookoutadk, lookoutreact) records through, with the sink the records
// should reach as Next. It keeps the records of every top-level run and of
// the runs it starts, and when the top-level run ends, summarizes its
// prompts in the background; Write never waits for a model. Each prompt
// can then be looked up by conversation and turn (see Prompt.Conversation;
// a run carrying MetaConversation and MetaTurn metadata is placed in its
// conversation, any other run is a conversation of its own).
//
// Runs that end faster than their prompts are summarized wait for their
// turn, with their records, in memory; at most MaxPendingRecords are kept
// for runs still going (Dropped counts the rest, which reach Next all the
// same). Flush waits for the summaries under way; Close also closes Next. An
// Online is safe for concurrent use.
type Online struct {
	s         *Summarizer
	next      recorder.Sink
	maxRecs   int
	onSummary func(Prompt)
	sem       chan struct{}
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup

	mu       sync.Mutex
	root     map[string]string            // run id to its top-level run's id
	pending  map[string][]recorder.Record // by top-level run
	held     int
	dropped  int
	prompts  Prompts
	byPlace  map[placeKey]int // index in prompts
	failures int
}

type placeKey struct {
	conversation string
	turn         int
}

// NewOnline returns an Online. It fails with ErrNoModel without a
// Summarizer.
func NewOnline(cfg OnlineConfig) (*Online, error) {
	if cfg.Summarizer == nil || cfg.Summarizer.model == nil {
		return nil, ErrNoModel
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Online{
		s: cfg.Summarizer, next: cfg.Next, maxRecs: orDefault(cfg.MaxPendingRecords, DefaultMaxPendingRecords),
		onSummary: cfg.OnSummary, sem: make(chan struct{}, orDefault(cfg.Concurrency, DefaultConcurrency)),
		ctx: ctx, cancel: cancel,
		root: map[string]string{}, pending: map[string][]recorder.Record{}, byPlace: map[placeKey]int{},
	}, nil
}

// Write passes r to Next, then keeps it for its run's summary; once r ends
// a top-level run, the run's prompts are summarized in the background.
func (o *Online) Write(ctx context.Context, r *recorder.Record) error {
	var err error
	if o.next != nil {
		err = o.next.Write(ctx, r)
	}
	if r == nil {
		return err
	}
	if done := o.keep(r); done != nil {
		o.wg.Add(1)
		go o.summarize(done)
	}
	return err
}

// keep files r under its top-level run and returns the run's records when
// r ends it.
func (o *Online) keep(r *recorder.Record) []recorder.Record {
	o.mu.Lock()
	defer o.mu.Unlock()
	top := o.topOf(r)
	o.root[r.RunID] = top
	o.hold(top, r)
	if r.Kind() != recorder.KindRunEnded || r.ParentRunID != "" {
		return nil
	}
	return o.release(top)
}

// topOf returns the top-level run r belongs to. The caller holds o.mu.
func (o *Online) topOf(r *recorder.Record) string {
	if r.ParentRunID == "" {
		return r.RunID
	}
	if t, ok := o.root[r.ParentRunID]; ok {
		return t
	}
	return r.ParentRunID
}

// hold files r under the top-level run top, or counts it dropped when
// MaxPendingRecords are already held. The caller holds o.mu.
func (o *Online) hold(top string, r *recorder.Record) {
	if o.held >= o.maxRecs {
		o.dropped++
		return
	}
	o.pending[top] = append(o.pending[top], *r)
	o.held++
}

// release forgets the top-level run top and its descendants and returns
// the records held for them. The caller holds o.mu.
func (o *Online) release(top string) []recorder.Record {
	recs := o.pending[top]
	delete(o.pending, top)
	o.held -= len(recs)
	for id, t := range o.root {
		if t == top {
			delete(o.root, id)
		}
	}
	return recs
}

func (o *Online) summarize(recs []recorder.Record) {
	defer o.wg.Done()
	select {
	case o.sem <- struct{}{}:
	case <-o.ctx.Done():
		return
	}
	defer func() { <-o.sem }()
	ps, _ := o.s.Summarize(o.ctx, recs)
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range ps {
		if p.Error != "" {
			o.failures++
		}
		o.byPlace[placeKey{p.Conversation, p.Turn}] = len(o.prompts)
		o.prompts = append(o.prompts, p)
		if o.onSummary != nil {
			o.onSummary(p)
		}
	}
}

// Lookup returns the summary of a conversation's turn, once its run has
// ended and the summary is done.
func (o *Online) Lookup(conversation string, turn int) (Prompt, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i, ok := o.byPlace[placeKey{conversation, turn}]
	if !ok {
		return Prompt{}, false
	}
	return o.prompts[i], true
}

// Prompts returns the prompts summarized so far, in the order they were
// done.
func (o *Online) Prompts() Prompts {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append(Prompts(nil), o.prompts...)
}

// Failed counts the prompts whose summary failed.
func (o *Online) Failed() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.failures
}

// Dropped counts the records left out of summaries because
// MaxPendingRecords were already waiting.
func (o *Online) Dropped() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dropped
}

// Flush flushes Next and waits for the summaries under way, or for ctx
// to end.
func (o *Online) Flush(ctx context.Context) error {
	var err error
	if f, ok := o.next.(recorder.Flusher); ok {
		err = f.Flush(ctx)
	}
	done := make(chan struct{})
	go func() {
		o.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return err
	case <-ctx.Done():
		return errors.Join(err, ctx.Err())
	}
}

// Close waits for the summaries under way (abandoning them when ctx ends)
// and closes Next.
func (o *Online) Close(ctx context.Context) error {
	err := o.Flush(ctx)
	o.cancel()
	o.wg.Wait()
	if c, ok := o.next.(recorder.Closer); ok {
		err = errors.Join(err, c.Close(ctx))
	}
	return err
}
