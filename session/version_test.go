package session_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/internal/sessionhook"
	"github.com/lookout-go/lookout/session"
)

// A value's version advances with every way of changing it, a restore
// included, and with nothing that only reads it: a reader that keeps
// what it read may trust it while the version stands.
func TestValueVersionAdvancesWithEveryChangeAndOnlyThen(t *testing.T) {
	s := populated(t)
	v := session.ValueOf[counter](s)
	version := sessionhook.Version(v)
	require.NotNil(t, version)
	snap, err := s.Snapshot()
	require.NoError(t, err)

	changes := map[string]func(){
		"Seed":    func() { v.Seed(counter{N: 1}) },
		"Update":  func() { v.Update(func(c counter, _ bool) counter { c.N++; return c }) },
		"Change":  func() { v.Change(func(c *counter, _ bool) { c.N++ }) },
		"Clear":   v.Clear,
		"Restore": func() { require.NoError(t, s.Restore(snap)) },
	}
	for name, change := range changes {
		before := version.Load()
		change()
		assert.Greater(t, version.Load(), before, name)
	}

	before := version.Load()
	v.Latest()
	v.Read(func(counter, bool) {})
	_, err = s.Snapshot()
	require.NoError(t, err)
	session.LogOf[call](s).Append(call{})
	assert.Equal(t, before, version.Load(), "reads and other slices leave the version alone")

	assert.Nil(t, sessionhook.Version(session.LogOf[call](s)), "a log has no version")
}

// An Unguarded change does what Value.Change does, on the value itself:
// the version advances, the change is seen by readers and survives a
// restore's replacement of the value, and the value counts as set.
func TestUnguardedChangesAsChangeDoes(t *testing.T) {
	s := session.New(nil)
	v := session.ValueOf[counter](s)
	u := sessionhook.UnguardedOf[counter](v)
	version := sessionhook.Version(v)
	snap, err := s.Snapshot()
	require.NoError(t, err)

	before := version.Load()
	u.Change(func(c *counter) { c.N += 2 })
	assert.Greater(t, version.Load(), before)
	got, set := v.Latest()
	assert.True(t, set)
	assert.Equal(t, 2, got.N)

	v.Change(func(c *counter, _ bool) { c.N++ })
	u.Change(func(c *counter) { c.N *= 10 })
	got, _ = v.Latest()
	assert.Equal(t, 30, got.N)

	require.NoError(t, s.Restore(snap))
	u.Change(func(c *counter) { c.N++ })
	got, _ = v.Latest()
	assert.Equal(t, 1, got.N, "the restored value is the one changed")

	assert.Panics(t, func() { sessionhook.UnguardedOf[int](v) }, "a value of another type")
}
