package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
)

// SyncPolicy says when a FileSink asks the operating system to make its
// data durable (fsync). The zero SyncPolicy is SyncNever. It is a plain
// value and safe for concurrent use.
type SyncPolicy int

const (
	// SyncNever leaves durability to the operating system. Data handed to
	// it survives a crash of the process, not of the machine. Default.
	SyncNever SyncPolicy = iota
	// SyncOnFlush syncs on every Flush and on Close.
	SyncOnFlush
	// SyncPeriodic syncs after every FileOptions.SyncEvery records, and
	// on every Flush and on Close.
	SyncPeriodic
)

// Defaults of FileOptions.
const (
	DefaultBufferSize = 256 << 10
	DefaultSyncEvery  = 1000
)

// FileOptions configure a FileSink. A nil *FileOptions means the defaults,
// and so does the zero value of every field. The sink reads it once when
// it is created.
type FileOptions struct {
	// BufferSize is the size of the write buffer. Zero means
	// DefaultBufferSize.
	BufferSize int

	// Sync is when to fsync; SyncEvery is the record count for
	// SyncPeriodic (zero means DefaultSyncEvery). Sync applies only to
	// destinations with a Sync() error method, such as *os.File.
	Sync      SyncPolicy
	SyncEvery int

	// Truncate empties an existing file on open. By default records are
	// appended to it.
	Truncate bool

	// OnError receives I/O errors, including those that lose records Write
	// had accepted (see Dropped). Nil logs them with log/slog at warning
	// level. It runs on the goroutine calling the sink: behind a Recorder,
	// the Recorder's own, so it must not call the Recorder's Flush or Close.
	OnError func(ctx context.Context, err error)
}

// FileSink writes records as JSON Lines. It is an encoder over an
// io.Writer: Write encodes the record as one line into a buffer, written
// out when full, on Flush and on Close. Behind a Recorder, which calls it
// from its own goroutine, it also writes the buffer out whenever the
// Recorder's queue runs empty, so records reach the operating system
// promptly at low load and in large batches at high load.
//
// An I/O error is reported to OnError, returned by the call that met it
// (or by the next Flush or Close, when the write out happened on its own)
// and makes every later Write fail with it.
//
// A FileSink is safe for concurrent use. Create it with NewFileSink or
// NewWriterSink; the zero FileSink has no destination and is not usable.
// It starts no goroutine. Close it, or the Recorder writing to it, when
// done: records still in the buffer are written only by Flush or Close.
type FileSink struct {
	mu      sync.Mutex
	w       io.Writer
	file    io.Closer // closed by Close; nil for NewWriterSink
	syncer  interface{ Sync() error }
	size    int     // FileOptions.BufferSize
	buf     []byte  // whole records not yet written out, grown as needed up to size
	enc     encoder // remembers what the records of a run share
	sync    SyncPolicy
	every   int
	onError func(context.Context, error)

	closed    bool
	closeErr  error
	failure   error // first I/O error; sticky
	sinceSync int   // records since the last sync
	// clean says a Flush wrote out, and synced as the policy says, every
	// record written before it, and none was written since.
	clean   bool
	ends    []int // where each record in buf ends in it, in order
	dropped atomic.Uint64
}

// NewFileSink opens (creating if needed) the file at path for appending
// and returns a sink writing to it. A new file gets mode 0600 and missing
// parent directories mode 0700, since trajectories hold prompts, tool
// output and possibly secrets. An existing file keeps its mode.
//
// An existing regular file whose last byte is not a newline, such as one
// whose last write was cut short by a crash, first gets a newline, so the
// unfinished line stays a line of its own and the records appended after
// it stay readable. A Reader then reports that line as a *LineError and
// goes on past it on the next call; ReadAll and ReadFile stop there.
func NewFileSink(path string, opts *FileOptions) (*FileSink, error) {
	truncate := opts != nil && opts.Truncate
	f, err := openTrajectory(path, truncate)
	if err != nil {
		return nil, err
	}
	if !truncate {
		if err := endLine(f, path); err != nil {
			f.Close()
			return nil, fmt.Errorf("recorder: end the last line of the trajectory file: %w", err)
		}
	}
	return newFileSink(f, f, opts), nil
}

// openTrajectory opens the file at path for appending, emptied if
// truncate is set, creating it and its directory if needed.
func openTrajectory(path string, truncate bool) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("recorder: create trajectory directory: %w", err)
	}
	flag := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if truncate {
		flag |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, fmt.Errorf("recorder: open trajectory file: %w", err)
	}
	return f, nil
}

// endLine appends a newline to the regular file f, open for appending at
// path, unless it is empty or already ends with one. The last byte is read
// through a second, read-only handle; a file that cannot be read is left
// as it is.
func endLine(f *os.File, path string) error {
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
		return nil
	}
	if last, ok := lastByte(path, info.Size()); !ok || last == '\n' {
		return nil
	}
	_, err = f.Write([]byte{'\n'})
	return err
}

// lastByte reads the last byte of the file at path, size bytes long,
// through a read-only handle. It reports false if it cannot.
func lastByte(path string, size int64) (byte, bool) {
	r, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer r.Close()
	var last [1]byte
	if _, err := r.ReadAt(last[:], size-1); err != nil {
		return 0, false
	}
	return last[0], true
}

// NewWriterSink returns a sink writing JSON Lines to w, for example
// os.Stdout or a network stream. It behaves like a FileSink, except that
// Close does not close w. w is used by one goroutine at a time.
func NewWriterSink(w io.Writer, opts *FileOptions) *FileSink {
	return newFileSink(w, nil, opts)
}

func newFileSink(w io.Writer, file io.Closer, opts *FileOptions) *FileSink {
	if opts == nil {
		opts = &FileOptions{}
	}
	s := &FileSink{
		enc:     encoder{remembers: true},
		w:       w,
		file:    file,
		sync:    opts.Sync,
		every:   opts.SyncEvery,
		onError: opts.OnError,
	}
	s.syncer, _ = w.(interface{ Sync() error })
	s.size = opts.BufferSize
	if s.size <= 0 {
		s.size = DefaultBufferSize
	}
	if s.every <= 0 {
		s.every = DefaultSyncEvery
	}
	return s
}

// Dropped returns how many records Write accepted (returned nil for) that
// an I/O error then kept from reaching the destination whole. A record the
// destination took only in part counts as dropped; one it took whole does
// not. Records Write refused are counted by the caller (Recorder.Dropped).
func (s *FileSink) Dropped() uint64 { return s.dropped.Load() }

// initialBuffer is the room a buffer starts with: the records of a short
// run, or of a batch, with no copy as it grows.
const initialBuffer = 4 << 10

// maxKeptBuffer bounds the room an empty buffer keeps: twice the larger of
// it and BufferSize, so that one huge record does not pin its memory in
// the sink.
const maxKeptBuffer = 64 << 10

// Write encodes r as one JSON line into the buffer, writing out the
// records before it first if the line makes the buffer overflow. It
// returns an error wrapping ErrEncode if r cannot be encoded, ErrClosed
// after Close, and the first I/O error once one happened. It does not
// wait on ctx: the only waits are the destination's own.
func (s *FileSink) Write(ctx context.Context, r *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.failure != nil {
		return s.failure
	}
	return s.write(ctx, r)
}

// write is Write for an open sink that has not failed; s.mu is held.
func (s *FileSink) write(ctx context.Context, r *Record) error {
	if s.buf == nil {
		s.buf = make([]byte, 0, min(s.size, initialBuffer))
	}
	s.clean = false
	start := len(s.buf)
	b, err := s.enc.appendRecord(s.buf, r)
	if err != nil {
		s.buf = b[:start]
		return err
	}
	s.buf = append(b, '\n')
	if len(s.buf) > s.size {
		if err := s.overflow(ctx, start); err != nil {
			return err
		}
	} else {
		s.ends = append(s.ends, len(s.buf))
	}
	if s.sync == SyncPeriodic {
		s.countForSync(ctx)
	}
	return nil
}

// overflow keeps the record encoded at the end of the buffer, from start,
// which made the buffer overflow, by writing out the records before it
// first: the buffer then only ever holds whole records, and a failed write
// out knows which ones it lost. A record larger than the buffer on its own
// is written out at once; if that fails, only this record is lost, and
// the caller counts it.
func (s *FileSink) overflow(ctx context.Context, start int) error {
	if start > 0 {
		if err := s.writeBuffer(ctx, start); err != nil {
			return err
		}
	}
	if len(s.buf) > s.size {
		return s.writeBuffer(ctx, len(s.buf))
	}
	s.ends = append(s.ends, len(s.buf))
	return nil
}

// countForSync counts a record written under SyncPeriodic, and writes the
// buffer out and syncs every SyncEvery records.
func (s *FileSink) countForSync(ctx context.Context) {
	// A destination that cannot sync gets no sync, and so no write out
	// for one either. A failure here is the buffer's: Dropped counts the
	// records it lost, this one included, so Write accepted it.
	if s.syncer != nil {
		s.sinceSync++
		if s.sinceSync >= s.every {
			s.writeOut(ctx, true)
		}
	}
}

// Flush writes the buffer out to the destination (and syncs it, under
// SyncOnFlush or SyncPeriodic). It returns the first I/O error if one
// happened, or ErrClosed after Close.
func (s *FileSink) Flush(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	err := s.writeOut(ctx, s.sync != SyncNever)
	s.clean = err == nil
	return err
}

// flushed reports whether a Flush now would do nothing and return nil:
// the last one wrote out and synced every record written before it, none
// was written since, and the sink is open and has not failed.
func (s *FileSink) flushed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clean && !s.closed && s.failure == nil
}

// idle writes the buffer out when the Recorder's queue runs empty.
func (s *FileSink) idle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed && s.failure == nil && len(s.buf) > 0 {
		s.writeOut(context.Background(), false)
	}
}

// Close writes the buffer out, syncs (unless Sync is SyncNever) and closes
// the file. It is idempotent: later calls return the first one's result.
func (s *FileSink) Close(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.closeErr
	}
	s.closed = true
	s.closeErr = s.writeOut(ctx, s.sync != SyncNever)
	if s.file != nil {
		if err := s.file.Close(); err != nil && s.closeErr == nil {
			s.closeErr = s.fail(ctx, fmt.Errorf("recorder: close trajectory file: %w", err))
		}
	}
	return s.closeErr
}

// writeOut empties the buffer into the destination and, if sync is set,
// syncs it. It returns the sink's first I/O error, old or new.
func (s *FileSink) writeOut(ctx context.Context, sync bool) error {
	if s.failure != nil {
		return s.failure
	}
	if err := s.writeBuffer(ctx, len(s.buf)); err != nil {
		return err
	}
	if sync && s.syncer != nil {
		return s.syncOut(ctx)
	}
	return nil
}

// writeBuffer writes the first n bytes of the buffer to the destination
// in one write: all of them, or those of the records before the one buffer
// has just added, which then moves to the start of the buffer. A failed
// write loses the buffer: lose counts the records it did not write whole.
func (s *FileSink) writeBuffer(ctx context.Context, n int) error {
	if n == 0 {
		return nil
	}
	written, err := s.w.Write(s.buf[:n])
	if err == nil && written < n {
		err = io.ErrShortWrite
	}
	if err != nil {
		return s.lose(ctx, written, fmt.Errorf("recorder: write trajectory: %w", err))
	}
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
	s.ends = s.ends[:0]
	if len(s.buf) == 0 && cap(s.buf) > 2*max(s.size, maxKeptBuffer) {
		s.buf = nil
	}
	return nil
}

// syncOut syncs the destination. Pipes and terminals cannot be synced
// (EINVAL); that is no failure.
func (s *FileSink) syncOut(ctx context.Context) error {
	s.sinceSync = 0
	err := s.syncer.Sync()
	if err == nil || errors.Is(err, syscall.EINVAL) || errors.Is(err, os.ErrInvalid) {
		return nil
	}
	return s.fail(ctx, fmt.Errorf("recorder: sync trajectory: %w", err))
}

// lose counts as dropped the records in the buffer that a failed write
// out did not write whole, having written the first written bytes, and
// fails.
func (s *FileSink) lose(ctx context.Context, written int, err error) error {
	whole, _ := slices.BinarySearch(s.ends, written+1)
	s.dropped.Add(uint64(len(s.ends) - whole))
	s.ends = s.ends[:0]
	s.buf = s.buf[:0]
	return s.fail(ctx, err)
}

// fail records the first I/O error, reports err and returns the first.
func (s *FileSink) fail(ctx context.Context, err error) error {
	if s.failure == nil {
		s.failure = err
	}
	// Behind a Recorder, ctx is the ctx the record was emitted with, which
	// may have ended since; the handler gets its values.
	ctx = background(ctx)
	if s.onError != nil {
		s.onError(ctx, err)
	} else {
		slog.WarnContext(ctx, "lookout recorder: trajectory sink error", "err", err)
	}
	return s.failure
}
