package report_test

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/examples/quickstart/migrator"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/report"
	"github.com/lookout-go/lookout/session"
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
	return writeReportAt(t, filepath.Join(t.TempDir(), "report.html"), records)
}

// writeReportAt writes the report of records to path and returns its
// file: URL.
func writeReportAt(t *testing.T, path string, records []recorder.Record) string {
	t.Helper()
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
	// Injected is, for the anchor of each model request that was given
	// messages by Lookout, those messages.
	Injected map[string][]recorder.InjectedMessage `json:"injected"`
	// Conversations is, for each conversation of several root runs, the
	// anchors of their sections in turn order.
	Conversations map[string][]string `json:"conversations"`
	Cost          float64             `json:"-"` // the runs' cost, from their run_ended records
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
	e.Injected = map[string][]recorder.InjectedMessage{}
	type turn struct {
		n   int
		run string
	}
	turns := map[string][]turn{}
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
			if p.ConversationID != "" && r.ParentRunID == "" {
				turns[p.ConversationID] = append(turns[p.ConversationID], turn{p.Turn, "run-" + r.RunID})
			}
		case *recorder.ModelRequest:
			if len(p.Injected) > 0 {
				e.Injected[id] = p.Injected
			}
		case *recorder.RunEnded:
			e.Cost += p.Usage.CostUSD
		}
	}
	e.Conversations = map[string][]string{}
	for id, ts := range turns {
		if len(ts) < 2 {
			continue
		}
		slices.SortStableFunc(ts, func(a, b turn) int { return a.n - b.n })
		for _, t := range ts {
			e.Conversations["conversation-"+id] = append(e.Conversations["conversation-"+id], t.run)
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
	// Injected is, for each model request in want.injected, what the DOM
	// shows before it: each message's tag and text, following the call's
	// links to the first showing of messages given again, and whether
	// each showing comes before the call.
	Injected map[string][]shownMessage `json:"injected"`
	// Conversations is, for each conversation section, the ids of the run
	// sections it holds, in order.
	Conversations map[string][]string `json:"conversations"`
	Cost          string              `json:"cost"` // the header's
}

// shownMessage is an injected message as the page shows it.
type shownMessage struct {
	Tag    string `json:"tag"`
	Text   string `json:"text"`
	Before bool   `json:"before"` // the showing comes before the model call
}

const inspectDOM = `(function (want) {
  var ids = function (sel) { return Array.from(document.querySelectorAll(sel), function (e) { return e.id; }); };
  return {
    missing: want.anchors.filter(function (id) { return !document.getElementById(id); }),
    tools: ids("details.tool"),
    assessments: ids(".assessment"),
    charts: document.querySelectorAll("svg.burndown").length,
    lines: document.querySelectorAll("svg.burndown polyline").length,
    treeRuns: document.querySelectorAll("#tree li.node > span > a").length,
    treeNested: document.querySelectorAll("#tree li.node li.node").length,
    scripts: document.scripts.length,
    title: document.title,
    injected: injected(want.injected),
    conversations: Object.fromEntries(Array.from(document.querySelectorAll("section.conversation"), function (c) {
      return [c.id, Array.from(c.querySelectorAll(":scope > section.run"), function (r) { return r.id; })];
    })),
    cost: Array.from(document.querySelectorAll("header.top dt"), function (dt) {
      return dt.textContent === "Cost" ? dt.nextElementSibling.textContent : null;
    }).filter(Boolean).join()
  };
  // The messages shown just before each model call named in want: the
  // injected entries that precede it, a repeated message followed to
  // the entry it links to.
  function injected(want) {
    var out = {};
    var target = function (a) { return document.getElementById(decodeURIComponent(a.hash.slice(1))); };
    Object.keys(want).forEach(function (id) {
      var call = document.getElementById(id), shown = [];
      for (var el = call && call.previousElementSibling; el && el.classList.contains("injected"); el = el.previousElementSibling) {
        shown.unshift(el);
      }
      // The messages the call before was given too: linked from the
      // call's line.
      if (call) {
        shown = Array.from(call.querySelectorAll(":scope > p:first-child a"), target).concat(shown);
      }
      out[id] = shown.map(function (t) {
        return {
          tag: t ? t.querySelector(".tag").textContent : "",
          text: t ? t.querySelector("pre").textContent : "",
          before: !!t && (t.compareDocumentPosition(call) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0
        };
      });
    });
    return out;
  }
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
		// What the case must hold, so that the checks check something:
		// kinds of injected messages, conversation turns, a cost.
		injects []string
		turns   int
		priced  bool
	}{
		{name: "the quickstart run", records: func(t *testing.T) []recorder.Record { return exampleRun(t, ctx, "quickstart") },
			injects: []string{recorder.InjectedAssessment, recorder.InjectedWrapUp}},
		{name: "a multi-agent run", records: func(t *testing.T) []recorder.Record { return exampleRun(t, ctx, "multiagent") }, children: true},
		{name: "a run of hostile text", records: func(*testing.T) []recorder.Record { return untrustedConversation() },
			injects: []string{hostile}, turns: 2, priced: true},
		{name: "a priced conversation", records: func(t *testing.T) []recorder.Record { return pricedConversation(t, ctx) },
			injects: []string{recorder.InjectedAssessment, recorder.InjectedWrapUp}, turns: 3, priced: true},
	}
	b := startBrowser(t, ctx)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			records := c.records(t)
			page := writeReport(t, records)
			b.open(t, ctx, page)
			b.showAll(t, ctx)
			want := expect(records)
			checkCase(t, want, c.injects, c.turns, c.priced)
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
			checkInjected(t, want, got)
			if !reflect.DeepEqual(got.Conversations, want.Conversations) {
				t.Errorf("conversation sections holding runs %v, want %v", got.Conversations, want.Conversations)
			}
			checkCost(t, want.Cost, got.Cost)
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
			checkTextsAreText(t, ctx, b, records, want)
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

// checkCase checks that a case's records hold what the case is there
// for: injected messages of each of kinds, a conversation of turns runs,
// and a cost when priced.
func checkCase(t *testing.T, want expected, kinds []string, turns int, priced bool) {
	t.Helper()
	for _, k := range kinds {
		found := false
		for _, msgs := range want.Injected {
			found = found || slices.ContainsFunc(msgs, func(m recorder.InjectedMessage) bool { return m.Kind == k })
		}
		if !found {
			t.Errorf("no model call was given a %q message", k)
		}
	}
	if turns > 0 {
		if len(want.Conversations) != 1 {
			t.Errorf("%d conversations of several runs, want 1", len(want.Conversations))
		}
		for _, runs := range want.Conversations {
			if len(runs) != turns {
				t.Errorf("a conversation of %d runs, want %d", len(runs), turns)
			}
		}
	}
	if priced != (want.Cost > 0) {
		t.Errorf("the runs cost $%g", want.Cost)
	}
}

// checkInjected checks that every message Lookout added to a model call's
// input is shown before the call, as the model received it: its kind and
// role in its tag, and its text.
func checkInjected(t *testing.T, want expected, got found) {
	t.Helper()
	for id, msgs := range want.Injected {
		shown := got.Injected[id]
		if len(shown) != len(msgs) {
			t.Errorf("before %s the page shows %d injected messages, want %d: %+v", id, len(shown), len(msgs), shown)
			continue
		}
		// The messages given again are named on the call's line, the
		// others shown before it: match them by text.
		used := make([]bool, len(shown))
		for i, m := range msgs {
			k := slices.IndexFunc(shown, func(s shownMessage) bool { return s.Text == m.Content })
			for k >= 0 && used[k] {
				next := slices.IndexFunc(shown[k+1:], func(s shownMessage) bool { return s.Text == m.Content })
				if next < 0 {
					k = -1
					break
				}
				k += 1 + next
			}
			if k < 0 {
				t.Errorf("injected message %d of %s, %q, is not shown before the call: %+v", i, id, m.Content, shown)
				continue
			}
			used[k] = true
			s := shown[k]
			kind := m.Kind
			if kind == recorder.InjectedWrapUp {
				kind = "wrap-up reminder"
			}
			if !s.Before || !strings.HasPrefix(s.Tag, kind+", added by Lookout") || !strings.Contains(s.Tag, " as a "+m.Role+" message") {
				t.Errorf("injected message %d of %s shows as %+v, want %s (%s) before the call", i, id, s, kind, m.Role)
			}
		}
	}
}

// checkCost checks the header's cost against the runs' cost.
func checkCost(t *testing.T, want float64, got string) {
	t.Helper()
	if want == 0 {
		if got != "not recorded" {
			t.Errorf("the header's cost is %q with no cost recorded", got)
		}
		return
	}
	usd, err := strconv.ParseFloat(strings.TrimPrefix(got, "$"), 64)
	if !strings.HasPrefix(got, "$") || err != nil || math.Abs(usd-want) > 0.00005 {
		t.Errorf("the header's cost is %q, want $%.4f", got, want)
	}
}

// pricedConversation runs the quickstart's agent, priced, for three turns
// on one session, and returns its records: three root runs of one
// conversation, the last near its budget.
func pricedConversation(t *testing.T, ctx context.Context) []recorder.Record {
	t.Helper()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	cfg := migrator.Config(rec, nil)
	cfg.Prices = budget.Prices{"scripted-model": {InputPerMTok: 2.5, CachedInputPerMTok: 1.25, OutputPerMTok: 10}}
	cfg.Agent = lookout.AgentInfo{Name: "migrator", Version: "v1.0.0", Model: "scripted-model"}
	cfg.Limits.MaxTokens, cfg.Limits.MaxToolCalls = 11_000, 40
	mw, err := lookoutadk.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx = session.NewContext(ctx, session.New(nil))
	for range 3 {
		agent, err := migrator.NewAgent(ctx, migrator.Script(), migrator.Tools(), mw)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = migrator.Drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}).Query(ctx, migrator.Task))
	}
	if err := rec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return sink.Records()
}

// checkTextsAreText checks that each tool result shows exactly as
// recorded, markup included, in the tool call it ends: the call started
// with the same call id (or name) in the same run, which calls run in
// parallel may end in any order.
func checkTextsAreText(t *testing.T, ctx context.Context, b *browser, records []recorder.Record, want expected) {
	t.Helper()
	anchor := func(r recorder.Record) string {
		if want.Runs > 1 {
			return r.RunID + "-seq-" + itoa(r.Seq)
		}
		return "seq-" + itoa(r.Seq)
	}
	texts := map[string]string{} // by the anchor of the call's start
	open := map[string][]string{}
	for _, r := range records {
		switch p := r.Payload.(type) {
		case *recorder.ToolStarted:
			key := r.RunID + "\x00" + p.CallID + "\x00" + p.Name
			open[key] = append(open[key], anchor(r))
		case *recorder.ToolEnded:
			text := p.Error + p.Result
			if strings.Contains(p.Result, p.Error) {
				text = p.Result // the error as the model read it, shown once
			}
			key := r.RunID + "\x00" + p.CallID + "\x00" + p.Name
			id := anchor(r) // an end without its start is shown on its own
			if q := open[key]; len(q) > 0 {
				id, open[key] = q[0], q[1:]
			}
			texts[id] = text
		}
	}
	var got []struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	b.eval(t, ctx, `Array.from(document.querySelectorAll("details.tool"), function (d) {
  return {id: d.id, text: Array.from(d.querySelectorAll("pre:not(.args)"), function (p) { return p.textContent; }).join("")};
})`, &got)
	shown := map[string]string{}
	for _, g := range got {
		if _, ended := texts[g.ID]; ended || g.Text != "" { // a call never ended shows nothing
			shown[g.ID] = g.Text
		}
	}
	if !reflect.DeepEqual(shown, texts) {
		t.Errorf("tool results as the page shows them, by call:\n%q\nwant:\n%q", shown, texts)
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
