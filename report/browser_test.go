package report_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/report"
)

var update = flag.Bool("update", false, "write the screenshot of the quickstart run's report to docs/report.png")

// exampleRun runs an example program of this module with -out and reads
// the trajectory it wrote.
func exampleRun(t *testing.T, ctx context.Context, name string) []recorder.Record {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, "go", "run", "./examples/"+name, "-out", dir)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=") // the scripted model, always
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./examples/%s: %v\n%s", name, err, out)
	}
	records, tear, err := recorder.ReadFile(filepath.Join(dir, "trajectory.jsonl"))
	if err != nil || tear != nil {
		t.Fatalf("read the %s trajectory: %v %v", name, err, tear)
	}
	return records
}

// writeReport writes the report of records to a temporary file and
// returns its file: URL.
func writeReport(t *testing.T, records []recorder.Record) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Write(f, records, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: path}).String()
}

// expected is what the DOM must hold for records: the anchor of every
// record, of every tool call, of every assessment, and the runs.
type expected struct {
	Anchors     []string `json:"anchors"`
	Tools       []string `json:"tools"`
	Assessments []string `json:"assessments"`
	Runs        int      `json:"runs"`
	Limited     int      `json:"limited"` // runs with limits, which have a burn-down chart
}

func expect(records []recorder.Record) expected {
	var e expected
	runs := map[string]bool{}
	for _, r := range records {
		runs[r.RunID] = true
	}
	prefix := func(r recorder.Record) string {
		if len(runs) > 1 {
			return r.RunID + "-"
		}
		return ""
	}
	for _, r := range records {
		id := prefix(r) + "seq-" + itoa(r.Seq)
		e.Anchors = append(e.Anchors, id)
		switch p := r.Payload.(type) {
		case *recorder.ToolStarted:
			e.Tools = append(e.Tools, id)
		case *recorder.AssessmentRecord:
			e.Assessments = append(e.Assessments, id)
		case *recorder.RunStarted:
			if p.Limits != (recorder.RunLimits{}) {
				e.Limited++
			}
		}
	}
	e.Runs = len(runs)
	return e
}

// found is what the page's DOM holds.
type found struct {
	Missing     []string `json:"missing"` // expected anchors with no element
	Tools       []string `json:"tools"`
	Assessments []string `json:"assessments"`
	Charts      int      `json:"charts"`
	Lines       int      `json:"lines"`
	TreeRuns    int      `json:"treeRuns"`
	TreeNested  int      `json:"treeNested"`
	Scripts     int      `json:"scripts"`
	Title       string   `json:"title"`
}

const inspectDOM = `(function (want) {
  var ids = function (sel) { return Array.from(document.querySelectorAll(sel), function (e) { return e.id; }); };
  return {
    missing: want.anchors.filter(function (id) { return !document.getElementById(id); }),
    tools: ids("details.tool"),
    assessments: ids(".assessment"),
    charts: document.querySelectorAll("svg.burndown").length,
    lines: document.querySelectorAll("svg.burndown polyline").length,
    treeRuns: document.querySelectorAll("#tree li > a").length,
    treeNested: document.querySelectorAll("#tree li li").length,
    scripts: document.scripts.length,
    title: document.title
  };
})`

func TestTheReportOpensCleanInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	chromiumPath(t)
	// Generous: on a cold build cache, go run compiles Eino for the examples.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cases := []struct {
		name     string
		records  func(t *testing.T) []recorder.Record
		children bool
	}{
		{"the quickstart run", func(t *testing.T) []recorder.Record { return exampleRun(t, ctx, "quickstart") }, false},
		{"a multi-agent run", func(t *testing.T) []recorder.Record { return exampleRun(t, ctx, "multiagent") }, true},
		{"a run of hostile text", func(*testing.T) []recorder.Record { return untrusted() }, false},
	}
	b := startBrowser(t, ctx)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			records := c.records(t)
			page := writeReport(t, records)
			b.open(t, ctx, page)
			want := expect(records)
			arg, _ := json.Marshal(want)
			var got found
			b.eval(t, ctx, inspectDOM+"("+string(arg)+")", &got)

			if len(got.Missing) > 0 {
				t.Errorf("records without an anchor: %v", got.Missing)
			}
			if !slices.Equal(got.Tools, want.Tools) {
				t.Errorf("tool calls in the DOM %v, want %v", got.Tools, want.Tools)
			}
			if !slices.Equal(got.Assessments, want.Assessments) {
				t.Errorf("assessments in the DOM %v, want %v", got.Assessments, want.Assessments)
			}
			if got.Charts != want.Limited || got.Lines < want.Limited {
				t.Errorf("%d burn-down charts with %d lines, want %d charts", got.Charts, got.Lines, want.Limited)
			}
			if got.TreeRuns != want.Runs {
				t.Errorf("the sub-agent tree shows %d runs, want %d", got.TreeRuns, want.Runs)
			}
			if c.children && got.TreeNested == 0 {
				t.Error("the sub-agent tree nests no run under another")
			}
			if got.Scripts != 1 || got.Title != "Lookout report" {
				t.Errorf("%d scripts in the page and the title %q: only the page's own script may run", got.Scripts, got.Title)
			}
			if p := b.problems(page); len(p) > 0 {
				t.Errorf("the browser reported:\n%s", strings.Join(p, "\n"))
			}
			if c.name == "the quickstart run" && *update {
				var clicked bool
				b.eval(t, ctx, `document.getElementById("expand").click(), true`, &clicked) // every tool call open
				if err := os.WriteFile(filepath.Join("..", "docs", "report.png"), b.screenshot(t, ctx, 2000), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			checkTextsAreText(t, ctx, b, records)
			checkAnAnchorOpensItsToolCall(t, ctx, b, page, want)
			// An address whose fragment is not percent-encoding the
			// script can decode.
			b.open(t, ctx, "about:blank")
			b.open(t, ctx, page+"#%E0%A4%A")
			if p := b.problems(page); len(p) > 0 {
				t.Errorf("with a malformed fragment, the browser reported:\n%s", strings.Join(p, "\n"))
			}
		})
	}
}

// checkTextsAreText checks that each tool result shows exactly as
// recorded, markup included.
func checkTextsAreText(t *testing.T, ctx context.Context, b *browser, records []recorder.Record) {
	t.Helper()
	var want []string
	for _, r := range records {
		if e, ok := r.Payload.(*recorder.ToolEnded); ok {
			if strings.Contains(e.Result, e.Error) {
				want = append(want, e.Result) // the error as the model read it, shown once
			} else {
				want = append(want, e.Error+e.Result)
			}
		}
	}
	var got []string
	b.eval(t, ctx, `Array.from(document.querySelectorAll("details.tool"), function (d) {
  return Array.from(d.querySelectorAll("pre:not(.args)"), function (p) { return p.textContent; }).join("");
})`, &got)
	if !slices.Equal(got, want) {
		t.Errorf("tool results as the page shows them:\n%q\nwant:\n%q", got, want)
	}
}

// checkAnAnchorOpensItsToolCall opens the page at the anchor of its
// first tool result and checks that the tool call holding it is open.
func checkAnAnchorOpensItsToolCall(t *testing.T, ctx context.Context, b *browser, page string, want expected) {
	t.Helper()
	if len(want.Tools) == 0 {
		return
	}
	// A new document, so that the load event comes: from the same page a
	// fragment only scrolls.
	b.open(t, ctx, "about:blank")
	b.open(t, ctx, page+"#"+url.PathEscape(want.Tools[0]))
	var open bool
	b.eval(t, ctx, `document.getElementById(`+quoteJS(want.Tools[0])+`).open`, &open)
	if !open {
		t.Errorf("#%s does not open its tool call", want.Tools[0])
	}
}

func quoteJS(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
