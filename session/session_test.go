package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/session"
)

type call struct {
	Name  string `json:"name"`
	Index int64  `json:"index"`
}

type counter struct {
	N     int       `json:"n"`
	Since time.Time `json:"since"`
}

// fakeClock advances by step on every reading.
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.t
	c.t = c.t.Add(c.step)
	return now
}

var t0 = time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)

func TestLogAppendAndRead(t *testing.T) {
	s := session.New(nil)
	log := session.LogOf[call](s)
	for i := range 5 {
		assert.Equal(t, int64(i), log.Append(call{Name: fmt.Sprint("c", i)}))
	}
	assert.Equal(t, 5, log.Len())
	assert.Equal(t, int64(5), log.Total())
	assert.Equal(t, []call{{Name: "c3"}, {Name: "c4"}}, log.Last(2))
	assert.Len(t, log.Last(50), 5)
	assert.Nil(t, log.Last(0))
	latest, ok := log.Latest()
	require.True(t, ok)
	assert.Equal(t, "c4", latest.Name)
	got, ok := log.At(2)
	require.True(t, ok)
	assert.Equal(t, "c2", got.Name)
	_, ok = log.At(5)
	assert.False(t, ok)

	var names []string
	for pos, c := range log.All() {
		names = append(names, fmt.Sprint(pos, c.Name))
	}
	assert.Equal(t, []string{"0c0", "1c1", "2c2", "3c3", "4c4"}, names)

	names = names[:0]
	for _, c := range log.Backward() {
		names = append(names, c.Name)
		if len(names) == 2 {
			break
		}
	}
	assert.Equal(t, []string{"c4", "c3"}, names)
}

func TestLogOfReturnsTheSameSliceForTheSameType(t *testing.T) {
	s := session.New(nil)
	session.LogOf[call](s).Append(call{Name: "a"})
	assert.Equal(t, int64(1), session.LogOf[call](s).Total())
}

func TestOpeningATypeAsBothKindsPanics(t *testing.T) {
	s := session.New(nil)
	session.LogOf[call](s)
	assert.Panics(t, func() { session.ValueOf[call](s) })
	session.ValueOf[counter](s)
	assert.Panics(t, func() { session.LogOf[counter](s) })
}

func TestSinceReturnsEntriesAppendedAtOrAfterATime(t *testing.T) {
	clock := &fakeClock{t: t0, step: time.Second}
	s := session.New(&session.StoreOptions{Now: clock.Now})
	log := session.LogOf[call](s)
	for i := range 10 {
		log.Append(call{Index: int64(i)})
	}
	got := log.Since(t0.Add(7 * time.Second))
	assert.Equal(t, []call{{Index: 7}, {Index: 8}, {Index: 9}}, got)
	assert.Nil(t, log.Since(t0.Add(time.Hour)))
	assert.Len(t, log.Since(t0.Add(-time.Hour)), 10)
}

func TestAppendFuncAtStampsTheGivenTime(t *testing.T) {
	clock := &fakeClock{t: t0, step: time.Second}
	s := session.New(&session.StoreOptions{Now: clock.Now})
	log := session.LogOf[call](s)
	log.Append(call{Index: 0})
	got := log.AppendFuncAt(t0.Add(time.Hour), func(pos int64) call { return call{Index: pos} })
	assert.Equal(t, call{Index: 1}, got)
	assert.Equal(t, []call{{Index: 1}}, log.Since(t0.Add(time.Hour)), "the entry carries the time given, not the clock's")

	log.Append(call{Index: 2}) // the clock reads t0+1s, before the newest entry
	assert.Equal(t, []call{{Index: 1}, {Index: 2}}, log.Since(t0.Add(time.Hour)), "entries stay in time order")
	assert.Nil(t, log.Since(t0.Add(time.Hour+time.Nanosecond)))
}

func TestRetentionBoundsMemoryButTotalStaysExact(t *testing.T) {
	s := session.New(&session.StoreOptions{Retention: 100})
	log := session.LogOf[call](s)
	for i := range 10_000 {
		log.Append(call{Index: int64(i)})
	}
	assert.Equal(t, 100, log.Len())
	assert.Equal(t, int64(10_000), log.Total())
	first, ok := log.At(9_900)
	require.True(t, ok)
	assert.Equal(t, int64(9_900), first.Index)
	_, ok = log.At(9_899)
	assert.False(t, ok, "dropped entries are gone")
	for pos, c := range log.All() {
		require.Equal(t, pos, c.Index)
	}

	log.SetRetention(10)
	assert.Equal(t, 10, log.Len())
	assert.Equal(t, []call{{Index: 9_998}, {Index: 9_999}}, log.Last(2))

	// Dropped entries stay dropped when the retention grows again.
	log.SetRetention(0)
	assert.Equal(t, 10, log.Len())
	_, ok = log.At(9_989)
	assert.False(t, ok)
	log.Append(call{Index: 10_000})
	assert.Equal(t, 11, log.Len(), "no retention: nothing more is dropped")
	log.SetRetention(1_000)
	assert.Equal(t, 11, log.Len())
}

func TestRangeYieldsTheRetainedEntriesOfAWindow(t *testing.T) {
	s := session.New(&session.StoreOptions{Retention: 300})
	log := session.LogOf[call](s)
	for i := range 1000 {
		log.Append(call{Index: int64(i)})
	}
	indices := func(from, to int64) []int64 {
		var got []int64
		for pos, c := range log.Range(from, to) {
			require.Equal(t, pos, c.Index)
			got = append(got, c.Index)
		}
		return got
	}
	assert.Equal(t, []int64{700, 701, 702}, indices(700, 703))
	assert.Equal(t, []int64{998, 999}, indices(998, 5000), "the window stops at the newest entry")
	assert.Equal(t, []int64{700, 701}, indices(0, 702), "dropped entries are skipped")
	assert.Empty(t, indices(500, 600), "a window of dropped entries is empty")
	assert.Empty(t, indices(800, 800))

	// Stopping early, and appending while iterating.
	var seen []int64
	for pos := range log.Range(990, 2000) {
		log.Append(call{Index: 1000 + pos})
		seen = append(seen, pos)
		if len(seen) == 3 {
			break
		}
	}
	assert.Equal(t, []int64{990, 991, 992}, seen)
	n := 0
	for range log.Range(990, 2000) {
		n++
	}
	assert.Equal(t, 13, n, "entries appended during an iteration are visited by the next")
	var during []int64
	for pos := range log.Range(1000, 5000) {
		log.Append(call{Index: 2000 + pos})
		during = append(during, pos)
	}
	assert.Equal(t, []int64{1000, 1001, 1002}, during, "entries appended during the iteration are not visited")
}

func TestAppendFuncAssignsDenseUniquePositionsUnderConcurrency(t *testing.T) {
	const goroutines, each = 64, 1_000
	s := session.New(nil)
	log := session.LogOf[call](s)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				log.AppendFunc(func(pos int64) call { return call{Name: fmt.Sprint(g), Index: pos} })
				log.Last(3) // readers run alongside writers
			}
		}()
	}
	wg.Wait()
	seen := make([]bool, goroutines*each)
	for pos, c := range log.All() {
		require.Equal(t, pos, c.Index)
		require.False(t, seen[c.Index], "index %d twice", c.Index)
		seen[c.Index] = true
	}
	for i, ok := range seen {
		require.True(t, ok, "index %d missing", i)
	}
}

func TestValueSeedLatestUpdateClear(t *testing.T) {
	s := session.New(nil)
	v := session.ValueOf[counter](s)
	_, ok := v.Latest()
	assert.False(t, ok)
	v.Seed(counter{N: 1})
	got := v.Update(func(c counter, set bool) counter {
		assert.True(t, set)
		c.N++
		return c
	})
	assert.Equal(t, 2, got.N)
	v.Clear()
	_, ok = v.Latest()
	assert.False(t, ok)
}

func TestValueChangeEditsInPlaceAndSeeds(t *testing.T) {
	v := session.ValueOf[counter](session.New(nil))
	earlier, _ := v.Latest()
	v.Change(func(c *counter, set bool) {
		assert.False(t, set, "nothing was seeded yet")
		c.N = 5
	})
	v.Change(func(c *counter, set bool) {
		assert.True(t, set)
		c.N++
	})
	got, ok := v.Latest()
	assert.True(t, ok)
	assert.Equal(t, 6, got.N)
	assert.Equal(t, 0, earlier.N, "a value read before is a copy")

	// A panicking fn releases the lock.
	assert.Panics(t, func() { v.Change(func(*counter, bool) { panic("boom") }) })
	v.Seed(counter{N: 1})
	got, _ = v.Latest()
	assert.Equal(t, 1, got.N)
}

// tags is a Cloner value: a map its readers must not share.
type tags map[string]int

func (t tags) Clone() tags { return maps.Clone(t) }

func TestClonerValuesGiveReadersClones(t *testing.T) {
	v := session.ValueOf[tags](session.New(nil))
	seeded := tags{"a": 1}
	v.Seed(seeded)
	seeded["z"] = 26
	before, _ := v.Latest()
	assert.Equal(t, tags{"a": 1}, before, "the store keeps a clone of what was seeded")
	v.Change(func(cur *tags, _ bool) { (*cur)["a"] = 2 })
	assert.Equal(t, tags{"a": 1}, before, "a clone read before a change in place keeps its contents")

	got, ok := v.Latest()
	require.True(t, ok)
	got["b"] = 3
	after, _ := v.Latest()
	assert.Equal(t, tags{"a": 2}, after, "changing what Latest returned does not reach the store")

	updated := v.Update(func(cur tags, _ bool) tags { cur["c"] = 4; return cur })
	updated["d"] = 5
	after, _ = v.Latest()
	assert.Equal(t, tags{"a": 2, "c": 4}, after, "changing what Update returned does not reach the store")

	v.Read(func(cur tags, set bool) {
		assert.True(t, set)
		assert.Equal(t, tags{"a": 2, "c": 4}, cur)
	})

	empty := session.ValueOf[tags](session.New(nil))
	got, ok = empty.Latest()
	assert.False(t, ok)
	assert.Nil(t, got, "an unseeded value is the zero value, not a clone of it")
}

func TestReadSeesTheStoredValueWithoutCloning(t *testing.T) {
	v := session.ValueOf[counted](session.New(nil))
	v.Read(func(_ counted, set bool) { assert.False(t, set) })
	v.Seed(counted{n: 1})
	clones.Store(0)
	v.Read(func(cur counted, set bool) {
		assert.True(t, set)
		assert.Equal(t, 1, cur.n)
	})
	assert.Zero(t, clones.Load(), "Read does not clone")
	v.Latest()
	assert.EqualValues(t, 1, clones.Load(), "Latest does")
}

// counted is a Cloner value that counts its clones.
type counted struct{ n int }

var clones atomic.Int64

func (c counted) Clone() counted { clones.Add(1); return c }

func TestClonerValuesChangeInPlaceWithoutRaces(t *testing.T) {
	v := session.ValueOf[tags](session.New(nil))
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 1000 {
			v.Change(func(cur *tags, _ bool) {
				if *cur == nil {
					*cur = tags{}
				}
				(*cur)[fmt.Sprint(i%10)] = i
			})
		}
	}()
	go func() {
		defer wg.Done()
		for range 1000 {
			got, _ := v.Latest()
			for k, n := range got {
				_, _ = k, n
			}
		}
	}()
	wg.Wait()
	got, _ := v.Latest()
	assert.Len(t, got, 10)
}

func populated(t *testing.T) *session.Store {
	t.Helper()
	clock := &fakeClock{t: t0, step: time.Second}
	s := session.New(&session.StoreOptions{Now: clock.Now, Retention: 3})
	log := session.LogOf[call](s)
	for i := range 5 {
		log.Append(call{Name: "read", Index: int64(i)})
	}
	session.ValueOf[counter](s).Seed(counter{N: 7, Since: t0})
	session.ValueOf[string](s) // opened, never seeded
	return s
}

func fresh() *session.Store {
	s := session.New(&session.StoreOptions{Retention: 3})
	session.LogOf[call](s)
	session.ValueOf[counter](s)
	session.ValueOf[string](s)
	return s
}

func TestSnapshotRoundTripsByteForByte(t *testing.T) {
	first, err := populated(t).Snapshot()
	require.NoError(t, err)

	restored := fresh()
	require.NoError(t, restored.Restore(first))
	second, err := restored.Snapshot()
	require.NoError(t, err)
	assert.Equal(t, string(first), string(second))

	log := session.LogOf[call](restored)
	assert.Equal(t, int64(5), log.Total(), "the count of dropped entries survives")
	assert.Equal(t, 3, log.Len())
	assert.Len(t, log.Since(t0.Add(3*time.Second)), 2, "append times survive")
}

// A string with invalid UTF-8 is encoded with U+FFFD in its place; the
// restored string holds that U+FFFD, and the next snapshot must still
// give the same bytes.
func TestSnapshotRoundTripsInvalidUTF8ByteForByte(t *testing.T) {
	s := fresh()
	session.LogOf[call](s).Append(call{Name: "caf\xe9 \ufffd"})
	first, err := s.Snapshot()
	require.NoError(t, err)

	restored := fresh()
	require.NoError(t, restored.Restore(first))
	second, err := restored.Snapshot()
	require.NoError(t, err)
	assert.Equal(t, string(first), string(second))
	last := session.LogOf[call](restored).Last(1)
	require.Len(t, last, 1)
	assert.Equal(t, "caf\ufffd \ufffd", last[0].Name)
}

func TestRestoreReplacesState(t *testing.T) {
	snap, err := fresh().Snapshot()
	require.NoError(t, err)
	s := populated(t)
	require.NoError(t, s.Restore(snap))
	assert.Equal(t, int64(0), session.LogOf[call](s).Total())
	_, ok := session.ValueOf[counter](s).Latest()
	assert.False(t, ok)
}

func TestRestoreRejectsBadSnapshotsAndLeavesTheStoreUntouched(t *testing.T) {
	good, err := populated(t).Snapshot()
	require.NoError(t, err)
	var snap session.Snapshot
	require.NoError(t, json.Unmarshal(good, &snap))

	mutate := func(f func(*session.Snapshot)) []byte {
		var c session.Snapshot
		require.NoError(t, json.Unmarshal(good, &c))
		f(&c)
		b, err := json.Marshal(c)
		require.NoError(t, err)
		return b
	}
	tests := []struct {
		name string
		data []byte
		is   error
	}{
		{"a newer schema version", mutate(func(s *session.Snapshot) { s.SchemaVersion = session.SchemaVersion + 1 }), session.ErrNewerVersion},
		{"an unknown slice name", mutate(func(s *session.Snapshot) { s.Slices[0].Name = "log:example.com/other.Type" }), session.ErrUnknownSlice},
		{"a kind that disagrees", mutate(func(s *session.Snapshot) { s.Slices[0].Kind = "value" }), session.ErrCorruptSnapshot},
		{"an entry of the wrong type", mutate(func(s *session.Snapshot) { s.Slices[0].Entries[0].Value = json.RawMessage(`"text"`) }), session.ErrCorruptSnapshot},
		{"a total below the entries kept", mutate(func(s *session.Snapshot) { s.Slices[0].Total = 1 }), session.ErrCorruptSnapshot},
		{"a total that leaves no room to append", mutate(func(s *session.Snapshot) { s.Slices[0].Total = math.MaxInt64 }), session.ErrCorruptSnapshot},
		{"bytes that are not JSON", []byte("{not json"), session.ErrCorruptSnapshot},
		{"JSON null", []byte("null"), session.ErrCorruptSnapshot},
		{"a JSON array", []byte(" [] "), session.ErrCorruptSnapshot},
		{"nothing", nil, session.ErrCorruptSnapshot},
	}
	for _, tt := range tests {
		t.Run("it rejects "+tt.name, func(t *testing.T) {
			s := populated(t)
			before, err := s.Snapshot()
			require.NoError(t, err)
			err = s.Restore(tt.data)
			require.ErrorIs(t, err, tt.is)
			after, err := s.Snapshot()
			require.NoError(t, err)
			assert.Equal(t, string(before), string(after), "the store is untouched")
		})
	}
}

func TestNewerVersionErrorSaysWhatToDo(t *testing.T) {
	err := session.New(nil).Restore([]byte(`{"schema_version": 99, "slices": []}`))
	var ve *session.SnapshotVersionError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, 99, ve.Got)
	assert.Contains(t, err.Error(), "newer than the supported version 1")
}

func TestMissingVersionReadsAsZeroAndIsAccepted(t *testing.T) {
	s := fresh()
	require.NoError(t, s.Restore([]byte(`{"slices": []}`)))
}

func TestContextCarriesTheStore(t *testing.T) {
	s := session.New(nil)
	got, ok := session.FromContext(session.NewContext(context.Background(), s))
	require.True(t, ok)
	assert.Same(t, s, got)
	_, ok = session.FromContext(context.Background())
	assert.False(t, ok)
}

func FuzzRestore(f *testing.F) {
	good, err := populated(&testing.T{}).Snapshot()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"schema_version":1,"slices":[{"name":"value:string","kind":"value","value":null}]}`))
	f.Add([]byte(`{"slices":[{"name":"log:github.com/lookout-go/lookout/session_test.call","kind":"log","total":-1}]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"slices":[{"name":"log:github.com/lookout-go/lookout/session_test.call","kind":"log","total":9223372036854775807,"entries":[{"at":"2026-01-15T14:00:00Z","value":{}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := fresh()
		if err := s.Restore(data); err != nil {
			if !errors.Is(err, session.ErrCorruptSnapshot) && !errors.Is(err, session.ErrUnknownSlice) && !errors.Is(err, session.ErrNewerVersion) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		if _, err := s.Snapshot(); err != nil {
			t.Fatalf("snapshot after a successful restore: %v", err)
		}
		// The restored store keeps working.
		log := session.LogOf[call](s)
		for range 2 {
			total := log.Total()
			if pos := log.Append(call{}); pos != total || pos < 0 {
				t.Fatalf("append at %d, after %d entries", pos, total)
			}
			if _, ok := log.Latest(); !ok || log.Len() < 1 || log.Len() > 3 {
				t.Fatalf("after an append: latest %v, length %d", ok, log.Len())
			}
		}
	})
}

func TestReadersRunAlongsideRetentionWithoutRaces(t *testing.T) {
	s := session.New(&session.StoreOptions{Retention: 300})
	log := session.LogOf[call](s)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 5_000 {
			log.Append(call{Index: int64(i)})
		}
	}()
	go func() {
		defer wg.Done()
		for range 200 {
			prev := int64(-1)
			for pos, c := range log.All() {
				if pos != c.Index || pos <= prev {
					t.Errorf("position %d holds %d after %d", pos, c.Index, prev)
					return
				}
				prev = pos
			}
			log.Since(t0)
		}
	}()
	wg.Wait()
	assert.Equal(t, 300, log.Len())
}

// brittle is a Cloner whose Clone panics when asked to.
type brittle struct{ panics bool }

func (b brittle) Clone() brittle {
	if b.panics {
		panic("clone failed")
	}
	return b
}

func TestAPanickingCloneLeavesTheValueUsable(t *testing.T) {
	v := session.ValueOf[brittle](session.New(nil))
	v.Change(func(b *brittle, _ bool) { b.panics = true })
	assert.Panics(t, func() { v.Latest() })
	assert.Panics(t, func() { v.Update(func(b brittle, _ bool) brittle { return b }) })
	unlocked := make(chan struct{})
	go func() {
		v.Change(func(b *brittle, _ bool) { b.panics = false })
		close(unlocked)
	}()
	select {
	case <-unlocked:
	case <-time.After(time.Minute):
		t.Fatal("the value stayed locked after a panicking Clone")
	}
	got, ok := v.Latest()
	assert.True(t, ok)
	assert.False(t, got.panics)
}

func TestLogEpochChangesOnlyWhenTheContentsAreReplaced(t *testing.T) {
	s := session.New(&session.StoreOptions{Retention: 2})
	log := session.LogOf[call](s)
	start := log.Epoch()
	for i := range 5 {
		log.Append(call{Index: int64(i)})
	}
	log.SetRetention(1)
	assert.Equal(t, start, log.Epoch(), "appends and retention keep the epoch")

	snap, err := s.Snapshot()
	require.NoError(t, err)
	require.NoError(t, s.Restore(snap))
	restored := log.Epoch()
	assert.NotEqual(t, start, restored, "a restore replaces the contents, even with the same ones")
	require.NoError(t, s.Restore(snap))
	assert.NotEqual(t, restored, log.Epoch())
}

func TestAPanickingBuildLeavesTheLogUsable(t *testing.T) {
	log := session.LogOf[call](session.New(nil))
	log.Append(call{Index: 0})
	assert.Panics(t, func() { log.AppendFunc(func(int64) call { panic("build failed") }) })
	appended := make(chan int64)
	go func() { appended <- log.Append(call{Index: 1}) }()
	select {
	case pos := <-appended:
		assert.Equal(t, int64(1), pos, "the failed build took no position")
	case <-time.After(time.Minute):
		t.Fatal("the log stayed locked after a panicking build")
	}
	assert.Equal(t, []call{{Index: 0}, {Index: 1}}, log.Last(5))
}

// fragile is a Cloner whose Clone panics on a value flagged so.
type fragile struct {
	Panics bool `json:"panics"`
}

func (f fragile) Clone() fragile {
	if f.Panics {
		panic("clone failed")
	}
	return f
}

// Restore installs what it decoded without running the type's own code, so
// that nothing can fail halfway through installing a snapshot.
func TestRestoreCommitsEverySliceOrNone(t *testing.T) {
	open := func() *session.Store {
		s := session.New(nil)
		session.LogOf[call](s)
		session.ValueOf[fragile](s)
		return s
	}
	src := open()
	session.LogOf[call](src).Append(call{Name: "restored"})
	snap, err := src.Snapshot()
	require.NoError(t, err)
	snap = []byte(strings.Replace(string(snap), `"kind":"value"`, `"kind":"value","value":{"panics":true}`, 1))

	s := open()
	session.LogOf[call](s).Append(call{Name: "before"})
	require.NotPanics(t, func() { require.NoError(t, s.Restore(snap)) })
	assert.Equal(t, []call{{Name: "restored"}}, session.LogOf[call](s).Last(5))
	session.ValueOf[fragile](s).Read(func(f fragile, set bool) {
		assert.True(t, set)
		assert.True(t, f.Panics)
	})
}

func openRecordA(s *session.Store) {
	type record struct{ A int }
	session.LogOf[record](s)
}

func openRecordB(s *session.Store) {
	type record struct{ B int }
	session.LogOf[record](s)
}

// Two types that share a name would share a slice name, and a snapshot
// would silently hold only one of them.
func TestOpeningTwoTypesWithOneSliceNamePanics(t *testing.T) {
	s := session.New(nil)
	openRecordA(s)
	assert.PanicsWithValue(t,
		"session: log:github.com/lookout-go/lookout/session_test.record names another type in this store; a snapshot could not tell them apart",
		func() { openRecordB(s) })
	assert.Equal(t, []string{"log:github.com/lookout-go/lookout/session_test.record"}, s.Names())
	openRecordA(s) // the type already open is still returned
}

// payload is an entry's own memory, large enough to get an allocation of
// its own, so that a weak pointer tells when nothing holds it.
type payload [64]byte

type heavy struct {
	P *payload `json:"-"`
}

// Dropped entries become garbage: what stays reachable is the retained
// entries and the older ones that share their storage chunk, fewer than
// 64.
func TestRetentionLetsDroppedEntriesBeCollected(t *testing.T) {
	const retention, appends = 1_000, 10_000
	log := session.LogOf[heavy](session.New(&session.StoreOptions{Retention: retention}))
	refs := make([]weak.Pointer[payload], 0, appends)
	for range appends {
		p := new(payload)
		refs = append(refs, weak.Make(p))
		log.Append(heavy{P: p})
	}
	runtime.GC()
	alive := 0
	for _, r := range refs {
		if r.Value() != nil {
			alive++
		}
	}
	assert.GreaterOrEqual(t, alive, retention)
	assert.Less(t, alive, retention+64, "entries reachable after a collection")
	assert.Equal(t, retention, log.Len())
}

// A store checks what it opens against the types it opened before
// another store opened a type of the same name, or the same type as the
// other kind.
func TestConflictsAreFoundWithTypesOpenedEarlier(t *testing.T) {
	type once struct{ N int }
	first, second := session.New(nil), session.New(nil)
	session.ValueOf[once](first)
	openRecordA(first)
	require.NotPanics(t, func() {
		session.LogOf[once](second)
		openRecordB(second)
	})
	assert.Panics(t, func() { session.LogOf[once](first) })
	assert.Panics(t, func() { session.ValueOf[once](second) })
	assert.PanicsWithValue(t,
		"session: log:github.com/lookout-go/lookout/session_test.record names another type in this store; a snapshot could not tell them apart",
		func() { openRecordB(first) })
	assert.Panics(t, func() { openRecordA(second) })
	session.ValueOf[once](first) // the slices already open are still returned
	session.LogOf[once](second)
}
