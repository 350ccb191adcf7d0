package recorder_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

// testWriter is a destination whose writes can be held, failed and
// watched.
type testWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	entered chan struct{} // gets a value each time Write starts
	wrote   chan struct{} // gets a value each time Write has stored its bytes
	err     error
	syncs   int
	syncErr error
	closed  bool
}

func newTestWriter() *testWriter {
	return &testWriter{entered: make(chan struct{}, 1024), wrote: make(chan struct{}, 1024)}
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.entered <- struct{}{}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.buf.Write(p)
	w.wrote <- struct{}{}
	return n, err
}

func (w *testWriter) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.syncs++
	return w.syncErr
}

func (w *testWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return nil
}

func (w *testWriter) records(t *testing.T) []recorder.Record {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	recs, tear, err := recorder.ReadAll(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	require.Nil(t, tear)
	return recs
}

func (w *testWriter) syncCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncs
}

func budgetRecord(seq uint64) *recorder.Record {
	return &recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: seq, RunID: "r", RecordedAt: t0, Payload: &recorder.BudgetRecord{Resource: "tokens", Amount: int64(seq)}}
}

func seqs(recs []recorder.Record) []uint64 {
	var out []uint64
	for _, r := range recs {
		out = append(out, r.Seq)
	}
	return out
}

func TestFileSinkCreatesPrivateFilesAndDirectories(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs", "today")
	path := filepath.Join(dir, "run.jsonl")
	s, err := recorder.NewFileSink(path, nil)
	require.NoError(t, err)
	require.NoError(t, s.Write(context.Background(), budgetRecord(0)))
	require.NoError(t, s.Close(context.Background()))

	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	recs, tear, err := recorder.ReadFile(path)
	require.NoError(t, err)
	assert.Nil(t, tear)
	assert.Len(t, recs, 1)
}

func TestFileSinkAppendsUnlessToldToTruncate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	write := func(opts *recorder.FileOptions, seq uint64) {
		s, err := recorder.NewFileSink(path, opts)
		require.NoError(t, err)
		require.NoError(t, s.Write(ctx, budgetRecord(seq)))
		require.NoError(t, s.Close(ctx))
	}
	write(nil, 0)
	write(nil, 1)
	recs, _, err := recorder.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, []uint64{0, 1}, seqs(recs))

	write(&recorder.FileOptions{Truncate: true}, 7)
	recs, _, err = recorder.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, []uint64{7}, seqs(recs))
}

// TestFileSinkEndsATornLastLineBeforeAppending appends to a file whose
// last record was cut short: the cut line must stay a line of its own,
// and the records appended after it must read back.
func TestFileSinkEndsATornLastLineBeforeAppending(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	write := func(seqs ...uint64) {
		s, err := recorder.NewFileSink(path, nil)
		require.NoError(t, err)
		for _, seq := range seqs {
			require.NoError(t, s.Write(ctx, budgetRecord(seq)))
		}
		require.NoError(t, s.Close(ctx))
	}
	write() // an empty file gets no newline
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Empty(t, data)

	write(0)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	const torn = `{"schema_version":1,"seq":1,"run_id":"r","par`
	_, err = f.WriteString(torn)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	write(2, 3)
	write(4) // a file that ends with a newline gets no blank line
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, 5, bytes.Count(data, []byte("\n")), "%s", data)
	assert.Contains(t, string(data), torn+"\n{")

	f, err = os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rd := recorder.NewReader(f)
	var got []uint64
	var lineErrs []int
	for rec, err := range rd.All() {
		var le *recorder.LineError
		if errors.As(err, &le) {
			lineErrs = append(lineErrs, le.Line)
			continue
		}
		require.NoError(t, err)
		got = append(got, rec.Seq)
	}
	assert.Equal(t, []uint64{0, 2, 3, 4}, got)
	assert.Equal(t, []int{2}, lineErrs, "the torn line is reported where it is")
	assert.Nil(t, rd.Tear())
}

func TestFileSinkFailsToOpenAnUnwritablePath(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err := recorder.NewFileSink(filepath.Join(file, "run.jsonl"), nil)
	assert.Error(t, err, "a file cannot be a directory")
}

func TestFileSinkBehindARecorderWritesOutWithoutAFlush(t *testing.T) {
	ctx := context.Background()
	w := newTestWriter()
	rec := newRec(t, recorder.NewWriterSink(w, nil), nil)
	run := rec.ResumeRun(recorder.RunInfo{}, 5)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	<-w.wrote // written to the destination once the queue ran empty
	assert.Equal(t, []uint64{5}, seqs(w.records(t)))
}

func TestFileSinkWithoutARecorderWritesOutOnlyWhenAsked(t *testing.T) {
	ctx := context.Background()
	w := newTestWriter()
	s := recorder.NewWriterSink(w, nil)
	require.NoError(t, s.Write(ctx, budgetRecord(0)))
	assert.Empty(t, w.records(t), "the record waits in the buffer")
	require.NoError(t, s.Flush(ctx))
	assert.Equal(t, []uint64{0}, seqs(w.records(t)))
	require.NoError(t, s.Close(ctx))
}

func TestWriterSinkDoesNotCloseItsWriter(t *testing.T) {
	w := newTestWriter()
	s := recorder.NewWriterSink(w, nil)
	require.NoError(t, s.Close(context.Background()))
	assert.False(t, w.closed)
}

func TestFileSinkReportsIOErrorsAndFailsLaterWrites(t *testing.T) {
	ctx := context.Background()
	errBoom := errors.New("boom")
	w := newTestWriter()
	w.err = errBoom
	var handled []error
	var mu sync.Mutex
	s := recorder.NewWriterSink(w, &recorder.FileOptions{OnError: func(_ context.Context, err error) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, err)
	}})
	require.NoError(t, s.Write(ctx, budgetRecord(0)), "the failure happens later, when the buffer is written out")
	assert.ErrorIs(t, s.Flush(ctx), errBoom)
	assert.ErrorIs(t, s.Write(ctx, budgetRecord(1)), errBoom, "the sink stays failed")
	assert.ErrorIs(t, s.Close(ctx), errBoom)
	assert.ErrorIs(t, s.Write(ctx, budgetRecord(2)), recorder.ErrClosed, "closed wins over failed")
	assert.Equal(t, uint64(1), s.Dropped())
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, handled, 1)
	assert.ErrorIs(t, handled[0], errBoom)
}

func TestFileSinkWithDropPolicyKeepsTheRunGoing(t *testing.T) {
	ctx := context.Background()
	w := newTestWriter()
	w.err = errors.New("disk gone")
	s := recorder.NewWriterSink(w, &recorder.FileOptions{OnError: func(context.Context, error) {}})
	rec := newRec(t, s, &recorder.Options{OnError: func(context.Context, error) {}})
	run, err := rec.StartRun(ctx, recorder.RunInfo{})
	require.NoError(t, err)
	require.Error(t, rec.Flush(ctx))
	assert.Equal(t, uint64(1), s.Dropped(), "the sink counts the record it accepted and lost")
	for range 10 {
		require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	}
	require.Error(t, rec.Flush(ctx))
	assert.Equal(t, uint64(10), rec.Dropped(), "every write after the failure is counted")
	assert.Error(t, rec.Close(ctx))
}

func TestFileSinkReturnsEncodingErrors(t *testing.T) {
	ctx := context.Background()
	w := newTestWriter()
	s := recorder.NewWriterSink(w, nil)
	bad := &recorder.Record{Payload: &recorder.Unknown{Name: "x", Body: []byte("{oops")}}
	assert.ErrorIs(t, s.Write(ctx, bad), recorder.ErrEncode)
	require.NoError(t, s.Close(ctx))
	assert.Empty(t, w.records(t))
}

func TestFileSinkSyncPolicies(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		opts      recorder.FileOptions
		wantFlush int // syncs after 7 writes and a flush
		wantClose int // syncs after close
	}{
		{"never syncs by default", recorder.FileOptions{}, 0, 0},
		{"syncs on flush and close", recorder.FileOptions{Sync: recorder.SyncOnFlush}, 1, 2},
		{"syncs every N records and on flush and close", recorder.FileOptions{Sync: recorder.SyncPeriodic, SyncEvery: 3}, 3, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newTestWriter()
			s := recorder.NewWriterSink(w, &tc.opts)
			for i := range 7 {
				require.NoError(t, s.Write(ctx, budgetRecord(uint64(i))))
			}
			require.NoError(t, s.Flush(ctx))
			assert.Equal(t, tc.wantFlush, w.syncCount())
			require.NoError(t, s.Close(ctx))
			assert.Equal(t, tc.wantClose, w.syncCount())
		})
	}
}

func TestSyncOnAnUnsyncableDestinationIsNotAnError(t *testing.T) {
	ctx := context.Background()
	w := newTestWriter()
	w.syncErr = &os.PathError{Op: "sync", Path: "/dev/stdout", Err: syscall.EINVAL}
	s := recorder.NewWriterSink(w, &recorder.FileOptions{Sync: recorder.SyncOnFlush})
	require.NoError(t, s.Write(ctx, budgetRecord(0)))
	require.NoError(t, s.Flush(ctx))
	require.NoError(t, s.Close(ctx))
}

// cappedWriter accepts its first cap bytes and fails every write after
// that, writing what still fits of the write that crosses the cap.
type cappedWriter struct {
	*testWriter
	cap int
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	w.entered <- struct{}{}
	w.mu.Lock()
	defer w.mu.Unlock()
	room := w.cap - w.buf.Len()
	if room >= len(p) {
		return w.buf.Write(p)
	}
	n, _ := w.buf.Write(p[:max(room, 0)])
	return n, errors.New("disk full")
}

// TestFileSinkCountsExactlyTheRecordsAnIOErrorLost checks that after a
// failed write every record Write accepted is either whole in the
// destination or counted in Dropped, never both: records the buffer
// already wrote out before the failure are not counted as lost.
func TestFileSinkCountsExactlyTheRecordsAnIOErrorLost(t *testing.T) {
	ctx := context.Background()
	for _, capBytes := range []int{0, 100, 1000, 2000, 2500, 4000, 6000, 9000, 12000} {
		w := &cappedWriter{testWriter: newTestWriter(), cap: capBytes}
		s := recorder.NewWriterSink(w, &recorder.FileOptions{BufferSize: 1024, OnError: func(context.Context, error) {}})
		accepted := 0
		for seq := range uint64(40) {
			r := budgetRecord(seq)
			if seq%7 == 3 {
				// Longer than the buffer, so written past it.
				r.Payload = &recorder.BudgetRecord{Resource: strings.Repeat("x", 1500)}
			}
			if s.Write(ctx, r) == nil {
				accepted++
			}
		}
		assert.Error(t, s.Close(ctx), "cap %d", capBytes)

		w.mu.Lock()
		recs, _, err := recorder.ReadAll(bytes.NewReader(w.buf.Bytes()))
		w.mu.Unlock()
		require.NoError(t, err)
		assert.Equal(t, accepted, len(recs)+int(s.Dropped()),
			"cap %d: %d records written whole and %d counted as dropped, of %d accepted", capBytes, len(recs), s.Dropped(), accepted)
	}
}

func TestCloseAfterShutdownReturnsItsResultWhateverTheContext(t *testing.T) {
	ctx := context.Background()
	s := recorder.NewWriterSink(newTestWriter(), nil)
	require.NoError(t, s.Write(ctx, budgetRecord(0)))
	require.NoError(t, s.Close(ctx))

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for range 100 {
		require.NoError(t, s.Close(cancelled), "the shutdown is over, so the ended context does not matter")
	}
}

// TestPeriodicSyncOnAnUnsyncableDestinationKeepsBatching checks that
// SyncPeriodic on a destination without a Sync method (a network stream,
// a compressor) behaves like SyncNever, rather than writing out the buffer
// after every record once SyncEvery records have gone by.
func TestPeriodicSyncOnAnUnsyncableDestinationKeepsBatching(t *testing.T) {
	ctx := context.Background()
	w := newTestWriter()
	s := recorder.NewWriterSink(struct{ io.Writer }{w}, &recorder.FileOptions{Sync: recorder.SyncPeriodic, SyncEvery: 10})
	for seq := uint64(0); seq <= 100; seq++ {
		require.NoError(t, s.Write(ctx, budgetRecord(seq)))
	}
	require.NoError(t, s.Close(ctx))
	assert.Len(t, w.records(t), 101)
	assert.Equal(t, 1, len(w.entered), "the 101 records fit one buffer and go out in one write")
}

// shortWriter takes at most n bytes of each write and reports no error.
type shortWriter struct {
	buf bytes.Buffer
	n   int
}

func (w *shortWriter) Write(p []byte) (int, error) {
	return w.buf.Write(p[:min(len(p), w.n)])
}

// TestFileSinkTakesAShortWriteForAnError checks that a destination that
// takes part of a write without an error fails the sink with
// io.ErrShortWrite, and that the records it did not take whole are
// counted as dropped.
func TestFileSinkTakesAShortWriteForAnError(t *testing.T) {
	ctx := context.Background()
	w := &shortWriter{n: 300}
	s := recorder.NewWriterSink(w, &recorder.FileOptions{OnError: func(context.Context, error) {}})
	for seq := range uint64(5) {
		require.NoError(t, s.Write(ctx, budgetRecord(seq)))
	}
	require.ErrorIs(t, s.Flush(ctx), io.ErrShortWrite)
	recs, tear, err := recorder.ReadAll(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	require.NotNil(t, tear, "the write was cut inside a record")
	assert.Equal(t, 5, len(recs)+int(s.Dropped()))
	assert.ErrorIs(t, s.Write(ctx, budgetRecord(5)), io.ErrShortWrite)
}

// writesWriter keeps each write apart.
type writesWriter struct{ writes []string }

func (w *writesWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

// TestFileSinkWritesWholeRecordsABufferAtATime checks that a FileSink
// writes out whole records, as many as its buffer holds, in one write,
// and a record larger than its buffer in a write of its own.
func TestFileSinkWritesWholeRecordsABufferAtATime(t *testing.T) {
	ctx := context.Background()
	w := &writesWriter{}
	const size = 500
	s := recorder.NewWriterSink(w, &recorder.FileOptions{BufferSize: size})
	var want []uint64
	for seq := range uint64(30) {
		r := budgetRecord(seq)
		if seq%9 == 4 {
			r.Payload = &recorder.BudgetRecord{Resource: strings.Repeat("x", 2*size)}
		}
		require.NoError(t, s.Write(ctx, r))
		want = append(want, seq)
	}
	require.NoError(t, s.Flush(ctx))
	var all strings.Builder
	for i, p := range w.writes {
		require.True(t, strings.HasSuffix(p, "\n"), "write %d ends a record", i)
		if n := strings.Count(p, "\n"); n > 1 {
			assert.LessOrEqual(t, len(p), size, "write %d of %d records", i, n)
		}
		if i < len(w.writes)-1 && len(p) <= size {
			next := w.writes[i+1]
			first := next[:strings.IndexByte(next, '\n')+1]
			assert.Greater(t, len(p)+len(first), size, "write %d left room for the next record", i)
		}
		all.WriteString(p)
	}
	recs, tear, err := recorder.ReadAll(strings.NewReader(all.String()))
	require.NoError(t, err)
	require.Nil(t, tear)
	assert.Equal(t, want, seqs(recs))
}

// panicsOnce is a payload of a caller's whose Kind panics the first time
// it is asked.
type panicsOnce struct{ asked atomic.Bool }

func (p *panicsOnce) Kind() recorder.Kind {
	if !p.asked.Swap(true) {
		panic("kind bug")
	}
	return "my.kind"
}

func TestFileSinkBehindARecorderOutlivesARecordThatPanics(t *testing.T) {
	ctx := context.Background()
	w := newTestWriter()
	rec := newRec(t, recorder.NewWriterSink(w, nil), nil)
	run := rec.ResumeRun(recorder.RunInfo{}, 0)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	require.NoError(t, run.Emit(ctx, &panicsOnce{}))
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	require.NoError(t, rec.Flush(ctx))
	// The Recorder's goroutine goes on: the record is written once its
	// Kind stops panicking, and so is the next.
	assert.Equal(t, []uint64{0, 1, 2}, seqs(w.records(t)))
}
