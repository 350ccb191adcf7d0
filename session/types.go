package session

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// sliceType describes a type as stores open it, as a log or as a value:
// the name of its slices and, for a value, how a reader's copy is made.
// Each is made once, the first time a store opens the type as its kind,
// so that opening a slice in a new store looks one map up.
type sliceType struct {
	t    reflect.Type
	addr uintptr // typeAddr(t)
	kind string  // kindLog or kindValue
	name string
	// clone is, for a value of a Cloner type, the func(T) T that clones
	// one for a reader; nil otherwise.
	clone any
	// shared is set once another sliceType has this one's name, or this
	// one's type (the other kind): a store opening this one then checks
	// that none of them is open. No other can be open in a store before
	// it is made, and it sets shared on both before it is used.
	shared atomic.Bool
	// bit is this sliceType's bit of Store.openBits: the sliceTypes made
	// take the 64 bits in turn.
	bit uint64
}

// sliceTypes are the sliceTypes of one kind, by type. A store opens a
// dozen types for every run: recent keeps them where a hash of the
// type's address finds them at the cost of a load, and byType the rest,
// a lookup that hashes an interface.
type sliceTypes struct {
	kind, prefix string
	recent       [recentTypes]atomic.Pointer[sliceType]
	byType       sync.Map // reflect.Type -> *sliceType
}

// recentTypes is how many sliceTypes of a kind sliceTypes.recent holds.
const recentTypes = 64

var (
	logTypes   = sliceTypes{kind: kindLog, prefix: "log:"}
	valueTypes = sliceTypes{kind: kindValue, prefix: "value:"}
)

// made indexes the sliceTypes of both kinds, to find those a new one
// shares its name or its type with.
var made struct {
	sync.Mutex
	byName map[string]*sliceType
	byType map[reflect.Type]*sliceType
	count  int // sliceTypes made
}

// of returns the sliceType of t; clone, for a value, returns how to
// clone a T, or nil for a type that is no Cloner.
func (ts *sliceTypes) of(t reflect.Type, clone func() any) *sliceType {
	p := typeAddr(t)
	slot := &ts.recent[(p>>4^p>>10)%recentTypes]
	if st := slot.Load(); st != nil && st.addr == p {
		return st
	}
	var st *sliceType
	if found, ok := ts.byType.Load(t); ok {
		st = found.(*sliceType)
	} else {
		st = ts.make(t, clone)
	}
	slot.Store(st)
	return st
}

// make makes the sliceType of t, once.
func (ts *sliceTypes) make(t reflect.Type, clone func() any) *sliceType {
	made.Lock()
	defer made.Unlock()
	if st, ok := ts.byType.Load(t); ok {
		return st.(*sliceType)
	}
	st := &sliceType{t: t, addr: typeAddr(t), kind: ts.kind, name: ts.prefix + typeName(t), bit: 1 << (made.count % 64)}
	made.count++
	if clone != nil {
		st.clone = clone()
	}
	if made.byName == nil {
		made.byName = make(map[string]*sliceType)
		made.byType = make(map[reflect.Type]*sliceType)
	}
	for _, other := range []*sliceType{made.byName[st.name], made.byType[t]} {
		if other != nil {
			other.shared.Store(true)
			st.shared.Store(true)
		}
	}
	made.byName[st.name] = st
	made.byType[t] = st
	ts.byType.Store(t, st)
	return st
}

// typeAddr returns the address of t's descriptor, which tells it from
// every other type as t does: a reflect.Type is an interface holding a
// pointer to it. It is reflect.ValueOf(t).Pointer() at the cost of a
// load.
func typeAddr(t reflect.Type) uintptr {
	return uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1])
}

// typeName returns the name of t in snapshots: its package path and
// name, or for an unnamed type its string.
func typeName(t reflect.Type) string {
	if t.PkgPath() != "" && t.Name() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	return t.String()
}
