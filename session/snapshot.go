package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// SchemaVersion is the version of the snapshot format this package writes.
// Restore accepts it and every older version.
const SchemaVersion = 1

const (
	kindLog   = "log"
	kindValue = "value"
)

// Snapshot is the JSON form of a store's state.
type Snapshot struct {
	SchemaVersion int             `json:"schema_version"`
	Slices        []SliceSnapshot `json:"slices"`
}

// SliceSnapshot is the JSON form of one slice. Logs fill Total and Entries;
// values fill Value, which is absent when the value was never seeded.
type SliceSnapshot struct {
	Name    string          `json:"name"`
	Kind    string          `json:"kind"`
	Total   int64           `json:"total,omitempty"`
	Entries []EntrySnapshot `json:"entries,omitempty"`
	Value   json.RawMessage `json:"value,omitempty"`
}

// EntrySnapshot is one log entry and the time it was appended.
type EntrySnapshot struct {
	At    time.Time       `json:"at"`
	Value json.RawMessage `json:"value"`
}

// Snapshot encodes every open slice as JSON. Slices appear sorted by name,
// so equal states give equal bytes.
//
// Each slice is copied under its own lock, one after another, so take a
// snapshot while nothing writes to the store (Eino saves a checkpoint after
// the tool calls of a turn have ended): during concurrent writes every
// slice is consistent by itself, but two slices may disagree, such as a
// log and a counter kept beside it.
func (s *Store) Snapshot() ([]byte, error) {
	s.mu.Lock()
	all := make([]slice, 0, len(s.open))
	for _, o := range s.open {
		all = append(all, o.sl)
	}
	s.mu.Unlock()
	slices.SortFunc(all, func(a, b slice) int { return strings.Compare(a.sliceName(), b.sliceName()) })

	snap := Snapshot{SchemaVersion: SchemaVersion, Slices: make([]SliceSnapshot, 0, len(all))}
	for _, sl := range all {
		ss, err := sl.snapshot()
		if err != nil {
			return nil, fmt.Errorf("session: snapshot %s: %w", sl.sliceName(), err)
		}
		snap.Slices = append(snap.Slices, ss)
	}
	b, err := json.Marshal(snap)
	if err != nil {
		return nil, err
	}
	return escapeReplacementChars(b), nil
}

// escapeReplacementChars writes every U+FFFD in b as the escape \ufffd.
// encoding/json writes an invalid UTF-8 byte in a string as \ufffd but a
// real U+FFFD, which is what decoding that escape gives, as raw bytes; with
// both as escapes, a snapshot restored and taken again has the same bytes.
// Outside strings JSON is ASCII, so only string contents change.
func escapeReplacementChars(b []byte) []byte {
	if !bytes.Contains(b, utf8FFFD) {
		return b
	}
	return bytes.ReplaceAll(b, utf8FFFD, []byte(`\ufffd`))
}

var utf8FFFD = []byte(string(utf8.RuneError))

// Restore replaces the state of every open slice with the one in data.
// Slices the snapshot does not mention are emptied. It fails, leaving the
// store untouched, if data is not a snapshot, comes from a newer
// [SchemaVersion] (a [*SnapshotVersionError]), or names a slice the store has not
// opened (a [*SliceError] wrapping [ErrUnknownSlice]).
//
// Restore is atomic for each slice but not across slices: restore while
// nothing else writes to the store.
func (s *Store) Restore(data []byte) error {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("%w: not a JSON object", ErrCorruptSnapshot)
	}
	var snap Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return fmt.Errorf("%w: %v", ErrCorruptSnapshot, err)
	}
	if snap.SchemaVersion > SchemaVersion {
		return &SnapshotVersionError{Got: snap.SchemaVersion, Supported: SchemaVersion}
	}
	if snap.SchemaVersion < 0 {
		return fmt.Errorf("%w: negative schema version %d", ErrCorruptSnapshot, snap.SchemaVersion)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[string]bool, len(snap.Slices))
	commits := make([]func(), 0, len(snap.Slices))
	var errs []error
	for _, ss := range snap.Slices {
		sl, ok := s.byName(ss.Name)
		switch {
		case !ok:
			errs = append(errs, &SliceError{Name: ss.Name, Err: ErrUnknownSlice})
			continue
		case seen[ss.Name]:
			errs = append(errs, &SliceError{Name: ss.Name, Err: fmt.Errorf("%w: slice appears twice", ErrCorruptSnapshot)})
			continue
		case ss.Kind != sl.sliceKind():
			errs = append(errs, &SliceError{Name: ss.Name, Err: fmt.Errorf("%w: kind %q, want %q", ErrCorruptSnapshot, ss.Kind, sl.sliceKind())})
			continue
		}
		seen[ss.Name] = true
		commit, err := sl.prepare(ss)
		if err != nil {
			errs = append(errs, &SliceError{Name: ss.Name, Err: err})
			continue
		}
		commits = append(commits, commit)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, commit := range commits {
		commit()
	}
	for _, o := range s.open {
		if !seen[o.name] {
			o.sl.reset()
		}
	}
	return nil
}

func (l *Log[T]) snapshot() (SliceSnapshot, error) {
	items, total := l.entries()
	ss := SliceSnapshot{Name: l.name, Kind: kindLog, Total: total}
	if len(items) > 0 {
		ss.Entries = make([]EntrySnapshot, len(items))
	}
	for i, e := range items {
		b, err := json.Marshal(e.v)
		if err != nil {
			return SliceSnapshot{}, err
		}
		ss.Entries[i] = EntrySnapshot{At: e.at, Value: b}
	}
	return ss, nil
}

// maxTotal bounds the count of a restored log. No run appends anywhere
// near that many entries, and a count closer to math.MaxInt64 would leave
// the positions of later appends too little room before they overflow.
const maxTotal = 1 << 62

func (l *Log[T]) prepare(ss SliceSnapshot) (func(), error) {
	if ss.Total < int64(len(ss.Entries)) {
		return nil, fmt.Errorf("%w: total %d is less than the %d entries kept", ErrCorruptSnapshot, ss.Total, len(ss.Entries))
	}
	if ss.Total > maxTotal {
		return nil, fmt.Errorf("%w: total %d is more than a log can count", ErrCorruptSnapshot, ss.Total)
	}
	items := make([]entry[T], len(ss.Entries))
	for i, es := range ss.Entries {
		if len(es.Value) == 0 {
			return nil, fmt.Errorf("%w: entry %d has no value", ErrCorruptSnapshot, i)
		}
		if err := json.Unmarshal(es.Value, &items[i].v); err != nil {
			return nil, fmt.Errorf("%w: entry %d: %v", ErrCorruptSnapshot, i, err)
		}
		items[i].at = es.At
	}
	return func() { l.load(items, ss.Total) }, nil
}

func (v *Value[T]) snapshot() (SliceSnapshot, error) {
	x, set := v.Latest()
	ss := SliceSnapshot{Name: v.name, Kind: kindValue}
	if !set {
		return ss, nil
	}
	b, err := json.Marshal(x)
	if err != nil {
		return SliceSnapshot{}, err
	}
	ss.Value = b
	return ss, nil
}

func (v *Value[T]) prepare(ss SliceSnapshot) (func(), error) {
	if len(ss.Entries) > 0 || ss.Total != 0 {
		return nil, fmt.Errorf("%w: a value slice has log entries", ErrCorruptSnapshot)
	}
	if len(ss.Value) == 0 {
		return v.Clear, nil
	}
	var x T
	if err := json.Unmarshal(ss.Value, &x); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorruptSnapshot, err)
	}
	// x was just decoded and shares nothing, so it is stored as it is,
	// without a clone: installing a snapshot runs none of T's own code,
	// which could panic halfway through a restore.
	return func() {
		v.mu.Lock()
		v.v, v.set = x, true
		v.version.Add(1)
		v.mu.Unlock()
	}, nil
}
