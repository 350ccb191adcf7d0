package recorder

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/lookout-go/lookout/internal/jsonl"
)

// MaxLineBytes is the longest JSONL line a Reader accepts. Longer lines
// fail with a *LineError wrapping ErrLineTooLong and are skipped.
const MaxLineBytes = 64 << 20

// Tear describes an unfinished last line: the file does not end with a
// newline and its last line is not valid JSON, which is what a crash in
// the middle of a write leaves behind. Every record before it is intact.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Tear struct {
	Line   int   // 1-based line number of the torn line
	Offset int64 // byte offset where the torn line starts
	Bytes  int   // length of the torn line
}

// Reader reads records from JSON Lines. Blank lines are skipped. Create it
// with NewReader; the zero Reader has no input and is not usable. It is not
// safe for concurrent use.
type Reader struct {
	lines *jsonl.Lines
	line  int
	tear  *Tear
	err   error // sticky: io.EOF or the underlying reader's error
}

// NewReader returns a Reader reading JSON Lines from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{lines: jsonl.New(r, MaxLineBytes)}
}

// Next returns the next record. At the end it returns io.EOF; if the last
// line is torn it also returns io.EOF, and Tear reports the tear. A line
// that cannot be decoded gives a *LineError (unwrapping to ErrMalformed,
// ErrNewerVersion or ErrLineTooLong); Next can be called again to go on
// with the following line. An error from the underlying reader is returned
// as is, and again by every later call.
func (r *Reader) Next() (Record, error) {
	for {
		if r.err != nil {
			return Record{}, r.err
		}
		line, start, terminated, tooLong, err := r.lines.Next()
		if rerr := r.readError(line, tooLong, err); rerr != nil {
			return Record{}, rerr
		}
		r.line++
		if tooLong {
			return Record{}, &LineError{Line: r.line, Offset: start, Err: ErrLineTooLong}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return r.decode(line, start, terminated)
	}
}

// readError makes an error from reading a line sticky and returns what
// Next must return at once: the underlying reader's error, or io.EOF when
// the input ended with nothing more to read. At the end of input after a
// last line it returns nil, so that line is still decoded and io.EOF comes
// with the next call.
func (r *Reader) readError(line []byte, tooLong bool, err error) error {
	if err == nil {
		return nil
	}
	if !errors.Is(err, io.EOF) {
		r.err = err
		return err
	}
	r.err = io.EOF
	if len(line) == 0 && !tooLong {
		return io.EOF
	}
	return nil
}

// decode decodes the line that starts at offset start. An unterminated
// line that is not even valid JSON is a tear, reported as io.EOF; any
// other failure is a *LineError.
func (r *Reader) decode(line []byte, start int64, terminated bool) (Record, error) {
	var rec Record
	// UnmarshalJSON directly: json.Unmarshal would validate the line
	// once more before calling it.
	err := rec.UnmarshalJSON(line)
	if err == nil {
		return rec, nil
	}
	if !terminated && !validJSON(line) {
		r.tear = &Tear{Line: r.line, Offset: start, Bytes: len(line)}
		return Record{}, io.EOF
	}
	if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNewerVersion) {
		err = fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return Record{}, &LineError{Line: r.line, Offset: start, Err: err}
}

// Tear returns the torn last line once Next has returned io.EOF, or nil if
// the input ended cleanly.
func (r *Reader) Tear() *Tear { return r.tear }

// All returns an iterator over the remaining records. A *LineError is
// yielded with a zero Record and iteration goes on; an error from the
// underlying reader is yielded last. A torn last line ends iteration
// quietly; check Tear afterwards.
func (r *Reader) All() iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(rec, err) {
				return
			}
			var le *LineError
			if err != nil && !errors.As(err, &le) {
				return
			}
		}
	}
}

// ReadAll reads every record from r. It stops at the first error and
// returns the records read before it with the error. A torn last line is
// not an error: the records before it are returned with the tear.
func ReadAll(r io.Reader) ([]Record, *Tear, error) {
	rd := NewReader(r)
	var out []Record
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, rd.Tear(), nil
		}
		if err != nil {
			return out, nil, err
		}
		out = append(out, rec)
	}
}

// ReadFile reads every record of the JSON Lines file at path, like
// ReadAll.
func ReadFile(path string) ([]Record, *Tear, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return ReadAll(f)
}
