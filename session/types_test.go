package session

import (
	"reflect"
	"testing"
)

// of finds a type's one sliceType whatever other types share its place
// in recent.
func TestSliceTypesOfManyTypes(t *testing.T) {
	ts := &sliceTypes{kind: kindLog, prefix: "log:"}
	var types []reflect.Type
	for n := range 3 * recentTypes {
		types = append(types, reflect.ArrayOf(n, reflect.TypeFor[byte]()))
	}
	first := make(map[reflect.Type]*sliceType)
	for range 3 {
		for _, typ := range types {
			st := ts.of(typ, nil)
			if st.t != typ || st.name != "log:"+typ.String() {
				t.Fatalf("of(%s) is the sliceType of %s, named %s", typ, st.t, st.name)
			}
			if f, ok := first[typ]; ok && f != st {
				t.Fatalf("of(%s) made a second sliceType", typ)
			}
			first[typ] = st
		}
	}
}

// typeAddr is the address reflect gives of a type's descriptor.
func TestTypeAddr(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[sliceType](), reflect.TypeFor[*Store](), reflect.ArrayOf(3, reflect.TypeFor[byte]())} {
		if got, want := typeAddr(typ), reflect.ValueOf(typ).Pointer(); got != want {
			t.Errorf("typeAddr(%s) = %#x, reflect says %#x", typ, got, want)
		}
	}
}

// A store finds each slice it opened, and no other, when more types than
// openBits has bits are about: types share bits, and a bit another open
// type set sends find to look through the open slices.
func TestStoreFindsWhatItOpenedWhateverItsBits(t *testing.T) {
	ts := &sliceTypes{kind: kindValue, prefix: "value:"}
	var types []*sliceType
	for n := range 160 {
		types = append(types, ts.of(reflect.ArrayOf(n, reflect.TypeFor[int16]()), nil))
	}
	s := New(nil)
	var bits uint64
	opened := make(map[*sliceType]slice)
	for i, typ := range types {
		if i%3 == 0 {
			v := &Value[int]{name: typ.name}
			s.add(typ, v)
			opened[typ] = v
			bits |= typ.bit
		}
	}
	if s.openBits != bits {
		t.Fatalf("openBits = %#x, want %#x", s.openBits, bits)
	}
	for i, typ := range types {
		sl, ok := s.find(typ)
		if want, open := opened[typ]; ok != open || sl != want {
			t.Errorf("type %d: find = %v, %v; want %v, %v", i, sl, ok, want, open)
		}
	}
}
