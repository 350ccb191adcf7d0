package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lookout-go/lookout/internal/cmdtest"
	"github.com/lookout-go/lookout/recorder"
)

// maxMainThreadWork is the main-thread work the page of a 10,000-record
// batch may take to open.
const maxMainThreadWork = time.Second

// workLoads is how many times each page is opened to measure its
// main-thread work: the least is taken, as a loaded machine only adds to
// what the browser counts.
const workLoads = 3

// The page of a quickstart run, of examples/multiagent and of a batch of
// 10,000 records: the list of what went wrong links to every failure, and
// each link brings it on screen; each run's burn-down gives, after each
// record, what its query's budget had used, as lookout inspect --json
// counts it from the records up to that one; at a phone's width the page
// does not overflow and its list and tree work; and the batch's page opens
// with at most maxMainThreadWork of main-thread work, measured beside the
// quickstart's.
func TestTheReportLeadsToFailuresAndFollowsTheBudget(t *testing.T) {
	ctx, lookoutBin, b := withLookoutAndBrowser(t, 15*time.Minute)
	dir := t.TempDir()
	pages := map[string]string{}
	for _, c := range []struct {
		name    string
		records func(t *testing.T) []recorder.Record
		every   int // check the budget after every every-th record
	}{
		{name: "quickstart", records: func(t *testing.T) []recorder.Record { return exampleRun(t, ctx, "quickstart") }, every: 1},
		{name: "multiagent", records: func(t *testing.T) []recorder.Record { return exampleRun(t, ctx, "multiagent") }, every: 1},
		{name: "batch", records: func(*testing.T) []recorder.Record { return batchRun(10_000) }, every: 97},
	} {
		t.Run(c.name, func(t *testing.T) {
			records := c.records(t)
			page := writeReportAt(t, filepath.Join(dir, c.name+".html"), records)
			pages[c.name] = page
			b.open(t, ctx, page)
			failures := failureAnchors(records)
			t.Logf("%d records, %d failures", len(records), len(failures))
			if c.name != "multiagent" && len(failures) == 0 {
				t.Fatal("no failures to look for")
			}
			var links []string
			b.eval(t, ctx, `Array.from(document.querySelectorAll("#problems li[data-k] > a"), function (a) { return decodeURIComponent(a.hash.slice(1)); })`, &links)
			slices.Sort(links)
			if !slices.Equal(links, failures) {
				t.Errorf("the list of what went wrong links to\n%v\nwant\n%v", links, failures)
			}
			if missed := b.followEach(t, ctx, len(links)); len(missed) > 0 {
				t.Errorf("links that do not bring their target on screen: %v", missed)
			}
			b.showAll(t, ctx)
			checkBurnDown(t, ctx, b, lookoutBin, records, c.every)
			if p := b.problems(page); len(p) > 0 {
				t.Errorf("the browser reported:\n%s", strings.Join(p, "\n"))
			}
			checkPhone(t, ctx, b, page, len(links))
		})
	}
	if len(pages) < 3 {
		return // a case failed before its page was written
	}
	// Open each page workLoads times, in turn, after a first load that
	// warms the browser up.
	b.mainThreadWork(t, ctx, pages["quickstart"])
	work := map[string]time.Duration{}
	for range workLoads {
		for _, name := range []string{"quickstart", "multiagent", "batch"} {
			if d := b.mainThreadWork(t, ctx, pages[name]); work[name] == 0 || d < work[name] {
				work[name] = d
			}
		}
	}
	t.Logf("main-thread work to open the page (the least of %d loads): %v for the quickstart, %v for examples/multiagent, %v for the 10,000-record batch",
		workLoads, work["quickstart"], work["multiagent"], work["batch"])
	if work["batch"] > maxMainThreadWork {
		t.Errorf("the 10,000-record page takes %v of main-thread work to open, want at most %v", work["batch"], maxMainThreadWork)
	}
}

// phoneWidth and phoneHeight are a phone's viewport, in CSS pixels.
const phoneWidth, phoneHeight = 390, 844

// checkPhone opens page at a phone's width and checks that the page is no
// wider than the screen, that the list of what went wrong and the
// sub-agent tree are on it, each no wider either, and that their links
// bring their targets on screen: all of the list's (there are n), and the
// tree's first ten.
func checkPhone(t *testing.T, ctx context.Context, b *browser, page string, n int) {
	t.Helper()
	b.viewport(t, ctx, phoneWidth, phoneHeight, true)
	defer b.viewport(t, ctx, desktopWidth, desktopHeight, false)
	b.open(t, ctx, "about:blank")
	b.open(t, ctx, page)
	var fit struct {
		Page     int      `json:"page"`
		Viewport int      `json:"viewport"`
		Wide     []string `json:"wide"`
	}
	b.eval(t, ctx, `(function () {
  var wide = [];
  ["#problems", "#tree", "#filters", "header.top dl.facts"].forEach(function (sel) {
    var el = document.querySelector(sel), box = el && el.getBoundingClientRect();
    if (!el || box.width === 0 || box.right > innerWidth + 0.5 || box.left < -0.5) {
      wide.push(sel + (box ? " " + Math.round(box.left) + ".." + Math.round(box.right) : " missing"));
    }
  });
  return {page: document.documentElement.scrollWidth, viewport: innerWidth, wide: wide};
})()`, &fit)
	if fit.Page > fit.Viewport {
		t.Errorf("at %d pixels wide the page is %d pixels wide", fit.Viewport, fit.Page)
	}
	if len(fit.Wide) > 0 {
		t.Errorf("at %d pixels wide these are off the screen: %v", fit.Viewport, fit.Wide)
	}
	if missed := b.followEach(t, ctx, n); len(missed) > 0 {
		t.Errorf("at a phone's width, links of the list of what went wrong that do not bring their target on screen: %v", missed)
	}
	var missed []string
	b.evalAsync(t, ctx, strings.Replace(followLinks, `#problems li[data-k] > a`, `#tree li.node > span > a`, 1)+"(0, 10)", &missed)
	if len(missed) > 0 {
		t.Errorf("at a phone's width, links of the tree that do not bring their target on screen: %v", missed)
	}
	var after int
	b.eval(t, ctx, `document.documentElement.scrollWidth`, &after)
	if after > fit.Viewport {
		t.Errorf("once the runs are shown, at %d pixels wide the page is %d pixels wide", fit.Viewport, after)
	}
}

// followEach follows the n links of the list of what went wrong, ten at
// a time, and returns those whose target they do not bring on screen.
func (b *browser) followEach(t *testing.T, ctx context.Context, n int) []string {
	t.Helper()
	var missed []string
	for from := 0; from < n; from += 10 {
		var some []string
		b.evalAsync(t, ctx, followLinks+"("+strconv.Itoa(from)+", 10)", &some)
		missed = append(missed, some...)
	}
	return missed
}

// followLinks clicks n links of the list of what went wrong in turn, from
// the from-th, and returns the targets that are not on screen once the
// page has painted twice.
const followLinks = `(async function (from, n) {
  var missed = [];
  var links = Array.from(document.querySelectorAll("#problems li[data-k] > a"));
  for (var i = from; i < links.length && i < from + n; i++) {
    var a = links[i], id = decodeURIComponent(a.hash.slice(1));
    a.click();
    await new Promise(function (done) { requestAnimationFrame(function () { requestAnimationFrame(done); }); });
    var el = document.getElementById(id), box = el && el.getBoundingClientRect();
    if (!el || box.bottom <= 0 || box.top >= innerHeight || box.height === 0 || box.left >= innerWidth || box.right <= 0) {
      missed.push(id + (el ? " at " + Math.round(box.top) + "+" + Math.round(box.height) : " not in the page"));
    }
  }
  return missed;
})`

// failureAnchors returns the anchors of what went wrong in records,
// sorted: each failed or refused tool call's (its start's, or its end's
// when it has no start), each failed model call's response, each budget
// exceeded, and each run that did not complete (its end, or its section
// when it has none).
func failureAnchors(records []recorder.Record) []string {
	runs := map[string]bool{}
	for _, r := range records {
		runs[r.RunID] = true
	}
	anchor := func(r recorder.Record) string {
		if len(runs) > 1 {
			return r.RunID + "-seq-" + itoa(r.Seq)
		}
		return "seq-" + itoa(r.Seq)
	}
	var out []string
	open := map[string][]string{}
	ended := map[string]bool{}
	for _, r := range records {
		switch p := r.Payload.(type) {
		case *recorder.ToolStarted:
			key := r.RunID + "\x00" + p.CallID + "\x00" + p.Name
			open[key] = append(open[key], anchor(r))
		case *recorder.ToolEnded:
			key := r.RunID + "\x00" + p.CallID + "\x00" + p.Name
			id := anchor(r)
			if q := open[key]; len(q) > 0 {
				id, open[key] = q[0], q[1:]
			}
			if p.IsError || p.Error != "" {
				out = append(out, id)
			}
		case *recorder.ModelResponse:
			if p.Error != "" {
				out = append(out, anchor(r))
			}
		case *recorder.BudgetRecord:
			if p.Event == recorder.BudgetExceeded {
				out = append(out, anchor(r))
			}
		case *recorder.RunEnded:
			ended[r.RunID] = true
			if p.Outcome != recorder.OutcomeCompleted {
				out = append(out, anchor(r))
			}
		}
	}
	for id := range runs {
		if !ended[id] {
			out = append(out, "run-"+id)
		}
	}
	slices.Sort(out)
	return out
}

// withLookoutAndBrowser skips the test in short mode or without
// Chromium, and otherwise returns a context that ends after limit (or
// with the test), the lookout command built, and a browser.
func withLookoutAndBrowser(t *testing.T, limit time.Duration) (context.Context, string, *browser) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	bin := cmdtest.Build(t, ctx)
	return ctx, bin, startBrowser(t, ctx)
}

// inspectedBudget is a query's budget as lookout inspect --json gives it.
type inspectedBudget struct {
	RunID      string `json:"run_id"`
	Tokens     int64  `json:"tokens"`
	ModelCalls int64  `json:"model_calls"`
	ToolCalls  int64  `json:"tool_calls"`
}

// checkBurnDown checks the figures behind each run's burn-down after
// every every-th record, and the last, against lookout inspect --json of
// the records up to that one: what the run's query had used of its
// budget.
func checkBurnDown(t *testing.T, ctx context.Context, b *browser, bin string, records []recorder.Record, every int) {
	t.Helper()
	var charts map[string]map[string]string // by section id, by resource
	b.eval(t, ctx, `Object.fromEntries(Array.from(document.querySelectorAll("section.run"), function (s) {
  return [s.id, Object.fromEntries(Array.from(s.querySelectorAll("li[data-used]"), function (li) { return [li.dataset.resource, li.dataset.used]; }))];
}))`, &charts)
	root := map[string]string{}
	for _, r := range records {
		if _, ok := root[r.RunID]; !ok {
			root[r.RunID] = r.RunID
			if p, ok := root[r.ParentRunID]; ok && r.ParentRunID != "" {
				root[r.RunID] = p
			}
		}
	}
	var input bytes.Buffer
	index := map[string]int{} // each record's place in its run, as the chart counts
	checked := 0
	for k, r := range records {
		line, err := r.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		input.Write(append(line, '\n'))
		i := index[r.RunID]
		index[r.RunID]++
		if k%every != 0 && k != len(records)-1 {
			continue
		}
		budget := inspectBudget(t, ctx, bin, input.Bytes(), root[r.RunID])
		chart := charts["run-"+r.RunID]
		for resource, want := range map[string]int64{"tokens": budget.Tokens, "model_calls": budget.ModelCalls, "tool_calls": budget.ToolCalls} {
			data, ok := chart[resource]
			if !ok {
				continue
			}
			checked++
			if got := usedAt(data, i); got != want {
				t.Errorf("after record %d (seq %d of run %s) the burn-down shows %s used %d, inspect %d", k, r.Seq, r.RunID, resource, got, want)
			}
		}
	}
	if checked == 0 {
		t.Error("no burn-down figure was checked")
	}
}

// inspectBudget runs lookout inspect --json on input and returns the
// budget of the query rooted at root.
func inspectBudget(t *testing.T, ctx context.Context, bin string, input []byte, root string) inspectedBudget {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, "inspect", "--json", "-")
	cmd.Stdin = bytes.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lookout inspect --json: %v", err)
	}
	var rep struct {
		Budgets []inspectedBudget `json:"budgets"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	for _, q := range rep.Budgets {
		if q.RunID == root {
			return q
		}
	}
	t.Fatalf("inspect gives no budget for the query %s", root)
	return inspectedBudget{}
}

// usedAt reads the figure after record i from a chart's data: "i:used"
// pairs where it changed.
func usedAt(data string, i int) int64 {
	var used int64
	for _, pair := range strings.Fields(data) {
		at, value, _ := strings.Cut(pair, ":")
		n, _ := strconv.Atoi(at)
		if n > i {
			break
		}
		used, _ = strconv.ParseInt(value, 10, 64)
	}
	return used
}
