package jsonl

import (
	"bufio"
	"errors"
	"io"
)

// Lines reads lines one at a time. It is not safe for concurrent use.
type Lines struct {
	// Max is the longest line, in bytes without its newline, that Next
	// returns; longer ones are reported as too long.
	Max int

	br     *bufio.Reader
	offset int64
	buf    []byte
}

// New returns Lines reading from r, with lines of at most max bytes.
func New(r io.Reader, max int) *Lines {
	return &Lines{Max: max, br: bufio.NewReaderSize(r, 64<<10)}
}

// Next reads one line and returns it without its newline, with the byte
// offset where it starts. terminated reports whether a newline ended it. A
// line longer than Max is consumed and reported with tooLong, without its
// bytes. When the input ends, Next returns what it read of the last line
// (empty when the input ended with a newline) with the reader's error,
// io.EOF at the end. The line is valid until the next call.
func (l *Lines) Next() (line []byte, start int64, terminated, tooLong bool, err error) {
	start = l.offset
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		l.offset += int64(len(chunk))
		tooLong = l.keep(chunk, tooLong)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil {
			line, tooLong := l.ended(tooLong)
			return line, start, true, tooLong, nil
		}
		// The bound above left room for a newline this line lacks.
		if len(l.buf) > l.Max {
			tooLong, l.buf = true, l.buf[:0]
		}
		return l.buf, start, false, tooLong, err
	}
}

// keep appends chunk, a part of the line, to the line unless the line is
// already too long or becomes so, and reports whether it is too long. The
// bound leaves room for the newline.
func (l *Lines) keep(chunk []byte, tooLong bool) bool {
	if tooLong {
		return true
	}
	if len(l.buf)+len(chunk) > l.Max+1 {
		l.buf = l.buf[:0]
		return true
	}
	l.buf = append(l.buf, chunk...)
	return false
}

// ended returns the line a newline ended, without the newline, or nil
// when it is too long.
func (l *Lines) ended(tooLong bool) ([]byte, bool) {
	if tooLong {
		return nil, true
	}
	return l.buf[:len(l.buf)-1], false
}
