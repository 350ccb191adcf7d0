// Package uid makes the random (version 4) UUIDs that name runs and
// conversations.
//
// A UUID takes 16 random bytes. Reading them from crypto/rand one UUID
// at a time costs a call into the operating system's generator for
// each; uid reads them for many UUIDs at once into a pool of its own,
// which the google/uuid package's global pool (uuid.EnableRandPool)
// would do too, but for the whole program.
package uid

import (
	"crypto/rand"
	"sync"
	"unsafe"

	"github.com/google/uuid"
)

// poolSize is how many UUIDs' random bytes one read fills.
const poolSize = 32

// pool holds random bytes read ahead; next is the first one not used.
var pool struct {
	sync.Mutex
	buf  [poolSize * 16]byte
	next int
}

// New returns a new random UUID in its string form, as uuid.NewString.
func New() string {
	return format(fromBytes(take()))
}

// format returns u in its string form, as u.String() does, written
// straight into the string's own memory: uuid's String encodes each group
// of bytes with a call of hex.Encode and copies the result into the
// string, some 700 instructions a UUID where this takes about 80: a byte's
// two digits are one entry of hexPairs, stored at once.
func format(u uuid.UUID) string {
	b := new([36]byte)
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	for i, x := range u {
		*(*uint16)(unsafe.Pointer(&b[hexAt[i]])) = hexPairs[x]
	}
	return unsafe.String(&b[0], len(b))
}

// hexPairs holds the two lowercase hex digits of each byte, as the
// machine reads them from memory as a uint16: stored, they are in order.
var hexPairs = func() (t [256]uint16) {
	const digits = "0123456789abcdef"
	for x := range t {
		pair := [2]byte{digits[x>>4], digits[x&0xf]}
		t[x] = *(*uint16)(unsafe.Pointer(&pair))
	}
	return t
}()

var hexAt = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// take returns 16 random bytes from the pool, refilling it when it is
// spent. crypto/rand.Read does not fail: the program crashes if the
// system's generator does.
func take() (b [16]byte) {
	pool.Lock()
	if pool.next == 0 || pool.next == len(pool.buf) {
		_, _ = rand.Read(pool.buf[:])
		pool.next = 0
	}
	b = [16]byte(pool.buf[pool.next : pool.next+16])
	*(*[16]byte)(pool.buf[pool.next : pool.next+16]) = [16]byte{}
	pool.next += 16
	pool.Unlock()
	return b
}

// fromBytes makes a version 4, variant RFC 4122 UUID of random bytes b,
// as uuid.NewRandom does.
func fromBytes(b [16]byte) uuid.UUID {
	u := uuid.UUID(b)
	u[6] = (u[6] & 0x0f) | 0x40
	u[8] = (u[8] & 0x3f) | 0x80
	return u
}
