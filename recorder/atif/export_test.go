package atif

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

var testOptions = &Options{AgentVersion: "v0.0.0-test"}

// export runs FromRecords and fails the test unless the result is valid.
func export(t *testing.T, records []recorder.Record, opts *Options) *Trajectory {
	t.Helper()
	if opts == nil {
		opts = testOptions
	}
	tr, err := FromRecords(records, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Validate(); err != nil {
		t.Fatalf("export is not valid ATIF: %v", err)
	}
	return tr
}

func TestFromRecordsPutsParallelCallsInOneStep(t *testing.T) {
	tp := newTape().
		start("run-1", "", "planner", "").
		user("run-1", "price and volume of GOOGL?").
		model("run-1", "gpt-4o").
		reply("run-1", "checking both", 100, 20,
			"c1", "quote", `{"ticker":"GOOGL","metric":"price"}`,
			"c2", "quote", `{"ticker":"GOOGL","metric":"volume"}`).
		toolStart("run-1", "c1", "quote", "").
		toolStart("run-1", "c2", "quote", "").
		toolEnd("run-1", "c2", "quote", "1.5M").    // finishes first
		toolEnd("run-1", "c1", "quote", "$185.35"). // finishes second
		model("run-1", "gpt-4o").
		reply("run-1", "GOOGL trades at $185.35 on 1.5M shares", 150, 10).
		end("run-1")
	tr := export(t, tp.records, nil)

	if len(tr.Steps) != 3 {
		t.Fatalf("got %d steps, want user, agent with calls, final agent", len(tr.Steps))
	}
	step := tr.Steps[1]
	if len(step.ToolCalls) != 2 || step.Observation == nil || len(step.Observation.Results) != 2 {
		t.Fatalf("step 2 = %+v, want two calls and two results", step)
	}
	for i, want := range []struct{ id, content string }{{"c1", "$185.35"}, {"c2", "1.5M"}} {
		r := step.Observation.Results[i]
		if r.SourceCallID != want.id || r.Content.PlainText() != want.content {
			t.Errorf("result %d = %s %q, want %s %q (call order, not finish order)", i, r.SourceCallID, r.Content.PlainText(), want.id, want.content)
		}
	}
	if got := string(step.ToolCalls[0].Arguments); got != `{"ticker":"GOOGL","metric":"price"}` {
		t.Errorf("arguments = %s", got)
	}
	if tr.SessionID != "run-1" || tr.Agent.Name != "planner" || tr.Agent.ModelName != "gpt-4o" || tr.Agent.Version != "v0.0.0-test" {
		t.Errorf("session/agent = %q %+v", tr.SessionID, tr.Agent)
	}
	fm := tr.FinalMetrics
	if *fm.TotalPromptTokens != 250 || *fm.TotalCompletionTokens != 30 || *fm.TotalSteps != 3 || fm.TotalCachedTokens != nil {
		t.Errorf("final metrics = %+v", fm)
	}
}

func TestFromRecordsAgentStepFields(t *testing.T) {
	tp := newTape().start("r", "", "a", "").model("r", "m-1")
	msg := schema.AssistantMessage("answer", nil)
	msg.ReasoningContent = "because"
	tp.add("r", &recorder.ModelResponse{
		Message:       msg,
		Usage:         recorder.TokenUsage{PromptTokens: 10, CompletionTokens: 5, CachedTokens: 4, ReasoningTokens: 3},
		UsageReported: true,
		FinishReason:  "stop",
		Latency:       1500 * time.Microsecond,
	})
	tp.add("r", &recorder.ModelResponse{Message: schema.AssistantMessage("no usage", nil)})
	tr := export(t, tp.records, nil)

	got, _ := json.Marshal(tr.Steps)
	want := `[{"step_id":1,"timestamp":"2025-10-11T10:30:02.000000Z","source":"agent","model_name":"m-1","message":"answer",` +
		`"reasoning_content":"because","metrics":{"prompt_tokens":10,"completion_tokens":5,"cached_tokens":4,"extra":{"reasoning_tokens":3}},` +
		`"llm_call_count":1,"extra":{"lookout":{"finish_reason":"stop","latency_ms":1.5}}},` +
		`{"step_id":2,"timestamp":"2025-10-11T10:30:03.000000Z","source":"agent","model_name":"m-1","message":"no usage","llm_call_count":1}]`
	if string(got) != want {
		t.Errorf("steps:\n got %s\nwant %s", got, want)
	}
	if *tr.FinalMetrics.TotalCachedTokens != 4 {
		t.Errorf("total cached = %d", *tr.FinalMetrics.TotalCachedTokens)
	}
}

func TestFromRecordsKeepsArgumentsThatAreNotAnObject(t *testing.T) {
	for _, args := range []string{`{"q": `, `[1,2]`, ``, `"text"`} {
		tp := newTape().start("r", "", "a", "").reply("r", "", 1, 1, "c1", "f", args)
		tr := export(t, tp.records, nil)
		call := tr.Steps[0].ToolCalls[0]
		if string(call.Arguments) != "{}" {
			t.Errorf("%q: arguments = %s, want {}", args, call.Arguments)
		}
		if raw := lookoutExtra(call.Extra)["raw_arguments"]; raw != args {
			t.Errorf("%q: raw_arguments = %v", args, raw)
		}
	}
}

func TestFromRecordsToolResultDetails(t *testing.T) {
	tp := newTape().start("r", "", "a", "").reply("r", "", 1, 1, "c1", "fetch", `{}`, "c2", "fetch", `{}`)
	tp.add("r", &recorder.ToolEnded{CallID: "c1", Name: "fetch", IsError: true, Error: "timeout", Duration: 2 * time.Second})
	tp.add("r", &recorder.ToolEnded{CallID: "c2", Name: "fetch", Result: "abc", ResultBytes: 9000, Truncated: true})
	tp.add("r", &recorder.ToolEnded{CallID: "c9", Name: "cron", Result: "tick"})
	tr := export(t, tp.records, nil)

	results := tr.Steps[0].Observation.Results
	got, _ := json.Marshal(results)
	want := `[{"source_call_id":"c1","content":"timeout","extra":{"lookout":{"duration_ms":2000,"error":"timeout","is_error":true}}},` +
		`{"source_call_id":"c2","content":"abc","extra":{"lookout":{"result_bytes":9000,"truncated":true}}}]`
	if string(got) != want {
		t.Errorf("results:\n got %s\nwant %s", got, want)
	}
	carrier, _ := json.Marshal(tr.Steps[1])
	wantCarrier := `{"step_id":2,"timestamp":"2025-10-11T10:30:04.000000Z","source":"system","message":"",` +
		`"observation":{"results":[{"content":"tick","extra":{"lookout":{"call_id":"c9","tool_name":"cron"}}}]},"extra":{"lookout":{"carrier":true}}}`
	if string(carrier) != wantCarrier {
		t.Errorf("a result for an unknown call:\n got %s\nwant %s", carrier, wantCarrier)
	}
}

func TestFromRecordsAssessmentsBecomeSystemSteps(t *testing.T) {
	tp := newTape().start("r", "", "a", "").
		add("r", &recorder.AssessmentRecord{Markdown: "**budget** 80% used", AfterCallIndex: 7,
			Observers: []recorder.ObserverNote{{Name: "resource", Severity: "warning"}}})
	tr := export(t, tp.records, nil)
	got, _ := json.Marshal(tr.Steps[0])
	want := `{"step_id":1,"timestamp":"2025-10-11T10:30:01.000000Z","source":"system","message":"**budget** 80% used",` +
		`"extra":{"lookout":{"assessment":{"after_call_index":7,"observers":[{"name":"resource","severity":"warning"}]}}}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	tp.user("r", "hi")
	tr = export(t, tp.records, &Options{OmitAssessments: true})
	if len(tr.Steps) != 1 || tr.Steps[0].Source != SourceUser {
		t.Errorf("OmitAssessments kept %+v", tr.Steps)
	}
}

func TestFromRecordsMessageRoles(t *testing.T) {
	tp := newTape().start("r", "", "a", "").system("r", "be brief").user("r", "hi")
	tp.add("r", &recorder.Message{Message: schema.AssistantMessage("earlier answer", nil)})
	tp.add("r", &recorder.Message{Message: schema.ToolMessage("earlier result", "c0")})
	tr := export(t, tp.records, nil)
	var got []string
	for _, s := range tr.Steps {
		got = append(got, string(s.Source)+":"+s.Message.PlainText())
	}
	want := []string{"system:be brief", "user:hi", "agent:earlier answer", "system:earlier result"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	if role := lookoutExtra(tr.Steps[3].Extra)["role"]; role != "tool" {
		t.Errorf("tool message extra = %v", tr.Steps[3].Extra)
	}
}

func TestFromRecordsMultimodalUserInput(t *testing.T) {
	url, inline := "https://example.com/cat.png", "data:image/png;base64,AAAA"
	audio := "clips/q.mp3"
	m := &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "what is this?"},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url, MIMEType: "image/png"}}},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &inline, MIMEType: "image/png"}}},
		{Type: schema.ChatMessagePartTypeAudioURL, Audio: &schema.MessageInputAudio{MessagePartCommon: schema.MessagePartCommon{URL: &audio, MIMEType: "audio/mp3"}}},
		{Type: schema.ChatMessagePartTypeVideoURL},
	}}
	tp := newTape().start("r", "", "a", "").add("r", &recorder.Message{Message: m})
	tr := export(t, tp.records, nil)
	got, _ := json.Marshal(tr.Steps[0].Message)
	want := `[{"type":"text","text":"what is this?"},{"type":"image","source":{"media_type":"image/png","path":"https://example.com/cat.png"}},` +
		`{"type":"image","source":{"media_type":"image/png","path":"media/709e80c88487a2411e1ee4dfb9f22a861492d20c4765150c0c794abd70f8147c.png"}},{"type":"audio","source":{"media_type":"audio/mpeg","path":"clips/q.mp3"}},{"type":"text","text":"[video_url omitted]"}]`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// The inline image is a file to write next to the document.
	files := tr.MediaFiles()
	if len(files) != 1 || files[0].Path != "media/709e80c88487a2411e1ee4dfb9f22a861492d20c4765150c0c794abd70f8147c.png" || !bytes.Equal(files[0].Data, []byte{0, 0, 0}) {
		t.Errorf("media files = %+v, want the inline image's three bytes", files)
	}
}

func TestFromRecordsRedacts(t *testing.T) {
	hide := recorder.RedactFunc(func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") })
	tp := newTape().start("r", "", "a", "").
		user("r", "my password is hunter2").
		reply("r", "using hunter2", 1, 1, "c1", "login", `{"password":"hunter2"}`)
	tp.add("r", &recorder.ToolEnded{CallID: "c1", Name: "login", IsError: true, Error: "hunter2 rejected"})
	tp.add("r", &recorder.RunEnded{Outcome: recorder.OutcomeError, Error: "hunter2 failed"})
	tr := export(t, tp.records, &Options{Redactor: hide})
	out, _ := json.Marshal(tr)
	if strings.Contains(string(out), "hunter2") {
		t.Errorf("secret survived redaction: %s", out)
	}
	if !strings.Contains(string(out), `{\"password\":\"[REDACTED]\"}`) && !strings.Contains(string(out), `{"password":"[REDACTED]"}`) {
		t.Errorf("arguments not redacted in place: %s", out)
	}
}

func TestFromRecordsRunOutcome(t *testing.T) {
	tp := newTape().start("r", "", "a", "").user("r", "go").
		add("r", &recorder.RunEnded{Outcome: recorder.OutcomeBudgetExceeded, Error: "tokens", StopReason: "max_tokens"})
	tr := export(t, tp.records, nil)
	got, _ := json.Marshal(tr.Extra)
	if want := `{"lookout":{"error":"tokens","outcome":"budget_exceeded","run_id":"r","stop_reason":"max_tokens"}}`; string(got) != want {
		t.Errorf("extra = %s, want %s", got, want)
	}
}

func TestFromRecordsPicksTheRootRun(t *testing.T) {
	two := newTape().start("a", "", "x", "").user("a", "1").start("b", "", "y", "").user("b", "2")
	_, err := FromRecords(two.records, nil)
	var amb *AmbiguousRootError
	if !errors.As(err, &amb) || !errors.Is(err, ErrAmbiguousRoot) || !reflect.DeepEqual(amb.RunIDs, []string{"a", "b"}) {
		t.Fatalf("err = %v, want AmbiguousRootError listing a and b", err)
	}
	if got := RootRuns(two.records); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("RootRuns = %v", got)
	}
	tr := export(t, two.records, &Options{RunID: "b"})
	if tr.SessionID != "b" || tr.Steps[0].Message.PlainText() != "2" {
		t.Errorf("RunID b exported %q %q", tr.SessionID, tr.Steps[0].Message.PlainText())
	}
	if _, err := FromRecords(nil, nil); !errors.Is(err, ErrNoRootRun) {
		t.Errorf("no records: err = %v", err)
	}
	if _, err := FromRecords(two.records, &Options{RunID: "zzz"}); !errors.Is(err, ErrNoRootRun) {
		t.Errorf("unknown RunID: err = %v", err)
	}
}

func TestFromRecordsOrdersEachRunBySeq(t *testing.T) {
	tp := newTape().start("r", "", "a", "").user("r", "first").user("r", "second")
	shuffled := []recorder.Record{tp.records[2], tp.records[0], tp.records[1]}
	tr := export(t, shuffled, nil)
	if tr.Steps[0].Message.PlainText() != "first" {
		t.Errorf("steps follow slice order, not seq: %+v", tr.Steps)
	}
}

// subagentTape has one root and four child runs, one for each rule that
// links a child to the step that delegated to it.
func subagentTape() *tape {
	tp := newTape()
	tp.start("root", "", "planner", "")
	tp.start("early", "root", "warmup", "").user("early", "prepare").end("early") // rule 4: before any agent step
	tp.user("root", "research and summarize")
	tp.model("root", "gpt-4o").reply("root", "delegating", 50, 5,
		"c1", "researcher", `{"topic":"atif"}`,
		"c2", "search", `{"q":"atif"}`)
	tp.toolStart("root", "c1", "researcher", `{"topic":"atif"}`)
	tp.toolStart("root", "c2", "search", `{"q":"atif"}`)
	// rule 1: the adapter named the call.
	tp.start("child", "root", "researcher", "c1")
	tp.model("child", "gpt-4o-mini").reply("child", "", 20, 2, "c1", "summarizer", `{}`)
	tp.toolStart("child", "c1", "summarizer", `{}`)
	// rule 2: no call named; the summarizer call is the one running.
	tp.start("grandchild", "child", "summarizer", "").
		model("grandchild", "gpt-4o-mini").reply("grandchild", "short version", 5, 1).end("grandchild")
	tp.toolEnd("child", "c1", "summarizer", "short version")
	tp.model("child", "gpt-4o-mini").reply("child", "findings", 30, 3).end("child")
	tp.toolEnd("root", "c2", "search", "3 hits")
	tp.toolEnd("root", "c1", "researcher", "findings")
	tp.model("root", "gpt-4o").reply("root", "handing over", 80, 4, "c3", "transfer_to_agent", `{"agent":"writer"}`)
	tp.toolStart("root", "c3", "transfer_to_agent", "").toolEnd("root", "c3", "transfer_to_agent", "ok")
	// rule 3: after every call ended; the last agent step delegated.
	tp.start("writer", "root", "writer", "").model("writer", "gpt-4o").reply("writer", "report", 40, 8).end("writer")
	tp.end("root")
	return tp
}

func TestFromRecordsEmbedsSubagents(t *testing.T) {
	tr := export(t, subagentTape().records, nil)

	var ids []string
	for _, sub := range tr.SubagentTrajectories {
		ids = append(ids, sub.TrajectoryID)
		if sub.Steps[0].StepID != 1 || sub.SchemaVersion != Version {
			t.Errorf("subagent %s: first step %d, version %q", sub.TrajectoryID, sub.Steps[0].StepID, sub.SchemaVersion)
		}
	}
	if want := []string{"early", "child", "writer"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("subagent_trajectories = %v, want %v (the root's own children, by start)", ids, want)
	}
	// The RFC nests: a subagent's own subagents sit in its
	// subagent_trajectories.
	var nested []string
	for _, sub := range tr.SubagentTrajectories[1].SubagentTrajectories {
		nested = append(nested, sub.TrajectoryID)
	}
	if want := []string{"grandchild"}; !reflect.DeepEqual(nested, want) {
		t.Fatalf("child's subagent_trajectories = %v, want %v", nested, want)
	}

	refs := func(steps []Step) map[string]string { // trajectory_id → "step N call X"
		out := map[string]string{}
		for _, s := range steps {
			if s.Observation == nil {
				continue
			}
			for _, r := range s.Observation.Results {
				for _, ref := range r.SubagentTrajectoryRef {
					out[ref.TrajectoryID] = string(s.Source) + " step " + itoa(s.StepID) + " call " + r.SourceCallID
				}
			}
		}
		return out
	}
	root := refs(tr.Steps)
	wantRoot := map[string]string{
		"early":  "system step 1 call ",
		"child":  "agent step 3 call c1",
		"writer": "agent step 4 call ",
	}
	if !reflect.DeepEqual(root, wantRoot) {
		t.Errorf("root refs = %v, want %v", root, wantRoot)
	}
	child := refs(tr.SubagentTrajectories[1].Steps)
	if want := map[string]string{"grandchild": "agent step 1 call c1"}; !reflect.DeepEqual(child, want) {
		t.Errorf("child refs = %v, want %v", child, want)
	}
	if tr.SubagentTrajectories[1].Agent.Name != "researcher" || tr.SubagentTrajectories[1].Agent.ModelName != "gpt-4o-mini" {
		t.Errorf("child agent = %+v", tr.SubagentTrajectories[1].Agent)
	}
	// The researcher call's result holds both the ref and the tool's output.
	r := tr.Steps[2].Observation.Results[0]
	if r.SourceCallID != "c1" || r.Content.PlainText() != "findings" || len(r.SubagentTrajectoryRef) != 1 {
		t.Errorf("researcher result = %+v", r)
	}
}

func TestFromRecordsPrefersTheCallNamedLikeTheChildAgent(t *testing.T) {
	tp := newTape().start("root", "", "p", "").
		reply("root", "", 1, 1, "c1", "researcher", `{}`, "c2", "search", `{}`).
		toolStart("root", "c1", "researcher", "").
		toolStart("root", "c2", "search", ""). // started later, but named differently
		start("kid", "root", "researcher", "").reply("kid", "done", 1, 1).end("kid").
		toolEnd("root", "c2", "search", "").toolEnd("root", "c1", "researcher", "")
	tr := export(t, tp.records, nil)
	for _, r := range tr.Steps[0].Observation.Results {
		if len(r.SubagentTrajectoryRef) > 0 && r.SourceCallID != "c1" {
			t.Errorf("child linked to %s, want c1 (the call named like the agent)", r.SourceCallID)
		}
	}
	tp.records[4].Payload.(*recorder.RunStarted).AgentName = "other"
	tr = export(t, tp.records, nil)
	if r := tr.Steps[0].Observation.Results[1]; r.SourceCallID != "c2" || len(r.SubagentTrajectoryRef) != 1 {
		t.Errorf("with no name match, want the latest started call c2, got %+v", tr.Steps[0].Observation.Results)
	}
}

func TestFromRecordsCallWithoutResultStillCarriesItsSubagent(t *testing.T) {
	tp := newTape().start("root", "", "p", "").
		reply("root", "", 1, 1, "c1", "researcher", `{}`).
		toolStart("root", "c1", "researcher", "").
		start("kid", "root", "researcher", "c1").user("kid", "x")
	tr := export(t, tp.records, nil)
	r := tr.Steps[0].Observation.Results[0]
	if r.SourceCallID != "c1" || r.Content != nil || len(r.SubagentTrajectoryRef) != 1 {
		t.Errorf("result = %+v, want a ref with no content", r)
	}
}

// A child that ToRecords imported as not started by a call stays off the
// call running when it started, where rule 2 would have put it.
func TestFromRecordsLeavesAnImportedUncalledChildOffTheRunningCall(t *testing.T) {
	tp := newTape().start("root", "", "p", "").
		reply("root", "", 1, 1, "c1", "researcher", `{}`).
		toolStart("root", "c1", "researcher", "")
	tp.parents["kid"] = "root"
	tp.add("kid", &recorder.RunStarted{AgentName: "researcher", Extra: trajectoryResidue(&Trajectory{}, "kid", true)}).
		reply("kid", "done", 1, 1).end("kid").
		toolEnd("root", "c1", "researcher", "found")
	tr := export(t, tp.records, nil)
	var linked []ObservationResult
	for _, r := range tr.Steps[0].Observation.Results {
		if len(r.SubagentTrajectoryRef) > 0 {
			linked = append(linked, r)
		}
	}
	if len(linked) != 1 || linked[0].SourceCallID != "" {
		t.Errorf("results = %+v, want the child's ref on a result of no call", tr.Steps[0].Observation.Results)
	}
}

func TestFromRecordsSurvivesACycleOfRuns(t *testing.T) {
	tp := newTape()
	tp.parents["a"], tp.parents["b"] = "b", "a"
	tp.add("a", &recorder.RunStarted{AgentName: "a"}).add("b", &recorder.RunStarted{AgentName: "b"}).user("a", "hi")
	if _, err := FromRecords(tp.records, nil); !errors.Is(err, ErrNoRootRun) {
		t.Errorf("cycle without RunID: err = %v", err)
	}
	tr := export(t, tp.records, &Options{RunID: "a"})
	if len(tr.SubagentTrajectories) != 1 || tr.SubagentTrajectories[0].TrajectoryID != "b" {
		t.Errorf("subagents = %+v", tr.SubagentTrajectories)
	}
}

func TestFromRecordsDefaultsTheAgentVersion(t *testing.T) {
	tp := newTape().start("r", "", "", "").user("r", "hi")
	tr := export(t, tp.records, &Options{})
	if tr.Agent.Version == "" || tr.Agent.Name != "agent" {
		t.Errorf("agent = %+v", tr.Agent)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A model call attempt that failed says nothing: it gives no step, and
// the retry's reply is the agent's one step.
func TestFromRecordsLeavesOutAFailedAttempt(t *testing.T) {
	tp := newTape().
		start("run-1", "", "planner", "").
		user("run-1", "hi").
		model("run-1", "gpt-4o").
		add("run-1", &recorder.ModelResponse{Error: "HTTP 500"}).
		model("run-1", "gpt-4o").
		reply("run-1", "hello", 10, 2).
		end("run-1")
	tr := export(t, tp.records, nil)
	if len(tr.Steps) != 2 {
		t.Fatalf("got %d steps, want the user's and the agent's reply", len(tr.Steps))
	}
	if got := tr.Steps[1].Message.PlainText(); got != "hello" {
		t.Errorf("the agent's step says %q, want the retry's reply", got)
	}
}
