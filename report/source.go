package report

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/lookout-go/lookout/internal/jsonl"
	"github.com/lookout-go/lookout/recorder"
)

// A page is made in passes over its records: one in their order, to index
// the runs and follow each query's budget, then one run at a time, twice
// (to measure the page, then to write it), each run's records in seq
// order. Only the index is kept, a few dozen bytes a record: the records
// are read again from their source when a run is built.
type source interface {
	// scan calls fn with each record, in order, and where it is.
	scan(fn func(at place, rec *recorder.Record) error) error
	// read returns the record at p.
	read(p place) (recorder.Record, error)
}

// place is where a record is in its source: its index in a slice, or its
// line's offset and length in JSON Lines.
type place struct {
	off  int64
	size int32
}

// records is a source of records in memory.
type records []recorder.Record

func (rs records) scan(fn func(place, *recorder.Record) error) error {
	for i := range rs {
		if err := fn(place{off: int64(i)}, &rs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (rs records) read(p place) (recorder.Record, error) { return rs[p.off], nil }

// lines is a source of JSON Lines of records, read where they are.
type lines struct {
	r   io.ReaderAt
	buf []byte
}

func (l *lines) scan(fn func(place, *recorder.Record) error) error {
	ls := jsonl.New(io.NewSectionReader(l.r, 0, math.MaxInt64), recorder.MaxLineBytes)
	for n := 1; ; n++ {
		line, start, terminated, tooLong, err := ls.Next()
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("report: %w", err)
		}
		if tooLong {
			return fmt.Errorf("report: line %d: %w", n, recorder.ErrLineTooLong)
		}
		if len(line) > 0 && !allSpace(line) {
			var rec recorder.Record
			if derr := rec.UnmarshalJSON(line); derr != nil {
				if !terminated {
					return nil // a torn last line, which a crash leaves: the records before it are whole
				}
				return fmt.Errorf("report: line %d: %w", n, derr)
			}
			if ferr := fn(place{off: start, size: int32(len(line))}, &rec); ferr != nil {
				return ferr
			}
		}
		if err != nil {
			return nil
		}
	}
}

func (l *lines) read(p place) (recorder.Record, error) {
	if cap(l.buf) < int(p.size) {
		l.buf = make([]byte, p.size)
	}
	buf := l.buf[:p.size]
	if _, err := l.r.ReadAt(buf, p.off); err != nil {
		return recorder.Record{}, fmt.Errorf("report: read the record at offset %d: %w", p.off, err)
	}
	var rec recorder.Record
	if err := rec.UnmarshalJSON(buf); err != nil {
		return recorder.Record{}, fmt.Errorf("report: the record at offset %d: %w", p.off, err)
	}
	return rec, nil
}

// allSpace reports whether b holds only white space.
func allSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
