package drive

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

type testKey struct{}

var timeUp = &budget.ExceededError{Resource: budget.Time, Limit: 1000, Used: 1000}

// checkBudgetDeadline checks that err is the budget error of a deadline.
func checkBudgetDeadline(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, budget.ErrExceeded)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var ex *budget.ExceededError
	require.ErrorAs(t, err, &ex)
	assert.Same(t, timeUp, ex)
	var timeout interface{ Timeout() bool }
	require.ErrorAs(t, err, &timeout)
	assert.True(t, timeout.Timeout())
	assert.Equal(t, timeUp.Error(), err.Error())
}

func TestWithDeadlineErrIsTheBudgetError(t *testing.T) {
	ctx, cancel := withDeadline(context.Background(), time.Now().Add(-time.Second), timeUp)
	defer cancel()
	<-ctx.Done()
	checkBudgetDeadline(t, ctx.Err())
	assert.Same(t, timeUp, context.Cause(ctx))

	// Contexts derived after the deadline inherit the error.
	checkBudgetDeadline(t, context.WithValue(ctx, testKey{}, 1).Err())
	child, stop := context.WithCancel(ctx)
	defer stop()
	<-child.Done()
	checkBudgetDeadline(t, child.Err())
	assert.Same(t, timeUp, context.Cause(child))
}

// TestWithDeadlineDoneIsInnersChannel checks that the Done channel the
// deadline ctx keeps is its inner ctx's, which cancel closes, and that a
// ctx derived from it is canceled with it without a goroutine of its own:
// the context package recognises the channel as its parent's.
func TestWithDeadlineDoneIsInnersChannel(t *testing.T) {
	ctx, cancel := withDeadline(context.Background(), time.Now().Add(time.Hour), timeUp)
	d := ctx.(*deadlineCtx)
	assert.Equal(t, d.Context.Done(), ctx.Done())
	child, stop := context.WithCancel(context.WithValue(ctx, testKey{}, 1))
	defer stop()
	select {
	case <-ctx.Done():
		t.Fatal("done before the deadline")
	default:
	}
	cancel()
	<-ctx.Done()
	<-child.Done()
	assert.Equal(t, context.Canceled, ctx.Err())
	assert.Equal(t, context.Canceled, child.Err())
}

func TestWithDeadlineDerivedBeforeTheDeadline(t *testing.T) {
	ctx, cancel := withDeadline(context.Background(), time.Now().Add(time.Millisecond), timeUp)
	defer cancel()
	child, stop := context.WithCancel(ctx)
	defer stop()
	assert.NoError(t, ctx.Err())
	_, ok := child.Deadline()
	assert.True(t, ok, "the deadline is visible to derived contexts")

	<-child.Done()
	checkBudgetDeadline(t, ctx.Err())
	checkBudgetDeadline(t, context.WithValue(ctx, testKey{}, 1).Err())
	// A ctx with a cancellation of its own, made before the deadline,
	// reports the deadline, with the budget error as its cause.
	assert.Equal(t, context.DeadlineExceeded, child.Err())
	assert.Same(t, timeUp, context.Cause(child))
}

func TestWithDeadlineCancelledBeforeTheDeadline(t *testing.T) {
	t.Run("by its cancel func", func(t *testing.T) {
		ctx, cancel := withDeadline(context.Background(), time.Now().Add(time.Hour), timeUp)
		child, stop := context.WithCancel(ctx)
		defer stop()
		cancel()
		<-child.Done()
		assert.Equal(t, context.Canceled, ctx.Err())
		assert.Equal(t, context.Canceled, child.Err())
		assert.False(t, errors.Is(child.Err(), budget.ErrExceeded))
	})
	t.Run("by its parent", func(t *testing.T) {
		parent, cancelParent := context.WithCancelCause(context.Background())
		ctx, cancel := withDeadline(parent, time.Now().Add(time.Hour), timeUp)
		defer cancel()
		why := errors.New("caller gave up")
		cancelParent(why)
		<-ctx.Done()
		assert.Equal(t, context.Canceled, ctx.Err())
		assert.Equal(t, why, context.Cause(ctx))
	})
	t.Run("by the parent's earlier deadline", func(t *testing.T) {
		parent, cancelParent := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancelParent()
		ctx, cancel := withDeadline(parent, time.Now().Add(time.Hour), timeUp)
		defer cancel()
		<-ctx.Done()
		assert.Equal(t, context.DeadlineExceeded, ctx.Err())
		assert.False(t, errors.Is(ctx.Err(), budget.ErrExceeded))
	})
}

func TestExceededReturnsTheDeadlinesBudgetError(t *testing.T) {
	r := newTestRun(t, &lookout.Config{}, session.New(nil))
	ctx, cancel := withDeadline(context.Background(), time.Now().Add(-time.Second), timeUp)
	defer cancel()
	<-ctx.Done()
	checkBudgetDeadline(t, r.exceededNow(ctx))
	_, err := r.BeforeModel(ctx, nil, nil)
	checkBudgetDeadline(t, err)
}

func TestMoveDeadlineMovesAMovableDeadlineEarlier(t *testing.T) {
	movedUp := &budget.ExceededError{Resource: budget.Time, Limit: 500, Used: 500}
	t.Run("earlier ends the ctx then, with the budget error", func(t *testing.T) {
		ctx, cancel := withMovableDeadline(context.Background(), time.Now().Add(time.Hour), timeUp)
		defer cancel()
		child := context.WithValue(ctx, testKey{}, 1)
		d := time.Now().Add(-time.Second)
		moveDeadline(child, d, movedUp)
		got, ok := ctx.Deadline()
		assert.True(t, ok)
		assert.True(t, got.Equal(d))
		<-ctx.Done()
		err := ctx.Err()
		assert.ErrorIs(t, err, budget.ErrExceeded)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		var ex *budget.ExceededError
		require.ErrorAs(t, err, &ex)
		assert.Same(t, movedUp, ex)
		assert.Same(t, movedUp, context.Cause(ctx))
		assert.ErrorIs(t, child.Err(), budget.ErrExceeded)
	})
	t.Run("later is ignored", func(t *testing.T) {
		d := time.Now().Add(time.Hour)
		ctx, cancel := withMovableDeadline(context.Background(), d, timeUp)
		defer cancel()
		moveDeadline(ctx, d.Add(time.Hour), movedUp)
		got, _ := ctx.Deadline()
		assert.True(t, got.Equal(d))
		assert.NoError(t, ctx.Err())
	})
	t.Run("a released ctx is left as it is", func(t *testing.T) {
		ctx, cancel := withMovableDeadline(context.Background(), time.Now().Add(time.Hour), timeUp)
		cancel()
		moveDeadline(ctx, time.Now().Add(-time.Second), movedUp)
		assert.Equal(t, context.Canceled, ctx.Err())
	})
	t.Run("a ctx without a movable deadline is left as it is", func(t *testing.T) {
		ctx, cancel := withDeadline(context.Background(), time.Now().Add(time.Hour), timeUp)
		defer cancel()
		moveDeadline(ctx, time.Now().Add(-time.Second), movedUp)
		assert.NoError(t, ctx.Err())
	})
	t.Run("the first deadline still ends the ctx with its budget error", func(t *testing.T) {
		ctx, cancel := withMovableDeadline(context.Background(), time.Now().Add(-time.Second), timeUp)
		defer cancel()
		<-ctx.Done()
		checkBudgetDeadline(t, ctx.Err())
	})
}

// countingCtx counts the lookups that reach it.
type countingCtx struct {
	context.Context
	lookups atomic.Int64
}

func (c *countingCtx) Value(key any) any {
	c.lookups.Add(1)
	return c.Context.Value(key)
}

type numberedKey int

func TestAWithDeadlineCtxAnswersTheLookupsOfItsParentFromWhatItFound(t *testing.T) {
	below := &countingCtx{Context: context.WithValue(context.Background(), numberedKey(0), "zero")}
	ctx, cancel := withDeadline(below, time.Now().Add(time.Hour), timeUp)
	defer cancel()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				for k := range 16 {
					want := any(nil)
					if k == 0 {
						want = "zero"
					}
					assert.Equal(t, want, ctx.Value(numberedKey(k)), "key %d", k)
				}
			}
		}()
	}
	wg.Wait()
	// Twelve keys are kept: the first lookups of those reach the parent,
	// every lookup of the other four does.
	assert.LessOrEqual(t, below.lookups.Load(), int64(4*foundKept+4*3*4))
	assert.GreaterOrEqual(t, below.lookups.Load(), int64(foundKept+4*3*4))
}

type (
	stringKey string
	pairKey   struct{ a, b int }
	emptyKey  struct{}
	otherKey  struct{}
)

// TestFoundValuesAnswerAsTheParentDoes looks keys of many kinds up, equal
// keys in different boxes among them, through a withDeadline ctx and
// straight in its parent: the answers are the same, first and kept.
func TestFoundValuesAnswerAsTheParentDoes(t *testing.T) {
	box := func(k any) any { return k }
	dyn := func(s string) stringKey { return stringKey(strings.Clone(s)) }
	one, two := new(int), new(int)
	parent := context.Background()
	for i, k := range []any{stringKey("a"), pairKey{1, 2}, emptyKey{}, one, numberedKey(300), "plain"} {
		parent = context.WithValue(parent, k, i)
	}
	ctx, cancel := withDeadline(parent, time.Now().Add(time.Hour), timeUp)
	defer cancel()
	keys := []any{
		dyn("a"), dyn("b"), box(pairKey{1, 2}), box(pairKey{2, 1}), emptyKey{}, otherKey{},
		one, two, box(numberedKey(300)), numberedKey(301), strings.Clone("plain"), "other",
		numberedKey(1), numberedKey(2), numberedKey(3), numberedKey(4), numberedKey(5),
	}
	for range 3 {
		for _, k := range keys {
			assert.Equal(t, parent.Value(k), ctx.Value(k), "key %#v", k)
		}
	}
	dc := ctx.(*deadlineCtx)
	assert.EqualValues(t, foundKept, dc.found.n.Load(), "the table keeps as many keys as it may")
}

// TestFoundValuesPutLooksOnlyAtEntriesAddedSinceGet checks that put, told
// how many entries get looked at, finds a key another lookup kept in the
// meantime and keeps it once, and that get's one pass finds a key by
// value in another box.
func TestFoundValuesPutLooksOnlyAtEntriesAddedSinceGet(t *testing.T) {
	var f foundValues
	_, ok, seen := f.get(numberedKey(1))
	require.False(t, ok)
	require.Equal(t, 0, seen)
	f.put(numberedKey(1), "one", seen)

	key := any(stringKey(strings.Clone("two")))
	_, ok, seen = f.get(key)
	require.False(t, ok)
	require.Equal(t, 1, seen)
	f.put(key, "two", 1) // another lookup of the key, first to keep it
	f.put(key, "two", seen)
	assert.EqualValues(t, 2, f.n.Load(), "a key kept since get looked is kept once")

	v, ok, _ := f.get(stringKey(strings.Clone("two")))
	assert.True(t, ok, "found by value in another box")
	assert.Equal(t, "two", v)
	v, ok, _ = f.get(numberedKey(1))
	assert.True(t, ok)
	assert.Equal(t, "one", v)
	_, ok, seen = f.get(numberedKey(2))
	assert.False(t, ok)
	assert.Equal(t, 2, seen)
}

// TestFoundValuesMissWithAFreeSlotSkipsTheEntries checks that get, for a
// key whose home or second slot is free, does not pass over the entries:
// put would have taken the free slot for a kept key. An entry put there
// by hand, without its slots, stays unseen; once both slots are taken,
// get looks the entries over.
func TestFoundValuesMissWithAFreeSlotSkipsTheEntries(t *testing.T) {
	var f foundValues
	k := any(numberedKey(7))
	w := wordsOf(&k)
	if homeOf(w.typ) == secondOf(w.typ) {
		t.Skip("the key's type has one slot for both")
	}
	f.entries[0] = foundEntry{typ: w.typ, data: w.data, value: "seven"}
	f.n.Store(1)
	_, ok, seen := f.get(k)
	assert.False(t, ok, "the entries were looked at with both slots free")
	assert.Equal(t, 1, seen)

	other := &foundEntry{typ: unsafe.Pointer(new(byte))}
	f.slots[homeOf(w.typ)].Store(other)
	_, ok, _ = f.get(k)
	assert.False(t, ok, "the entries were looked at with the second slot free")

	f.slots[secondOf(w.typ)].Store(other)
	v, ok, _ := f.get(k)
	assert.True(t, ok, "with both slots taken, the entries are looked at")
	assert.Equal(t, "seven", v)
}
