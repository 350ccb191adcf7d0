package recorder_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

// TestRecordsWaitingForRoomInAFileAreWrittenOrLostWhole has emitters of
// one run wait for room in a small queue into a file, and give up after
// a moment, while the records written go back to the Recorder to be
// reused: every record is written as it was emitted, once, or counted
// lost, and none is read or changed once it went back (under -race).
func TestRecordsWaitingForRoomInAFileAreWrittenOrLostWhole(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	sink, err := recorder.NewFileSink(path, nil)
	require.NoError(t, err)
	rec := recorder.New(sink, &recorder.Options{QueueSize: 4, Block: true, BlockTimeout: 50 * time.Microsecond,
		OnError: func(context.Context, error) {}})
	run, err := rec.StartRun(ctx, recorder.RunInfo{})
	require.NoError(t, err)
	const emitters, each = 8, 300
	var wg sync.WaitGroup
	for g := range emitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				n := int64(g*each + i + 1)
				if i%2 == 0 {
					_ = run.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: n, Used: -n})
				} else {
					_ = run.ToolEnded(ctx, recorder.ToolEnded{Name: "t", CallIndex: int(n), Result: "result"})
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, rec.Close(ctx))
	recs, tear, err := recorder.ReadFile(path)
	require.NoError(t, err)
	require.Nil(t, tear)
	seen := map[int64]bool{}
	for _, r := range recs[1:] {
		var n int64
		switch p := r.Payload.(type) {
		case *recorder.BudgetRecord:
			n = p.Amount
			require.Equal(t, -n, p.Used, "the fields of one record")
			require.Equal(t, "tokens", p.Resource)
		case *recorder.ToolEnded:
			n = int64(p.CallIndex)
			require.Equal(t, "result", p.Result)
		default:
			t.Fatalf("a %s record", r.Kind())
		}
		require.False(t, seen[n], "record %d written twice", n)
		seen[n] = true
	}
	assert.Equal(t, uint64(emitters*each), uint64(len(seen))+rec.Dropped(), "every record written or counted lost")
}
