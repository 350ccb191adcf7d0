package uid

import (
	"bytes"
	"testing"

	"github.com/google/uuid"
)

// fromBytes makes of the same random bytes the UUID uuid.NewRandom makes.
func FuzzFromBytes(f *testing.F) {
	f.Add(bytes.Repeat([]byte{0xff}, 16))
	f.Add(make([]byte, 16))
	f.Add([]byte("0123456789abcdef"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 16 {
			return
		}
		want, err := uuid.NewRandomFromReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if got := fromBytes([16]byte(b)); got != want {
			t.Fatalf("fromBytes(%x) = %s, uuid makes %s", b, got, want)
		}
		if got := format(uuid.UUID(b)); got != uuid.UUID(b).String() {
			t.Fatalf("format(%x) = %s, uuid makes %s", b, got, uuid.UUID(b).String())
		}
	})
}

// New's UUIDs are version 4, variant RFC 4122, and differ from one
// another across refills of the pool.
func TestNew(t *testing.T) {
	seen := make(map[string]bool)
	for range 5 * poolSize {
		s := New()
		u, err := uuid.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if u.Version() != 4 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("%s: version %d, variant %s", s, u.Version(), u.Variant())
		}
		if seen[s] {
			t.Fatalf("%s twice", s)
		}
		seen[s] = true
	}
}

// The pool does not keep the bytes of a UUID it gave.
func TestTakeClears(t *testing.T) {
	b := take()
	pool.Lock()
	defer pool.Unlock()
	if used := pool.buf[pool.next-16 : pool.next]; !bytes.Equal(used, make([]byte, 16)) {
		t.Fatalf("the pool keeps %x after giving %x", used, b)
	}
}
