package recorder

import (
	"bytes"
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncCounter is a file's stand-in that counts its syncs.
type syncCounter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	syncs int
}

func (w *syncCounter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}

func (w *syncCounter) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.syncs++
	return nil
}

func (w *syncCounter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncs
}

// parked waits until rec's goroutine is parked with an empty queue.
func parked(rec *Recorder) {
	for {
		p := rec.proc
		p.mu.Lock()
		ok := p.parked && len(p.queue) == 0
		p.mu.Unlock()
		if ok {
			return
		}
		runtime.Gosched()
	}
}

// TestAFlushWithNothingNewLeavesTheSinkAlone checks that a Flush right
// after another, with no record emitted in between, returns at once
// without flushing (here, syncing) the sink again, and that a record
// emitted since makes the next Flush flush it.
func TestAFlushWithNothingNewLeavesTheSinkAlone(t *testing.T) {
	ctx := context.Background()
	w := &syncCounter{}
	rec := New(NewWriterSink(w, &FileOptions{Sync: SyncOnFlush}), nil)
	defer rec.Close(ctx)
	run, err := rec.StartRun(ctx, RunInfo{AgentName: "a"})
	require.NoError(t, err)
	require.NoError(t, rec.Flush(ctx))
	require.Equal(t, 1, w.count())
	parked(rec)
	require.NoError(t, rec.Flush(ctx))
	assert.Equal(t, 1, w.count(), "a Flush with nothing new synced the file again")

	require.NoError(t, run.Message(ctx, schema.UserMessage("hi")))
	require.NoError(t, rec.Flush(ctx))
	assert.Equal(t, 2, w.count(), "a Flush after a new record did not sync the file")
	assert.Equal(t, 2, bytes.Count(w.buf.Bytes(), []byte("\n")))

	// A Flush with an ended ctx is not answered from the settled state.
	parked(rec)
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if err := rec.Flush(ended); err == nil {
		assert.Equal(t, 3, w.count(), "a Flush with an ended ctx returned nil without flushing")
	}
}

// TestAFlushedFileSinkIsOpenAndSound checks that a FileSink is taken as
// flushed only after a Flush, and not once closed.
func TestAFlushedFileSinkIsOpenAndSound(t *testing.T) {
	s := NewWriterSink(&syncCounter{}, nil)
	assert.False(t, s.flushed(), "a new sink has not been flushed")
	require.NoError(t, s.Flush(context.Background()))
	assert.True(t, s.flushed())
	require.NoError(t, s.Close(context.Background()))
	assert.False(t, s.flushed(), "a closed sink")
}
