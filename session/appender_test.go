package session_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/internal/sessionhook"
	"github.com/lookout-go/lookout/session"
)

// An Appender appends as AppendFuncAt does, the entry filled in the
// log's storage between Reserve and Release: at the time given, raised
// to the newest entry's, at the next position, counted by Total and kept
// within the retention.
func TestAppenderAppendsAsAppendFuncAtDoes(t *testing.T) {
	clock := &fakeClock{t: t0, step: time.Second}
	s := session.New(&session.StoreOptions{Now: clock.Now, Retention: 100})
	log := session.LogOf[call](s)
	a := sessionhook.AppenderOf[call](log)
	log.Append(call{Index: 0})

	c, pos := a.Reserve(t0.Add(time.Hour))
	*c = call{Name: "hook", Index: pos}
	a.Release()
	assert.Equal(t, []call{{Name: "hook", Index: 1}}, log.Since(t0.Add(time.Hour)), "the entry carries the time given")
	appendIndexed(&a, t0)
	assert.Equal(t, []call{{Name: "hook", Index: 1}, {Index: 2}}, log.Since(t0.Add(time.Hour)), "entries stay in time order")

	for i := range 300 {
		appendIndexed(&a, t0.Add(2*time.Hour))
		require.Equal(t, int64(i+4), log.Total())
	}
	assert.Equal(t, 100, log.Len(), "the retention holds")
	for pos, c := range log.All() {
		require.Equal(t, pos, c.Index)
	}

	snap, err := s.Snapshot()
	require.NoError(t, err)
	appendIndexed(&a, t0.Add(3*time.Hour))
	require.NoError(t, s.Restore(snap))
	appendIndexed(&a, t0.Add(3*time.Hour))
	last, ok := log.Latest()
	require.True(t, ok)
	assert.Equal(t, call{Index: 303}, last, "appends go on from the restored log")

	assert.Panics(t, func() { sessionhook.AppenderOf[int](log) }, "a log of another type")
}

// Appends through an Appender and through AppendFunc, and readers, run
// alongside each other: positions stay dense and unique, and no reader
// sees an entry before it is filled.
func TestAppenderAssignsDenseUniquePositionsUnderConcurrency(t *testing.T) {
	const goroutines, each = 16, 500
	log := session.LogOf[call](session.New(nil))
	a := sessionhook.AppenderOf[call](log)
	appenders := []func(){
		func() {
			c, pos := a.Reserve(time.Now())
			*c = call{Name: "filled", Index: pos}
			a.Release()
		},
		func() { log.AppendFunc(func(pos int64) call { return call{Name: "filled", Index: pos} }) },
	}
	var wg sync.WaitGroup
	wg.Add(goroutines)
	for g := range goroutines {
		go func(appendOne func()) {
			defer wg.Done()
			for range each {
				appendOne()
				for _, c := range log.Last(3) {
					if c.Name != "filled" {
						t.Errorf("a reader saw an entry before it was filled: %+v", c)
					}
				}
			}
		}(appenders[g%2])
	}
	wg.Wait()
	require.Equal(t, int64(goroutines*each), log.Total())
	for pos, c := range log.All() {
		require.Equal(t, pos, c.Index)
	}
}

// appendIndexed appends through a an entry holding its position.
func appendIndexed(a *sessionhook.Appender[call], at time.Time) {
	c, pos := a.Reserve(at)
	c.Index = pos
	a.Release()
}
