package adaptertest

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// T0 is the time fake clocks start at.
var T0 = time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)

// Clock is a fake clock that tests advance explicitly. It is safe for
// concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock reading T0.
func NewClock() *Clock { return &Clock{t: T0} }

// Now returns the clock's reading.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Tool is an invokable tool backed by a function of its arguments.
type Tool struct {
	Name string
	Fn   func(ctx context.Context, args string) (string, error)
}

// Info describes the tool.
func (t Tool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: t.Name, Desc: "test tool " + t.Name}, nil
}

// InvokableRun calls Fn.
func (t Tool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	return t.Fn(ctx, args)
}

// Echo returns a tool that answers "<name> ok <args>".
func Echo(name string) Tool {
	return Tool{Name: name, Fn: func(_ context.Context, args string) (string, error) { return name + " ok " + args, nil }}
}

// Failing returns a tool that always fails with msg.
func Failing(name, msg string) Tool {
	return Tool{Name: name, Fn: func(context.Context, string) (string, error) { return "", errors.New(msg) }}
}

// Kinds counts records by kind.
func Kinds(records []recorder.Record) map[recorder.Kind]int {
	out := map[recorder.Kind]int{}
	for _, r := range records {
		out[r.Kind()]++
	}
	return out
}

// ByRun groups records by run id, in order.
func ByRun(records []recorder.Record) map[string][]recorder.Record {
	out := map[string][]recorder.Record{}
	for _, r := range records {
		out[r.RunID] = append(out[r.RunID], r)
	}
	return out
}

// TB is the part of testing.TB that AssertDenseSeq needs.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// AssertDenseSeq fails t unless each run's records have seqs 0, 1, 2, …
// in order.
func AssertDenseSeq(t TB, records []recorder.Record) {
	t.Helper()
	for run, recs := range ByRun(records) {
		for i, r := range recs {
			if r.Seq != uint64(i) {
				t.Fatalf("run %s: record %d has seq %d", run, i, r.Seq)
			}
		}
	}
}
