package session

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"
)

// StoreOptions configures a [Store]. A nil *StoreOptions means the defaults.
type StoreOptions struct {
	// Retention bounds how many entries each log keeps in memory. Older
	// entries are dropped; [Log.Total] still counts them. Entries are
	// stored in chunks of 64, so memory holds the retained entries and
	// fewer than 64 dropped ones that share a chunk with them. Zero keeps
	// every entry. [Log.SetRetention] overrides it for one log.
	Retention int

	// Now is the clock used to stamp log entries. Nil means time.Now.
	Now func() time.Time
}

// Store holds typed slices keyed by Go type. The zero value is not usable;
// create one with [New]. A Store is safe for concurrent use.
type Store struct {
	mu   sync.Mutex
	open []opened // the open slices, in the order they were opened
	// openBits has the bit of each open slice's sliceType: a type whose
	// bit it lacks is not open, found so without a look at open.
	openBits uint64
	now      func() time.Time
	retain   int
}

// opened is an open slice of a store, with its type and name. A store
// holds a dozen or so: a slice searched in order costs less than a map,
// and takes one allocation where two maps take several, for every run.
type opened struct {
	typ  *sliceType
	name string
	sl   slice
}

// find returns the slice of type typ, if it is open. It runs under s.mu.
// When typ is shared (see sliceType), it also panics if typ's type is
// open as the other kind of slice, or typ's name names another type.
func (s *Store) find(typ *sliceType) (slice, bool) {
	if s.openBits&typ.bit != 0 {
		for i := range s.open {
			if s.open[i].typ == typ {
				return s.open[i].sl, true
			}
		}
	}
	if typ.shared.Load() {
		s.checkFree(typ)
	}
	return nil, false
}

// add opens sl, of type typ. It runs under s.mu.
func (s *Store) add(typ *sliceType, sl slice) {
	s.open = append(s.open, opened{typ: typ, name: typ.name, sl: sl})
	s.openBits |= typ.bit
}

// checkFree panics if typ's type is open as the other kind of slice, or
// if another type of typ's name is open. It runs under s.mu.
func (s *Store) checkFree(typ *sliceType) {
	for i := range s.open {
		o := &s.open[i]
		if o.typ.t == typ.t {
			panic(fmt.Sprintf("session: %s is already open as a %s, not a %s", typ.t, o.sl.sliceKind(), typ.kind))
		}
		if o.name == typ.name {
			panic(fmt.Sprintf("session: %s names another type in this store; a snapshot could not tell them apart", typ.name))
		}
	}
}

// byName returns the slice named name, if it is open. It runs under s.mu.
func (s *Store) byName(name string) (slice, bool) {
	for i := range s.open {
		if s.open[i].name == name {
			return s.open[i].sl, true
		}
	}
	return nil, false
}

// slice is what a store needs from a log or a value to snapshot and restore
// it without knowing its type parameter.
type slice interface {
	sliceName() string
	sliceKind() string
	snapshot() (SliceSnapshot, error)
	// prepare decodes a snapshot and returns a function that installs it.
	// It does not change the slice, so a failed restore leaves it intact.
	prepare(SliceSnapshot) (commit func(), err error)
	// reset clears the slice, for slices a snapshot does not mention.
	reset()
}

// New returns an empty store.
func New(opts *StoreOptions) *Store {
	s := &Store{open: make([]opened, 0, storeSlices), now: time.Now}
	if opts != nil {
		if opts.Now != nil {
			s.now = opts.Now
		}
		if opts.Retention > 0 {
			s.retain = opts.Retention
		}
	}
	return s
}

// Now returns the store's clock reading.
func (s *Store) Now() time.Time { return s.now() }

// LogOf returns the append-only log of T in s, creating it on first use.
// It panics if T is already open as a value in s, or if another type of
// the same name is open as a log.
func LogOf[T any](s *Store) *Log[T] {
	typ := logTypes.of(reflect.TypeFor[T](), nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	if existing, ok := s.find(typ); ok {
		return existing.(*Log[T])
	}
	l := &Log[T]{name: typ.name, now: s.now, retention: s.retain}
	s.add(typ, l)
	return l
}

// ValueOf returns the replace-latest value of T in s, creating it on first
// use. It panics if T is already open as a log in s, or if another type of
// the same name is open as a value.
func ValueOf[T any](s *Store) *Value[T] {
	typ := valueTypes.of(reflect.TypeFor[T](), clonerOf[T])
	s.mu.Lock()
	defer s.mu.Unlock()
	if existing, ok := s.find(typ); ok {
		return existing.(*Value[T])
	}
	clone, _ := typ.clone.(func(T) T)
	v := &Value[T]{name: typ.name, clone: clone}
	s.add(typ, v)
	return v
}

// Names returns the names of the open slices, as they appear in snapshots.
func (s *Store) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.open))
	for _, o := range s.open {
		names = append(names, o.name)
	}
	slices.Sort(names)
	return names
}

// storeSlices is how many slices a new store has room for before its
// maps grow: what a run of Lookout opens.
const storeSlices = 16

type storeKey struct{}

// NewContext returns a copy of ctx that carries s.
func NewContext(ctx context.Context, s *Store) context.Context {
	return context.WithValue(ctx, storeKey{}, s)
}

// FromContext returns the store carried by ctx, if any.
func FromContext(ctx context.Context) (*Store, bool) {
	s, ok := ctx.Value(storeKey{}).(*Store)
	return s, ok && s != nil
}
