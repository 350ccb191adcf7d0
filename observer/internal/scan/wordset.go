package scan

// WordSet maps a fixed set of words to values. Most other words are told
// apart by their length and their first and last bytes, which costs less
// than hashing them: an agent's keys and command names are mostly not in
// the sets the detectors look them up in.
type WordSet[V any] struct {
	m map[string]V
	// first[n] and last[n] have bit b set when a word of n bytes (or of
	// maxSetWord or more) starts, or ends, with byte b.
	first, last [maxSetWord + 1][4]uint64
}

// maxSetWord is the length from which words share one filter.
const maxSetWord = 24

// NewWordSet returns the set of the keys of m, which it keeps.
func NewWordSet[V any](m map[string]V) *WordSet[V] {
	s := &WordSet[V]{m: m}
	for w := range m {
		if w == "" {
			continue
		}
		n := min(len(w), maxSetWord)
		s.first[n][w[0]>>6] |= 1 << (w[0] & 63)
		s.last[n][w[len(w)-1]>>6] |= 1 << (w[len(w)-1] & 63)
	}
	return s
}

// Get returns the value of w and whether w is in the set.
func (s *WordSet[V]) Get(w []byte) (V, bool) {
	if len(w) > 0 {
		n, a, z := min(len(w), maxSetWord), w[0], w[len(w)-1]
		if s.first[n][a>>6]&(1<<(a&63)) != 0 && s.last[n][z>>6]&(1<<(z&63)) != 0 {
			v, ok := s.m[string(w)]
			return v, ok
		}
	}
	var zero V
	return zero, false
}

// Has reports whether w is in the set.
func (s *WordSet[V]) Has(w []byte) bool {
	_, ok := s.Get(w)
	return ok
}
