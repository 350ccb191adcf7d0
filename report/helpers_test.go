package report_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/report"
)

// trajectory builds records by hand, one run at a time, with seq and
// time counted for each run.
type trajectory struct {
	records []recorder.Record
	at      time.Time
	// emit, when set, is given each record instead of records.
	emit func(recorder.Record)
}

func newTrajectory() *trajectory {
	return &trajectory{at: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
}

// run is one run of a trajectory.
type run struct {
	t      *trajectory
	id     string
	parent string
	depth  int
	seq    uint64
}

func (t *trajectory) run(id string, parent *run) *run {
	r := &run{t: t, id: id}
	if parent != nil {
		r.parent, r.depth = parent.id, parent.depth+1
	}
	return r
}

// add appends a record of the run and returns its seq.
func (r *run) add(p recorder.Payload) uint64 {
	r.t.at = r.t.at.Add(time.Second)
	seq := r.seq
	rec := recorder.Record{
		SchemaVersion: recorder.SchemaVersion, Seq: seq, RunID: r.id, ParentRunID: r.parent,
		Depth: r.depth, RecordedAt: r.t.at, Payload: p,
	}
	if r.t.emit != nil {
		r.t.emit(rec)
	} else {
		r.t.records = append(r.t.records, rec)
	}
	r.seq++
	return seq
}

// step adds a model call answered with tool calls, and the calls, one
// after another, each with its result.
func (r *run) step(tools ...string) {
	calls := make([]schema.ToolCall, len(tools))
	for i, name := range tools {
		calls[i] = schema.ToolCall{ID: name + strconv.FormatUint(r.seq, 10), Function: schema.FunctionCall{Name: name, Arguments: `{}`}}
	}
	r.add(&recorder.ModelRequest{Model: "test-model", MessageCount: int(r.seq), Tools: tools})
	r.add(&recorder.ModelResponse{Message: schema.AssistantMessage("", calls), UsageReported: true,
		Usage: recorder.TokenUsage{PromptTokens: 90, CompletionTokens: 10, TotalTokens: 100}})
	for _, c := range calls {
		r.add(&recorder.ToolStarted{CallID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		r.add(&recorder.ToolEnded{CallID: c.ID, Name: c.Function.Name, Result: "ok", Duration: time.Millisecond})
	}
}

// render writes the report of records with opts and returns it.
func render(t testing.TB, records []recorder.Record, opts *report.Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.Write(&b, records, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var idAttr = regexp.MustCompile(`\bid="([^"]*)"`)

// ids returns the element ids of page, in order.
func ids(page string) []string {
	var out []string
	for _, m := range idAttr.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// scripts counts the script elements of page, in lower case, that a
// browser runs: those that are not the data blocks of the runs' parts.
func scripts(page string) int {
	return strings.Count(page, "<script") - strings.Count(page, `<script type="text/html">`)
}
