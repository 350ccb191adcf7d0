package observer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// harness runs observers on every call of a scripted trace.
type harness struct {
	t      testing.TB
	clock  *clock
	store  *session.Store
	p      *observer.Pipeline
	errors []error
	events []observer.EfficacyEvent
	// produced holds, per call (index-1), what the pipeline produced.
	produced []*observer.CurrentAssessment
}

func newHarness(t testing.TB, observers ...observer.Observer) *harness {
	t.Helper()
	h := &harness{t: t, clock: &clock{t: start}}
	h.store = session.New(&session.StoreOptions{Now: h.clock.Now})
	configs := make([]observer.Spec, len(observers))
	for i, o := range observers {
		configs[i] = observer.Spec{Observer: o, Trigger: observer.Trigger{OnEveryCall: true}}
	}
	var err error
	h.p, err = observer.NewPipeline(h.store, configs, &observer.PipelineOptions{
		OnError:    func(_ context.Context, err error) { h.errors = append(h.errors, err) },
		OnEfficacy: func(_ context.Context, e observer.EfficacyEvent) { h.events = append(h.events, e) },
	})
	require.NoError(t, err)
	return h
}

// detectors returns the three detectors with their defaults.
func detectors() []observer.Observer {
	return []observer.Observer{stall.New(), cascade.New(), drift.New()}
}

func (h *harness) task(task observer.Task) *harness {
	session.ValueOf[observer.Task](h.store).Seed(task)
	return h
}

// run feeds the calls, a second apart, and returns what the last produced.
func (h *harness) run(recs ...observer.ToolCallRecord) *observer.CurrentAssessment {
	var last *observer.CurrentAssessment
	for _, rec := range recs {
		h.clock.Advance(time.Second)
		_, last = h.p.AfterToolCall(context.Background(), rec)
		h.produced = append(h.produced, last)
	}
	require.Empty(h.t, h.errors, "no observer failed")
	return last
}

// firings lists "observer@call" for every assessment produced.
func (h *harness) firings() []string {
	var out []string
	for i, c := range h.produced {
		if c == nil {
			continue
		}
		for _, a := range c.Assessments {
			out = append(out, fmt.Sprintf("%s@%d", a.Observer, i+1))
		}
	}
	return out
}

// at returns the named observer's assessment produced after call index.
func (h *harness) at(index int, name string) (observer.Assessment, bool) {
	if index < 1 || index > len(h.produced) || h.produced[index-1] == nil {
		return observer.Assessment{}, false
	}
	for _, a := range h.produced[index-1].Assessments {
		if a.Observer == name {
			return a, true
		}
	}
	return observer.Assessment{}, false
}

func (h *harness) mustAt(index int, name string) observer.Assessment {
	h.t.Helper()
	a, ok := h.at(index, name)
	require.True(h.t, ok, "%s fired after call %d; fired: %v", name, index, h.firings())
	return a
}

func times(n int, rec observer.ToolCallRecord) []observer.ToolCallRecord {
	out := make([]observer.ToolCallRecord, n)
	for i := range out {
		out[i] = rec
	}
	return out
}

func concat(parts ...[]observer.ToolCallRecord) []observer.ToolCallRecord {
	var out []observer.ToolCallRecord
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// succeeded is a successful call of tool with JSON arguments args.
func succeeded(tool, args, result string) observer.ToolCallRecord {
	return observer.ToolCallRecord{ToolName: tool, Arguments: args, Result: result, Success: true}
}

// failed is a failed call.
func failed(tool, args, msg string) observer.ToolCallRecord {
	return observer.ToolCallRecord{ToolName: tool, Arguments: args, ErrorMessage: msg}
}

func readFile(path, content string) observer.ToolCallRecord {
	return succeeded("read_file", `{"path":"`+path+`"}`, content)
}

func writeFile(path, content string) observer.ToolCallRecord {
	return succeeded("write_file", `{"path":"`+path+`","content":"`+content+`"}`, "ok")
}

// evidenceLines splits an observation's evidence into lines.
func evidenceLines(a observer.Assessment) []string {
	if len(a.Observations) == 0 {
		return nil
	}
	return strings.Split(a.Observations[0].Evidence, "\n")
}
