package report_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/report"
)

// hostile is recorded text that would be markup if it were not escaped.
const hostile = `</pre></div></details><script>document.title="pwned"</script><img src="x" onerror="alert(1)">`

// untrusted is a run whose every recorded text is hostile.
func untrusted() []recorder.Record {
	t := newTrajectory()
	r := t.run(`run"><script>1</script>`, nil)
	r.add(&recorder.RunStarted{AgentName: hostile, AgentVersion: hostile, ConversationID: hostile, Limits: recorder.RunLimits{MaxTokens: 1000}})
	r.add(&recorder.Message{Message: schema.UserMessage(hostile)})
	r.add(&recorder.ModelRequest{Model: hostile, MessageCount: 1, Tools: []string{hostile}})
	r.add(&recorder.ModelResponse{Message: schema.AssistantMessage(hostile, []schema.ToolCall{
		{ID: hostile, Function: schema.FunctionCall{Name: hostile, Arguments: hostile}}}), FinishReason: hostile})
	r.add(&recorder.ToolStarted{CallID: hostile, Name: hostile, Arguments: hostile})
	r.add(&recorder.ToolEnded{CallID: hostile, Name: hostile, Result: hostile, IsError: true, Error: hostile})
	r.add(&recorder.AssessmentRecord{Markdown: hostile, Observers: []recorder.ObserverNote{{Name: hostile, Severity: hostile}}})
	injected := []recorder.InjectedMessage{{Kind: hostile, Role: hostile, Content: hostile}}
	r.add(&recorder.ModelRequest{MessageCount: 3, Injected: injected})
	r.add(&recorder.ModelResponse{Model: hostile, Provider: hostile, CostUSD: 0.5})
	r.add(&recorder.ModelRequest{MessageCount: 5, Injected: injected})
	r.add(&recorder.Extension{Name: hostile, Body: []byte(`"` + strings.ReplaceAll(hostile, `"`, `\"`) + `"`)})
	r.add(&recorder.RunEnded{Outcome: hostile, StopReason: hostile, Error: hostile, Usage: recorder.RunUsage{CostUSD: 0.5}})
	return t.records
}

// untrustedConversation is untrusted's run and a second turn of its
// conversation, whose id is hostile too.
func untrustedConversation() []recorder.Record {
	t := newTrajectory()
	t.records = untrusted()
	next := t.run(`next"><script>1</script>`, nil)
	next.add(&recorder.RunStarted{AgentName: hostile, ConversationID: hostile, Turn: 1})
	next.add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
	return t.records
}

func TestUntrustedTextStaysText(t *testing.T) {
	page := render(t, untrustedConversation(), nil)
	lower := strings.ToLower(page)
	if n := scripts(lower); n != 1 {
		t.Errorf("%d script elements, want the page's own alone", n)
	}
	for _, tag := range []string{"<img", "</pre></div></details>"} {
		if strings.Contains(lower, tag) {
			t.Errorf("the page holds %q unescaped", tag)
		}
	}
	if !strings.Contains(page, "&lt;/pre&gt;&lt;/div&gt;&lt;/details&gt;&lt;script&gt;") {
		t.Error("the tool output is not shown as escaped text")
	}
}

func TestWriteRefusesNoRecords(t *testing.T) {
	var b strings.Builder
	if err := report.Write(&b, nil, nil); !errors.Is(err, report.ErrNoRecords) {
		t.Errorf("got %v, want ErrNoRecords", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteReportsAFailedWrite(t *testing.T) {
	err := report.Write(failingWriter{}, untrusted(), nil)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("got %v, want the writer's error", err)
	}
}

func TestRecordsWithoutPayloadsKeepTheirAnchors(t *testing.T) {
	tr := newTrajectory()
	r := tr.run("r", nil)
	r.add((*recorder.RunStarted)(nil))
	r.add(nil)
	r.add((*recorder.RunEnded)(nil))
	page := render(t, tr.records, nil)
	for _, id := range []string{"seq-0", "seq-1", "seq-2"} {
		if !slices.Contains(ids(page), id) {
			t.Errorf("no element with id %s", id)
		}
	}
}

func TestTheSameRecordsGiveTheSamePage(t *testing.T) {
	records := untrusted()
	first, second := render(t, records, nil), render(t, records, nil)
	if first != second {
		t.Error("two reports of one trajectory differ")
	}
}

func TestEveryRecordHasAnAnchor(t *testing.T) {
	t.Run("one run: seq-N", func(t *testing.T) {
		records := untrusted()
		got := ids(render(t, records, nil))
		for _, r := range records {
			if id := "seq-" + itoa(r.Seq); !slices.Contains(got, id) {
				t.Errorf("no element with id %s", id)
			}
		}
	})
	t.Run("several runs: RUN-seq-N", func(t *testing.T) {
		tr := newTrajectory()
		a := tr.run("a", nil)
		a.add(&recorder.RunStarted{AgentName: "lead"})
		b := tr.run("b", a)
		b.add(&recorder.RunStarted{AgentName: "helper"})
		b.step("search")
		b.add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
		a.add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
		got := ids(render(t, tr.records, nil))
		for _, r := range tr.records {
			if id := r.RunID + "-seq-" + itoa(r.Seq); !slices.Contains(got, id) {
				t.Errorf("no element with id %s", id)
			}
		}
		if slices.Contains(got, "seq-0") {
			t.Error("an anchor without its run id on a page of several runs")
		}
	})
}

func TestParallelToolCallsSitInLanes(t *testing.T) {
	tr := newTrajectory()
	r := tr.run("r", nil)
	r.add(&recorder.ModelRequest{})
	r.add(&recorder.ModelResponse{})
	r.add(&recorder.ToolStarted{CallID: "1", Name: "slow"})   // seq 2
	r.add(&recorder.ToolStarted{CallID: "2", Name: "fast"})   // seq 3
	r.add(&recorder.ToolEnded{CallID: "2", Name: "fast"})     // seq 4
	r.add(&recorder.ToolStarted{CallID: "3", Name: "second"}) // seq 5: lane 1 is free again
	r.add(&recorder.ToolEnded{CallID: "3", Name: "second"})
	r.add(&recorder.ToolEnded{CallID: "1", Name: "slow"})
	r.add(&recorder.ModelRequest{})
	r.add(&recorder.ModelResponse{})
	r.add(&recorder.ToolStarted{CallID: "4", Name: "alone"}) // seq 10
	r.add(&recorder.ToolEnded{CallID: "4", Name: "alone"})
	page := render(t, tr.records, nil)
	for _, want := range []string{
		`<div class="lanes lanes-2"><details class="tool" id="seq-2">`,
		`<details class="tool lane-1" id="seq-3">`,
		`<details class="tool lane-1" id="seq-5">`,
		"</div>" + `<details class="tool" id="seq-10">`, // one lane: no grid
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// An observer assesses each parallel call as it ends, while the others
// still run: a call that ends after that assessment keeps its result.
func TestACallThatEndsAfterAnAssessmentKeepsItsResult(t *testing.T) {
	tr := newTrajectory()
	r := tr.run("r", nil)
	r.add(&recorder.ModelRequest{})
	r.add(&recorder.ModelResponse{})
	r.add(&recorder.ToolStarted{CallID: "1", Name: "read_file"})                // seq 2
	r.add(&recorder.ToolStarted{CallID: "2", Name: "read_file"})                // seq 3
	r.add(&recorder.ToolEnded{CallID: "1", Name: "read_file", Result: "first"}) // seq 4
	r.add(&recorder.AssessmentRecord{Markdown: "## Assessment", AfterCallIndex: 1})
	r.add(&recorder.ToolEnded{CallID: "2", Name: "read_file", Result: "second"}) // seq 6
	r.add(&recorder.ModelRequest{})
	page := render(t, tr.records, nil)
	for _, want := range []string{
		`<details class="tool lane-1" id="seq-3"><summary>read_file</summary><pre class="args"></pre><pre id="seq-6">second</pre>`,
		`<pre id="seq-4">first</pre>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

func TestCallsShowWhatWasRecorded(t *testing.T) {
	tr := newTrajectory()
	r := tr.run("r", nil)
	r.add(&recorder.ToolStarted{CallID: "1", Name: "run_tests", Arguments: `{"package":"./billing"}`})
	r.add(&recorder.ToolEnded{CallID: "1", Name: "run_tests", IsError: true, Error: "FAIL billing", Duration: 1500 * time.Millisecond})
	r.add(&recorder.ToolStarted{CallID: "2", Name: "hang", Arguments: `{}`})
	r.add(&recorder.ToolEnded{CallID: "3", Name: "orphan", Result: "an end without its start"})
	r.add(&recorder.ModelResponse{Message: schema.AssistantMessage("a response without its request", nil)})
	r.add(&recorder.ModelResponse{Error: "HTTP 500"})
	page := render(t, tr.records, nil)
	for _, want := range []string{
		`<details class="tool error" id="seq-0"><summary>run_tests · 1.5s <b>error</b></summary>`,
		`<pre class="args">{"package":"./billing"}</pre><pre class="err" id="seq-1">FAIL billing</pre></details>`,
		`unfinished" id="seq-2"><summary>hang <b>unfinished</b>`,
		`<summary>orphan</summary><pre id="seq-3">an end without its start</pre>`,
		`<div class="model" id="seq-4"><p>model call</p><pre>a response without its request</pre><p>usage not reported</p></div>`,
		`<pre>failed: HTTP 500</pre>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

func TestInjectedTextComesBeforeTheModelCallThatReceivedIt(t *testing.T) {
	tr := newTrajectory()
	r := tr.run("r", nil)
	r.step("search")
	assessment := r.add(&recorder.AssessmentRecord{Markdown: "## Trajectory Assessment\n\n### Resources [caution]",
		Observers: []recorder.ObserverNote{{Name: "Resources", Severity: "caution"}}})
	received := r.add(&recorder.ModelRequest{MessageCount: 5})
	r.add(&recorder.ModelResponse{Message: schema.AssistantMessage("more", nil)})
	wrapUp := schema.UserMessage("## Budget nearly spent")
	wrapUp.Extra = map[string]any{lookout.Tag: lookout.TagWrapUp}
	reminder := r.add(&recorder.Message{Message: wrapUp})
	last := r.add(&recorder.ModelRequest{MessageCount: 7, ToolsWithheld: true})
	page := render(t, tr.records, nil)

	order := ids(page)
	before := func(a, b uint64) {
		t.Helper()
		i, j := slices.Index(order, "seq-"+itoa(a)), slices.Index(order, "seq-"+itoa(b))
		if i < 0 || j < 0 || i > j {
			t.Errorf("seq-%d is not shown before seq-%d", a, b)
		}
	}
	before(assessment, received)
	before(reminder, last)
	for _, want := range []string{
		`<div class="assessment sev-caution" id="seq-` + itoa(assessment) + `"><p class="tag">assessment [caution]`,
		"<pre>## Trajectory Assessment\n\n### Resources [caution]</pre>",
		`<div class="reminder" id="seq-` + itoa(reminder) + `"><p class="tag">wrap_up, added by Lookout`,
		`<div class="model wrapup" id="seq-` + itoa(last) + `">`,
		`<b>wrap-up turn: tools withheld</b>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestEachInjectedMessageShowsBeforeTheCallThatReceivedIt(t *testing.T) {
	tr := newTrajectory()
	r := tr.run("r", nil)
	r.add(&recorder.ModelRequest{MessageCount: 1, Injected: []recorder.InjectedMessage{}})
	unshown := r.add(&recorder.AssessmentRecord{Markdown: "## Superseded", AfterCallIndex: 1})
	shown := r.add(&recorder.AssessmentRecord{Markdown: "## Current <b>block</b>", AfterCallIndex: 2,
		Observers: []recorder.ObserverNote{{Name: "Resources", Severity: "caution"}}})
	block := recorder.InjectedMessage{Kind: recorder.InjectedAssessment, Role: "user", Content: "## Current <b>block</b>", AfterCallIndex: 2}
	wrap := recorder.InjectedMessage{Kind: recorder.InjectedWrapUp, Role: "system", Content: "Wrap up now."}
	first := r.add(&recorder.ModelRequest{MessageCount: 3, Injected: []recorder.InjectedMessage{block}})
	again := r.add(&recorder.ModelRequest{MessageCount: 5, Injected: []recorder.InjectedMessage{block}})
	last := r.add(&recorder.ModelRequest{MessageCount: 7, ToolsWithheld: true, Injected: []recorder.InjectedMessage{block, wrap}})
	page := render(t, tr.records, nil)

	id := func(seq uint64, rest string) string { return "seq-" + itoa(seq) + rest }
	order := ids(page)
	wantOrder := []string{id(unshown, ""), id(shown, ""), id(first, "-in-0"), id(first, ""),
		id(again, ""), id(last, "-in-1"), id(last, "")}
	var got []string
	for _, o := range order {
		if slices.Contains(wantOrder, o) {
			got = append(got, o)
		}
	}
	if !slices.Equal(got, wantOrder) {
		t.Errorf("ids in the page %v, want %v", got, wantOrder)
	}
	for _, want := range []string{
		// The block as the model received it, once, before the first call given it.
		`<div class="injected kind-assessment" id="` + id(first, "-in-0") +
			`"><p class="tag">assessment, added by Lookout to the model's input as a user message</p><pre>## Current &lt;b&gt;block&lt;/b&gt;</pre></div>`,
		// The calls given it again link to it.
		`<div class="model" id="` + id(again, "") + `"><p>model call · 5 messages · again: <a href="#` + id(first, "-in-0") + `">assessment</a></p></div>`,
		`<div class="injected kind-wrap_up" id="` + id(last, "-in-1") +
			`"><p class="tag">wrap-up reminder, added by Lookout to the model's input as a system message</p><pre>Wrap up now.</pre></div>`,
		`<div class="model wrapup" id="` + id(last, "") + `"><p>model call · 7 messages · <b>wrap-up turn: tools withheld</b> · again: <a href="#` + id(first, "-in-0") + `">assessment</a></p></div>`,
		// The record of the block shown links to its showing; the other says it was never shown.
		`id="` + id(shown, "") + `"><p class="tag">assessment [caution] · Resources caution · <a href="#` + id(first, "-in-0") + `">shown to the model</a></p></div>`,
		`<div class="assessment sev-none unshown" id="` + id(unshown, "") + `"><p class="tag">assessment · <b>not shown to the model</b></p><pre>## Superseded</pre></div>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if n := strings.Count(page, "## Current &lt;b&gt;block"); n != 1 {
		t.Errorf("the block shows %d times, want once", n)
	}
}

func TestAssessmentsAreNotMarkedUnshownInRecordsThatDoNotSay(t *testing.T) {
	tr := newTrajectory()
	r := tr.run("r", nil)
	r.add(&recorder.AssessmentRecord{Markdown: "## Block", AfterCallIndex: 1})
	r.add(&recorder.ModelRequest{MessageCount: 3}) // written before requests listed what Lookout added
	page := render(t, tr.records, nil)
	if strings.Contains(page, "not shown") || !strings.Contains(page, "as the next model call received it</p><pre>## Block</pre>") {
		t.Error("an assessment in records that do not say what the model was shown is marked")
	}
}

func TestTheHeaderShowsModelsProvidersTokensAndCost(t *testing.T) {
	tr := newTrajectory()
	lead := tr.run("lead", nil)
	lead.add(&recorder.RunStarted{AgentName: "lead", AgentVersion: "v1.2.3", ConversationID: "conv-9", Turn: 2})
	lead.add(&recorder.ModelRequest{Model: "gpt-4o", MessageCount: 1})
	lead.add(&recorder.ModelResponse{Model: "gpt-4o", Provider: "OpenAI", CostUSD: 0.0125, UsageReported: true,
		Usage: recorder.TokenUsage{PromptTokens: 1000, CompletionTokens: 200, TotalTokens: 1200, CachedTokens: 400, ReasoningTokens: 50}})
	lead.add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted, Usage: recorder.RunUsage{PromptTokens: 1000, CompletionTokens: 200,
		TotalTokens: 1200, CachedTokens: 400, ReasoningTokens: 50, CostUSD: 0.0125, ModelCalls: 1}})
	child := tr.run("child", lead)
	child.add(&recorder.RunStarted{AgentName: "child", AgentModel: "claude-x"})
	child.add(&recorder.ModelRequest{MessageCount: 1})
	child.add(&recorder.ModelResponse{Provider: "Claude", CostUSD: 1.5, UsageReported: true,
		Usage: recorder.TokenUsage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110, CacheWriteTokens: 60}})
	page := render(t, tr.records, nil)
	head, _, _ := strings.Cut(page, `<nav class="tree"`)
	for _, want := range []string{
		"<dt>Model</dt><dd>claude-x, gpt-4o (OpenAI)</dd>",
		"<dd>1,310 <small>(1,100 prompt, 400 cached, 60 written to the cache, 210 completion, 50 reasoning)</small></dd>",
		"<dt>Cost</dt><dd>$1.51</dd>",
	} {
		if !strings.Contains(head, want) {
			t.Errorf("the header lacks %s", want)
		}
	}
	for _, want := range []string{
		"<dt>Agent version</dt><dd>v1.2.3</dd>",
		"<dt>Conversation</dt><dd><code>conv-9</code>, turn 3</dd>",
		"<dt>Cost</dt><dd>$0.0125</dd>",
		"<dt>Cost</dt><dd>$1.50</dd>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

func TestTheTurnsOfAConversationAreGroupedInOrder(t *testing.T) {
	tr := newTrajectory()
	// Turns recorded out of order, with an unrelated run between them and
	// a sub-agent under one of them.
	turn1 := tr.run("t1", nil)
	turn1.add(&recorder.RunStarted{AgentName: "a", ConversationID: "c1", Turn: 1})
	other := tr.run("other", nil)
	other.add(&recorder.RunStarted{AgentName: "b", ConversationID: "c2"})
	turn0 := tr.run("t0", nil)
	turn0.add(&recorder.RunStarted{AgentName: "a", ConversationID: "c1", Turn: 0})
	sub := tr.run("sub", turn0)
	sub.add(&recorder.RunStarted{AgentName: "helper"})
	turn0.step("search")
	turn1.step("search")
	turn0.add(&recorder.RunEnded{Outcome: recorder.OutcomeCompleted, Usage: recorder.RunUsage{TotalTokens: 100, PromptTokens: 90, CompletionTokens: 10, ModelCalls: 1, ToolCalls: 1}})
	turn1.add(&recorder.RunEnded{Outcome: recorder.OutcomeError, Usage: recorder.RunUsage{TotalTokens: 100, PromptTokens: 90, CompletionTokens: 10, ModelCalls: 1, ToolCalls: 1}})
	page := render(t, tr.records, nil)

	var sections []string
	for _, id := range ids(page) {
		if strings.HasPrefix(id, "run-") || strings.HasPrefix(id, "conversation-") {
			sections = append(sections, id)
		}
	}
	if want := []string{"conversation-c1", "run-t0", "run-sub", "run-t1", "run-other"}; !slices.Equal(sections, want) {
		t.Errorf("sections %v, want %v", sections, want)
	}
	for _, want := range []string{
		`<section class="conversation" id="conversation-c1">` + "\n<h2>Conversation <code>c1</code> · 2 turns</h2>",
		`<dd class="mixed">1 completed, 1 error</dd>`,
		`<dd>200 <small>(180 prompt, 20 completion)</small></dd>`,
		`<li class="conversation"><a href="#conversation-c1">conversation <code>c1</code></a> · 2 turns` + "\n" +
			`<ol><li class="node"><span data-agent="a" data-outcome="completed" data-tools="search"><a href="#run-t0">turn 1: a</a>`,
		`<li class="node"><span data-agent="a" data-outcome="error" data-tools="search"><a href="#run-t1">turn 2: a</a>`,
		`<li class="node"><span data-agent="b" data-outcome="unfinished" data-tools=""><a href="#run-other">b</a>`,
		"<dt>Conversations</dt><dd>1</dd>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// The conversation's section holds its turns and their sub-agents.
	conv := page[strings.Index(page, `id="conversation-c1"`):]
	end := strings.Index(conv, "</section>\n</section>")
	if end < 0 || strings.Index(conv, `id="run-t1"`) > end || strings.Index(conv, `id="run-other"`) < end {
		t.Error("the conversation's section does not hold exactly its turns")
	}
}

func TestTheHeaderSumsTheRuns(t *testing.T) {
	tr := newTrajectory()
	lead := tr.run("lead", nil)
	lead.add(&recorder.RunStarted{AgentName: "lead"})
	child := tr.run("child", lead)
	child.add(&recorder.RunStarted{AgentName: "researcher"})
	child.step("search", "search") // no run_ended: counted from its records
	lead.add(&recorder.RunEnded{Outcome: recorder.OutcomeBudgetExceeded, StopReason: "tokens", Error: "budget exceeded: tokens",
		Usage: recorder.RunUsage{PromptTokens: 1000, CompletionTokens: 234, TotalTokens: 1234, ModelCalls: 3, ToolCalls: 4}})
	page := render(t, tr.records, nil)
	for _, want := range []string{
		`<dt>Outcome</dt><dd class="outcome-budget_exceeded">budget_exceeded</dd>`,
		`<dt>Stop reason</dt><dd>tokens</dd>`,
		`<dt>Model</dt><dd>test-model</dd>`,
		`<dt>Tokens</dt><dd>1,334 <small>(1,090 prompt, 244 completion)</small></dd>`,
		`<dt>Calls</dt><dd>4 model, 6 tool</dd>`,
		`<dt>Cost</dt><dd>not recorded</dd>`,
		`<dt>Runs</dt><dd>2</dd>`,
		`<ul><li class="node"><span data-agent="lead" data-outcome="budget_exceeded" data-tools=""><a href="#run-lead">lead</a> <span class="outcome-budget_exceeded">budget_exceeded</span> · tokens · 1,234 tokens, 3 model and 4 tool calls; the query: 100 tokens, 1 model and 2 tool calls</span><ul><li class="node"><span data-agent="researcher" data-outcome="unfinished" data-tools="search"><a href="#run-child">researcher</a> <span class="unfinished">unfinished</span> · 100 tokens, 1 model and 2 tool calls</span></li>`,
		`<div class="run-error"><p class="tag">error</p><pre>budget exceeded: tokens</pre></div>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestLongTextsAreFolded(t *testing.T) {
	tr := newTrajectory()
	r := tr.run("r", nil)
	r.add(&recorder.ToolStarted{CallID: "1", Name: "read", Arguments: "short"})
	r.add(&recorder.ToolEnded{CallID: "1", Name: "read", Result: strings.Repeat("é", 100)}) // 200 bytes
	page := render(t, tr.records, &report.Options{MaxTextBytes: 65})
	// 65 bytes would split an é: the cut goes back to a whole one.
	want := `<pre id="seq-1">` + strings.Repeat("é", 32) + `<i>+136</i></pre>`
	if !strings.Contains(page, want) {
		t.Errorf("the page lacks %q", want)
	}
	if !strings.Contains(page, `<pre class="args">short</pre>`) {
		t.Error("a short text was folded")
	}
	if !strings.Contains(page, "1 long texts are shown in part") {
		t.Error("the header does not say texts were folded")
	}
}

func TestTheTextsAreFoldedToFitThePage(t *testing.T) {
	tr := newTrajectory()
	r := tr.run("r", nil)
	for i := range 10 {
		r.add(&recorder.Message{Message: schema.UserMessage(strings.Repeat("x", 100*(i+1)))}) // 100 … 1000 bytes
	}
	full := len(render(t, tr.records, nil))
	limit := full - 2000
	page := render(t, tr.records, &report.Options{MaxBytes: limit})
	if len(page) > limit {
		t.Errorf("the page is %d bytes, more than MaxBytes %d", len(page), limit)
	}
	// The shortest texts stay whole, and those a note's length longer
	// than the cut; the others are cut to one length.
	var shown []int
	for i := range 10 {
		body := page[strings.Index(page, `id="seq-`+itoa(uint64(i))+`"`):]
		body = body[strings.Index(body, "<pre>")+len("<pre>"):]
		shown = append(shown, strings.Index(body, "<"))
	}
	cut := shown[9]
	for i, n := range shown {
		whole, want := 100*(i+1), cut
		if whole <= cut+24 {
			want = whole
		}
		if n != want {
			t.Errorf("text %d shows %d bytes, want %d: all of its %d or the common %d", i, n, want, whole, cut)
		}
	}
	if cut < 300 || cut >= 1000 {
		t.Errorf("the longest texts are cut to %d bytes, want most of what the page allows", cut)
	}
}

func TestTheBurnDownFollowsEachLimit(t *testing.T) {
	tr := newTrajectory()
	r := tr.run("r", nil)
	r.add(&recorder.RunStarted{Limits: recorder.RunLimits{MaxTokens: 1000, MaxToolCalls: 4, MaxModelCalls: 2, Timeout: 100 * time.Second}})
	r.step("a", "b") // 100 tokens, but the budget's charge says 900 of the shared budget
	r.add(&recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: 100, Used: 900, Limit: 1000})
	r.step("c", "d", "e")
	page := render(t, tr.records, nil)
	for _, want := range []string{
		`<rect class="band-caution" x="40" y="100" width="672" height="27"></rect>`,
		`<rect class="band-warning" x="40" y="127" width="672" height="13"></rect>`,
		`<li class="res-tokens" data-resource="tokens" data-used="0:0 2:100 7:900">tokens: 10% left <small>(900 of 1,000)</small></li>`,
		`<li class="res-model_calls" data-resource="model_calls" data-used="0:0 1:1 8:2">model calls: 0% left <small>(2 of 2)</small></li>`,
		`<li class="res-tool_calls" data-resource="tool_calls" data-used="0:0 3:1 5:2 10:3 12:4 14:5">tool calls: 0% left, exceeded <small>(5 of 4)</small></li>`,
		`<li class="res-time" data-resource="time" data-used="">time: 85% left <small>(15s of 1m40s)</small></li>`, // 16 records a second apart: 15 s of 100
		`<polyline class="res res-model_calls" points="40,8 84,8 84,74 `,                                           // the first request is record 2 of 16
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	t.Run("bands at the recorded thresholds", func(t *testing.T) {
		tr := newTrajectory()
		r := tr.run("r", nil)
		r.add(&recorder.RunStarted{Limits: recorder.RunLimits{MaxToolCalls: 4}, Thresholds: &recorder.Thresholds{CautionAt: 0.5, WarningAt: 0.2}})
		r.step("a")
		page := render(t, tr.records, nil)
		for _, want := range []string{
			`<rect class="band-caution" x="40" y="74" width="672" height="40"></rect>`,
			`<rect class="band-warning" x="40" y="114" width="672" height="26"></rect>`,
			"caution at 50% left or less, warning at 20% or less",
		} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
	})
	t.Run("no limits, no chart", func(t *testing.T) {
		tr := newTrajectory()
		tr.run("r", nil).add(&recorder.RunStarted{})
		if strings.Contains(render(t, tr.records, nil), "<svg") {
			t.Error("a chart for a run without limits")
		}
	})
}

// FuzzWrite writes the report of whatever records a JSON Lines input
// decodes to: it must not fail or panic, and no recorded text may add
// markup to the page.
func FuzzWrite(f *testing.F) {
	for _, r := range untrusted() {
		line, err := r.AppendJSON(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(line))
	}
	f.Add(`{"seq":3,"run_id":"a<b","parent_run_id":"a<b","kind":"tool_ended","payload":{"name":"<i>","result":"</pre>"}}`)
	f.Fuzz(func(t *testing.T, input string) {
		records, _, _ := recorder.ReadAll(strings.NewReader(input))
		if len(records) == 0 {
			return
		}
		var b strings.Builder
		if err := report.Write(&b, records, nil); err != nil {
			t.Fatal(err)
		}
		page := strings.ToLower(b.String())
		if n := scripts(page); n != 1 {
			t.Errorf("%d script elements", n)
		}
		if strings.Contains(page, "<img") {
			t.Error("recorded text added an element")
		}
	})
}
