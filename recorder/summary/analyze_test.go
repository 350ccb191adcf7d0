package summary_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

// budgetRun is one run that calls two tools in parallel, fails one call,
// is assessed, and ends over its token budget.
func budgetRun() *tape {
	return newTape().
		start("r1", "", "planner").
		user("r1", "migrate the billing service").
		reply("r1", "", 100, 20, "c1", "shell", "c2", "ls").
		toolStart("r1", "c1", "shell").
		toolStart("r1", "c2", "ls").
		toolEnd("r1", "c2", "ls", "a\nb").
		toolFail("r1", "c1", "shell", "exit status 1").
		assess("r1", "resource", "warning", "stall", "info").
		replyWithoutUsage("r1", "trying again").
		exceeded("r1", "tokens", 130, 100).
		end("r1", recorder.OutcomeBudgetExceeded, "tokens")
}

func TestAnalyzeCountsOneRun(t *testing.T) {
	rep := summary.Analyze(budgetRun().records)
	require.Len(t, rep.Runs, 1)
	r := rep.Runs[0]

	assert.Equal(t, "r1", r.RunID)
	assert.Equal(t, "planner", r.AgentName)
	assert.Equal(t, 11, r.Records)
	assert.Equal(t, 1, r.UserMessages)
	assert.Equal(t, 2, r.ModelCalls)
	assert.Equal(t, 1, r.ModelCallsWithoutUsage)
	assert.Equal(t, summary.Tokens{Prompt: 100, Completion: 20, Total: 120}, r.Tokens)
	assert.Equal(t, 2, r.ToolCalls)
	assert.Equal(t, 1, r.ToolErrors)
	assert.InDelta(t, 0.5, r.ErrorRate, 1e-9)
	assert.Equal(t, []summary.Tool{
		{Name: "ls", Calls: 1, Duration: 500 * time.Millisecond},
		{Name: "shell", Calls: 1, Errors: 1, Duration: 250 * time.Millisecond},
	}, r.Tools)
	assert.Equal(t, []summary.Failure{{Seq: 6, Tool: "shell", CallID: "c1", Error: "exit status 1"}}, r.Failures)
	assert.Equal(t, summary.Assessments{
		Count:      1,
		BySeverity: map[string]int{"info": 1, "warning": 1},
		Observers: []summary.ObserverAssessments{
			{Observer: "resource", Count: 1, BySeverity: map[string]int{"warning": 1}},
			{Observer: "stall", Count: 1, BySeverity: map[string]int{"info": 1}},
		},
	}, r.Assessments)
	assert.Equal(t, map[string]int{"tokens": 1}, r.BudgetExceeded)
	assert.Equal(t, []summary.Exceeded{{Seq: 9, Resource: "tokens", Used: 130, Limit: 100}}, r.Exceeded)
	assert.Equal(t, string(recorder.OutcomeBudgetExceeded), r.Outcome)
	assert.Equal(t, "tokens", r.StopReason)
	require.NotNil(t, r.Usage)
	assert.Equal(t, 10*time.Second, r.Duration, "run_started to run_ended")
}

func TestAnalyzeTotalsAddUpRunsAndLinkChildren(t *testing.T) {
	tp := newTape().
		start("parent", "", "planner").
		user("parent", "plan").
		reply("parent", "", 10, 5, "c1", "helper").
		toolStart("parent", "c1", "helper").
		start("child", "parent", "helper").
		user("child", "do it").
		reply("child", "done", 7, 3).
		end("child", recorder.OutcomeCompleted, "").
		toolEnd("parent", "c1", "helper", "done").
		reply("parent", "all done", 20, 5).
		end("parent", recorder.OutcomeCompleted, "").
		start("other", "", "planner").
		user("other", "again").
		end("other", recorder.OutcomeError, "")

	rep := summary.Analyze(tp.records)

	require.Len(t, rep.Runs, 3)
	assert.Equal(t, []string{"parent", "child", "other"}, []string{rep.Runs[0].RunID, rep.Runs[1].RunID, rep.Runs[2].RunID}, "runs in order of first appearance")
	assert.Equal(t, []string{"parent", "other"}, rep.Roots)
	assert.Equal(t, []string{"child"}, rep.Runs[0].Children)
	assert.Equal(t, "parent", rep.Runs[1].ParentRunID)
	assert.Equal(t, 1, rep.Runs[1].Depth)

	tot := rep.Total
	assert.Equal(t, 3, tot.Runs)
	assert.Equal(t, 2, tot.RootRuns)
	assert.Equal(t, 1, tot.ChildRuns)
	assert.Equal(t, map[string]int{"completed": 2, "error": 1}, tot.Outcomes)
	assert.Equal(t, 3, tot.UserMessages)
	assert.Equal(t, 3, tot.ModelCalls)
	assert.Equal(t, summary.Tokens{Prompt: 37, Completion: 13, Total: 50}, tot.Tokens)
	assert.Equal(t, 1, tot.ToolCalls)
	assert.Equal(t, len(tp.records), tot.Records)
	assert.Equal(t, rep.Runs[0].Duration+rep.Runs[2].Duration, tot.Duration, "only root runs add to the total duration")
}

func TestAnalyzeOutcomeOfARunWithoutEndIsUnfinished(t *testing.T) {
	rep := summary.Analyze(newTape().start("r", "", "a").user("r", "hi").records)
	assert.Equal(t, summary.Unfinished, rep.Runs[0].Outcome)
	assert.Nil(t, rep.Runs[0].Usage)
	assert.Equal(t, map[string]int{summary.Unfinished: 1}, rep.Total.Outcomes)
}

func TestAnalyzeDurationFallsBackToFirstAndLastRecord(t *testing.T) {
	tp := newTape()
	tp.user("r", "hi").reply("r", "x", 1, 1).reply("r", "y", 1, 1)
	rep := summary.Analyze(tp.records)
	assert.Equal(t, 2*time.Second, rep.Runs[0].Duration)
	assert.Equal(t, tp.records[0].RecordedAt, rep.Runs[0].Started)
	assert.Equal(t, tp.records[2].RecordedAt, rep.Runs[0].Ended)
}

func TestAnalyzePairsToolCalls(t *testing.T) {
	tp := newTape().
		toolStart("r", "c1", "read").
		toolEnd("r", "c9", "read", "result without a start").
		toolStart("r", "c2", "write")
	// Calls without ids pair by call index.
	tp.add("r", &recorder.ToolStarted{Name: "grep", CallIndex: 4})
	tp.add("r", &recorder.ToolEnded{Name: "grep", CallIndex: 4})

	r := summary.Analyze(tp.records).Runs[0]
	assert.Equal(t, 4, r.ToolCalls)
	assert.Equal(t, []summary.Tool{
		{Name: "grep", Calls: 1},
		{Name: "read", Calls: 2, Unfinished: 1, Duration: 500 * time.Millisecond},
		{Name: "write", Calls: 1, Unfinished: 1},
	}, r.Tools)
}

func TestAnalyzeListsAtMostMaxFailures(t *testing.T) {
	tp := newTape()
	for i := range summary.MaxFailures + 3 {
		tp.toolFail("r", "c"+strconv.Itoa(i), "flaky", strings.Repeat("é", 300))
	}
	r := summary.Analyze(tp.records).Runs[0]
	assert.Equal(t, summary.MaxFailures+3, r.ToolErrors)
	require.Len(t, r.Failures, summary.MaxFailures)
	assert.LessOrEqual(t, len(r.Failures[0].Error), 200+len("…"))
	assert.True(t, strings.HasSuffix(r.Failures[0].Error, "é…"), "cut at a rune boundary")
}

func TestAnalyzeCountsEfficacyAndExtensions(t *testing.T) {
	ev := func(observer, reaction string, shown int) string {
		return `{"observer":"` + observer + `","severity":"warning","assessment_call_index":3,"reaction":"` + reaction +
			`","counts":{"shown":` + strconv.Itoa(shown) + `,"changed_course":0,"wrapped_up":0,"carried_on":0}}`
	}
	tp := newTape().
		extension("r1", summary.EfficacyExtension, ev("stall", "changed_course", 1)).
		extension("r1", summary.EfficacyExtension, ev("stall", "carried_on", 2)).
		extension("r1", summary.EfficacyExtension, ev("drift", "wrapped_up", 1)).
		extension("r1", summary.EfficacyExtension, `{"observer":"stall","reaction":"shrugged"}`).
		extension("r1", summary.EfficacyExtension, `[1,2]`).
		extension("r1", "acme.deploy", `{"ok":true}`).
		extension("r2", summary.EfficacyExtension, ev("stall", "wrapped_up", 3))
	tp.add("r2", &recorder.Unknown{Name: "future_kind", Body: json.RawMessage(`{}`)})

	rep := summary.Analyze(tp.records)
	r1 := rep.Runs[0]
	assert.Equal(t, []summary.Efficacy{
		{Observer: "drift", Reactions: 1, WrappedUp: 1, Shown: 1},
		{Observer: "stall", Reactions: 2, ChangedCourse: 1, CarriedOn: 1, Shown: 2},
	}, r1.Efficacy)
	assert.Equal(t, 2, r1.MalformedEfficacy)
	assert.Equal(t, map[string]int{summary.EfficacyExtension: 5, "acme.deploy": 1}, r1.Extensions)

	stall := rep.Total.Efficacy[1]
	assert.Equal(t, summary.Efficacy{Observer: "stall", Reactions: 3, ChangedCourse: 1, WrappedUp: 1, CarriedOn: 1, Shown: 5}, stall)
	assert.Equal(t, 2, stall.Followed())
	assert.InDelta(t, 2.0/3, stall.FollowRate(), 1e-9)
	assert.Equal(t, map[string]int{"future_kind": 1}, rep.Total.UnknownKinds)
}

func TestAnalyzeCountsNotesWithoutSeverityAsUnspecified(t *testing.T) {
	r := summary.Analyze(newTape().assess("r", "custom", "").records).Runs[0]
	assert.Equal(t, map[string]int{summary.UnspecifiedSeverity: 1}, r.Assessments.BySeverity)
}

func TestAnalyzeIsDeterministic(t *testing.T) {
	records := budgetRun().records
	a, err := json.Marshal(summary.Analyze(records))
	require.NoError(t, err)
	for range 20 {
		b, err := json.Marshal(summary.Analyze(records))
		require.NoError(t, err)
		require.Equal(t, string(a), string(b))
	}
}

func TestAnalyzeOfNothingIsEmpty(t *testing.T) {
	rep := summary.Analyze(nil)
	assert.Empty(t, rep.Runs)
	assert.Zero(t, rep.Total.Runs)
	var buf bytes.Buffer
	require.NoError(t, rep.WriteText(&buf))
	assert.Contains(t, buf.String(), "runs: 0 (0 roots, 0 children)")
}

func TestAnalyzerReportSharesNoMemory(t *testing.T) {
	var a summary.Analyzer // the zero Analyzer is ready
	records := budgetRun().records
	for _, rec := range records[:8] {
		a.Add(rec)
	}
	early := a.Report()
	earlyJSON, err := json.Marshal(early)
	require.NoError(t, err)
	for _, rec := range records[8:] {
		a.Add(rec)
	}
	early.Runs[0].Tools[0].Calls = 99
	early.Runs[0].Assessments.BySeverity["made-up"] = 1
	late := a.Report()

	again, err := json.Marshal(summary.Analyze(records[:8]))
	require.NoError(t, err)
	assert.JSONEq(t, string(again), string(earlyJSON))
	assert.Equal(t, summary.Analyze(records), late)
}

func TestAnalyzerMatchesAnalyzeOverAReader(t *testing.T) {
	var buf bytes.Buffer
	records := budgetRun().records
	for _, rec := range records {
		b, err := rec.AppendJSON(nil)
		require.NoError(t, err)
		buf.Write(append(b, '\n'))
	}
	var a summary.Analyzer
	for rec, err := range recorder.NewReader(&buf).All() {
		require.NoError(t, err)
		a.Add(rec)
	}
	assert.Equal(t, summary.Analyze(records), a.Report())
}

func TestWriteTextRendersEverySection(t *testing.T) {
	tp := budgetRun().
		extension("r1", summary.EfficacyExtension, `{"observer":"stall","reaction":"wrapped_up","counts":{"shown":1}}`)
	var buf bytes.Buffer
	require.NoError(t, summary.Analyze(tp.records).WriteText(&buf))
	out := buf.String()
	for _, want := range []string{
		"runs: 1 (1 root, 0 children)",
		"outcomes: budget_exceeded 1",
		"stop reasons: tokens 1",
		"turns: 2 model calls (1 without usage), 1 user message",
		"tokens: 100 prompt, 20 completion, 120 total",
		"tools: 2 calls, 1 error (50.0%)",
		"  shell: 1 call, 1 error, 250ms",
		"assessments: 1 (info 1, warning 1)",
		"budget exceeded: tokens 1",
		"stall: 1 shown, 1 reaction, 1 followed (100.0%)",
		"extensions: lookout.efficacy 1",
		"run r1 (agent planner)",
		"  outcome: budget_exceeded (stop reason: tokens)",
		"  budget exceeded: tokens, used 130 of 100 (seq 9)",
		"    seq 6 shell (c1): exit status 1",
	} {
		assert.Contains(t, out, want)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(p), nil
}

func TestWriteTextReturnsTheWritersError(t *testing.T) {
	err := summary.Analyze(budgetRun().records).WriteText(&failingWriter{n: 3})
	assert.EqualError(t, err, "disk full")
}

// The Eino adapters write tool_started before a call has its index, so a
// call without an id is started at index 0 and ended at its own index.
func TestAnalyzePairsCallsStartedWithoutIdOrIndex(t *testing.T) {
	tp := newTape()
	tp.add("r", &recorder.ToolStarted{Name: "grep"})
	tp.add("r", &recorder.ToolStarted{Name: "grep"})
	tp.add("r", &recorder.ToolStarted{Name: "read"})
	tp.add("r", &recorder.ToolEnded{Name: "grep", CallIndex: 1})
	tp.add("r", &recorder.ToolEnded{Name: "grep", CallIndex: 2})

	r := summary.Analyze(tp.records).Runs[0]
	assert.Equal(t, 3, r.ToolCalls)
	assert.Equal(t, []summary.Tool{
		{Name: "grep", Calls: 2},
		{Name: "read", Calls: 1, Unfinished: 1},
	}, r.Tools)

	tp.user("r", "next")
	tp.add("r", &recorder.ToolStarted{Name: "grep"})
	tp.add("r", &recorder.ToolEnded{Name: "grep", CallIndex: 3})
	prompts := summary.Split(tp.records)
	require.NotEmpty(t, prompts)
	assert.Equal(t, 1, prompts[len(prompts)-1].ToolCalls, "one call, not a start and an end")
}

// Some models give parallel calls the same id; each is still a call.
func TestAnalyzeCountsParallelCallsThatShareAnID(t *testing.T) {
	tp := newTape().
		user("r", "look around").
		reply("r", "", 1, 1, "call_0", "read", "call_0", "grep").
		toolStart("r", "call_0", "read").
		toolStart("r", "call_0", "grep").
		toolEnd("r", "call_0", "grep", "match").
		toolFail("r", "call_0", "read", "no such file")

	r := summary.Analyze(tp.records).Runs[0]
	assert.Equal(t, 2, r.ToolCalls)
	assert.Equal(t, 1, r.ToolErrors)
	assert.InDelta(t, 0.5, r.ErrorRate, 1e-9)
	assert.Equal(t, []summary.Tool{
		{Name: "grep", Calls: 1, Duration: 500 * time.Millisecond},
		{Name: "read", Calls: 1, Errors: 1, Duration: 250 * time.Millisecond},
	}, r.Tools)

	prompts := summary.Split(tp.records)
	require.Len(t, prompts, 1)
	assert.Equal(t, 2, prompts[0].ToolCalls)
	assert.Equal(t, 1, prompts[0].ToolErrors)
}

func TestAnalyzeCountsAStartedCallSharingAnIDAsUnfinished(t *testing.T) {
	tp := newTape().
		toolStart("r", "call_0", "read").
		toolStart("r", "call_0", "read").
		toolEnd("r", "call_0", "read", "ok")

	r := summary.Analyze(tp.records).Runs[0]
	assert.Equal(t, []summary.Tool{{Name: "read", Calls: 2, Unfinished: 1, Duration: 500 * time.Millisecond}}, r.Tools)
}

// nilPayloads holds a typed nil pointer of every payload type.
func nilPayloads() []recorder.Record {
	payloads := []recorder.Payload{
		(*recorder.RunStarted)(nil), (*recorder.RunEnded)(nil), (*recorder.ModelRequest)(nil),
		(*recorder.ModelResponse)(nil), (*recorder.Message)(nil), (*recorder.ToolStarted)(nil),
		(*recorder.ToolEnded)(nil), (*recorder.AssessmentRecord)(nil), (*recorder.BudgetRecord)(nil),
		(*recorder.Extension)(nil), (*recorder.Unknown)(nil), nil,
	}
	tp := newTape().user("r", "hi")
	for _, p := range payloads {
		tp.add("r", p)
	}
	return tp.records
}

func TestAnalyzeSkipsRecordsWithoutAPayload(t *testing.T) {
	records := nilPayloads()
	var rep summary.Report
	require.NotPanics(t, func() { rep = summary.Analyze(records) })
	r := rep.Runs[0]
	assert.Equal(t, len(records), r.Records, "every record is counted")
	assert.Equal(t, 1, r.UserMessages)
	assert.Zero(t, r.ModelCalls)
	assert.Zero(t, r.ToolCalls)
	assert.Equal(t, summary.Unfinished, r.Outcome)
	assert.Empty(t, r.UnknownKinds)
}

func TestAnalyzeBreaksParentCycles(t *testing.T) {
	tp := newTape()
	tp.parents["a"], tp.parents["b"], tp.parents["c"] = "b", "a", "b"
	tp.user("a", "one").user("b", "two").user("c", "three").reply("a", "done", 1, 1)

	rep := summary.Analyze(tp.records)

	assert.Equal(t, []string{"a"}, rep.Roots, "the first run of the cycle is its root")
	assert.Equal(t, []string{"b"}, rep.Runs[0].Children)
	assert.Equal(t, []string{"c"}, rep.Runs[1].Children)
	assert.Equal(t, 1, rep.Total.RootRuns)
	assert.Equal(t, 2, rep.Total.ChildRuns)
	assert.Equal(t, rep.Runs[0].Duration, rep.Total.Duration)
	assert.Equal(t, 3*time.Second, rep.Total.Duration)
}

func TestWriteTextKeepsMultiLineTextInItsRun(t *testing.T) {
	tp := newTape().
		start("r", "", "planner").
		end("r", recorder.OutcomeError, "error")
	tp.records[1].Payload.(*recorder.RunEnded).Error = "two tools failed:\nread: gone\n\nwrite: denied"

	var buf bytes.Buffer
	require.NoError(t, summary.Analyze(tp.records).WriteText(&buf))

	assert.Contains(t, buf.String(), "  error: two tools failed: read: gone write: denied\n")
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		assert.False(t, strings.HasPrefix(line, "read:") || strings.HasPrefix(line, "write:"), "line %q left its run", line)
	}
}

func TestWriteTextCountsAssessmentsWithoutNotes(t *testing.T) {
	tp := newTape().assess("r")

	var buf bytes.Buffer
	require.NoError(t, summary.Analyze(tp.records).WriteText(&buf))

	assert.Contains(t, buf.String(), "\nassessments: 1\n")
	assert.NotContains(t, buf.String(), "()")
}
