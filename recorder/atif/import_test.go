package atif

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// detailTape exercises everything but subagents: roles, media, errors,
// truncation, stray results, assessments, odd arguments, missing usage,
// an empty child run, and a root run that never ended.
func detailTape() *tape {
	url := "https://example.com/a.png"
	tp := newTape().start("root", "", "helper", "").system("root", "be brief")
	tp.add("root", &recorder.Message{Message: &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "look"},
		{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url, MIMEType: "image/png"}}},
	}}})
	tp.add("root", &recorder.Message{Message: schema.AssistantMessage("from history", nil)})
	tp.add("root", &recorder.Message{Message: schema.ToolMessage("old result", "c0")})
	tp.model("root", "m").reply("root", "working", 10, 2, "c1", "fetch", `{"url": "x"}`, "c2", "fetch", `not json`, "c3", "fetch", `{}`)
	tp.toolStart("root", "c1", "fetch", "").toolStart("root", "c2", "fetch", "")
	tp.add("root", &recorder.ToolEnded{CallID: "c1", Name: "fetch", IsError: true, Error: "timeout", Duration: 1234567 * time.Nanosecond})
	tp.add("root", &recorder.ToolEnded{CallID: "c2", Name: "fetch", Result: "partial", ResultBytes: 5000, Truncated: true})
	tp.add("root", &recorder.ToolEnded{CallID: "", Name: "cron", Result: "tick"})
	tp.add("root", &recorder.AssessmentRecord{Markdown: "stalled?", AfterCallIndex: 2, Observers: []recorder.ObserverNote{{Name: "stall"}}})
	tp.add("root", &recorder.ModelResponse{Message: schema.AssistantMessage("no usage", nil), FinishReason: "stop"})
	tp.start("empty", "root", "idle", "c3")
	return tp
}

func parallelTape() *tape {
	return newTape().start("run-1", "", "planner", "").
		user("run-1", "price and volume?").
		model("run-1", "gpt-4o").
		reply("run-1", "checking", 100, 20, "c1", "quote", `{"m":"price"}`, "c2", "quote", `{"m":"volume"}`).
		toolStart("run-1", "c1", "quote", "").toolStart("run-1", "c2", "quote", "").
		toolEnd("run-1", "c2", "quote", "1.5M").toolEnd("run-1", "c1", "quote", "$185").
		model("run-1", "gpt-4o").reply("run-1", "done", 150, 10).
		end("run-1")
}

// crossedTape has two parallel agent-tool calls whose children start in
// the opposite order of the calls.
func crossedTape() *tape {
	tp := newTape().start("root", "", "p", "").
		reply("root", "", 1, 1, "c1", "alpha", `{}`, "c2", "beta", `{}`).
		toolStart("root", "c1", "alpha", "").toolStart("root", "c2", "beta", "")
	tp.start("b", "root", "beta", "c2").user("b", "b").end("b")
	tp.start("a", "root", "alpha", "c1").user("a", "a").end("a")
	return tp.toolEnd("root", "c1", "alpha", "A").toolEnd("root", "c2", "beta", "B").end("root")
}

// partsTape has messages with multimodal input in every role.
func partsTape() *tape {
	tp := newTape().start("r", "", "a", "")
	for _, role := range []schema.RoleType{schema.System, schema.User, schema.Assistant, schema.Tool} {
		tp.add("r", &recorder.Message{Message: &schema.Message{Role: role, ToolCallID: "c0",
			UserInputMultiContent: []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: "as " + string(role)}}}})
	}
	return tp.end("r")
}

// failedCallTape is a run whose only model call failed: a request with no
// response.
func failedCallTape() *tape {
	tp := newTape().start("r", "", "a", "").user("r", "hi").model("r", "gpt-x")
	return tp.add("r", &recorder.RunEnded{Outcome: recorder.OutcomeError, Error: "model call failed: 500"})
}

func TestRoundTripRecordsToATIFAndBack(t *testing.T) {
	tapes := map[string]*tape{
		"parallel calls":                parallelTape(),
		"subagents":                     subagentTape(),
		"details":                       detailTape(),
		"children started out of order": crossedTape(),
		"parts in every role":           partsTape(),
		"a model call that failed":      failedCallTape(),
		"a first call that failed":      newTape().start("r", "", "a", "").model("r", "gpt-a").model("r", "gpt-b").reply("r", "ok", 1, 1).end("r"),
	}
	for name, tp := range tapes {
		t.Run(name, func(t *testing.T) { roundTrip(t, tp.records) })
	}
}

// roundTrip exports records to ATIF, imports the document back and
// exports the result again, fails the test if the two documents differ,
// and returns the first.
func roundTrip(t *testing.T, records []recorder.Record) []byte {
	t.Helper()
	first := export(t, records, nil)
	back, err := ToRecords(first)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := Encode(first)
	b, _ := Encode(export(t, back, nil))
	if string(a) != string(b) {
		t.Errorf("records → ATIF → records → ATIF changed the document:\nfirst:\n%s\nsecond:\n%s", a, b)
	}
	return a
}

func TestToRecordsBuildsRunsLikeTheRecorder(t *testing.T) {
	tr := export(t, subagentTape().records, nil)
	records, err := ToRecords(tr)
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]uint64{}
	depth := map[string]int{}
	parent := map[string]string{}
	started := map[string]*recorder.RunStarted{}
	ended := map[string]bool{}
	for _, r := range records {
		if r.Seq != next[r.RunID] {
			t.Errorf("run %s: seq %d, want %d", r.RunID, r.Seq, next[r.RunID])
		}
		next[r.RunID]++
		depth[r.RunID], parent[r.RunID] = r.Depth, r.ParentRunID
		if r.SchemaVersion != recorder.SchemaVersion {
			t.Errorf("schema version %d", r.SchemaVersion)
		}
		switch p := r.Payload.(type) {
		case *recorder.RunStarted:
			if r.Seq != 0 {
				t.Errorf("run %s starts at seq %d", r.RunID, r.Seq)
			}
			started[r.RunID] = p
		case *recorder.RunEnded:
			ended[r.RunID] = true
		}
	}
	wantParent := map[string]string{"root": "", "early": "root", "child": "root", "grandchild": "child", "writer": "root"}
	wantDepth := map[string]int{"root": 0, "early": 1, "child": 1, "grandchild": 2, "writer": 1}
	for run, p := range wantParent {
		if parent[run] != p || depth[run] != wantDepth[run] || !ended[run] {
			t.Errorf("run %s: parent %q depth %d ended %v", run, parent[run], depth[run], ended[run])
		}
	}
	if got := started["child"]; got.ParentToolCallID != "c1" || got.Metadata != nil {
		t.Errorf("child run_started parent call %q, metadata %v; want the parent's call c1 and no metadata", got.ParentToolCallID, got.Metadata)
	}
	if got := started["writer"]; got.ParentToolCallID != "" || residueOf(got.Extra, trajectoryKey)[uncalledKey] != true {
		t.Errorf("writer parent call %q, extras %v; want none, marked as not started by a call", got.ParentToolCallID, got.Extra)
	}
}

func TestToRecordsImportsEveryFixture(t *testing.T) {
	for _, file := range fixtureFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			_, tr := readFixture(t, file)
			records, err := ToRecords(tr)
			if err != nil {
				t.Fatal(err)
			}
			again := export(t, records, nil)
			if len(again.Steps) == 0 {
				t.Fatal("no steps")
			}
		})
	}
}

func TestToRecordsKeepsToolCallsAndResults(t *testing.T) {
	_, tr := readFixture(t, filepath.Join(fixtureDir(t), "rfc-0001-section-IV-example.json"))
	records, err := ToRecords(tr)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []recorder.Kind
	var ended []string
	for _, r := range records {
		kinds = append(kinds, r.Kind())
		if e, ok := r.Payload.(*recorder.ToolEnded); ok {
			ended = append(ended, e.CallID+"="+e.Result)
		}
		if m, ok := r.Payload.(*recorder.ModelResponse); ok && len(m.Message.ToolCalls) == 2 {
			if args := m.Message.ToolCalls[0].Function.Arguments; args != `{ "ticker": "GOOGL", "metric": "price" }` && args != `{"ticker":"GOOGL","metric":"price"}` {
				t.Errorf("arguments = %s", args)
			}
			if m.Usage.PromptTokens != 520 || m.Usage.CachedTokens != 200 || !m.UsageReported {
				t.Errorf("usage = %+v", m.Usage)
			}
		}
	}
	want := []recorder.Kind{"run_started", "message", "model_request", "model_response", "tool_started", "tool_started",
		"tool_ended", "tool_ended", "model_request", "model_response", "run_ended"}
	if !equalKinds(kinds, want) {
		t.Errorf("kinds = %v, want %v", kinds, want)
	}
	wantEnded := []string{"call_price_1=GOOGL is currently trading at $185.35 (Close: 10/11/2025)", "call_volume_2=GOOGL volume: 1.5M shares traded."}
	if len(ended) != 2 || ended[0] != wantEnded[0] || ended[1] != wantEnded[1] {
		t.Errorf("tool results = %q", ended)
	}
	if records[0].RunID != "025B810F-B3A2-4C67-93C0-FE7A142A947A" {
		t.Errorf("run id = %q, want the session_id", records[0].RunID)
	}
	if want := time.Date(2025, 10, 11, 10, 30, 2, 0, time.UTC); !records[3].RecordedAt.Equal(want) {
		t.Errorf("model_response time = %v, want the step timestamp", records[3].RecordedAt)
	}
}

func equalKinds(a, b []recorder.Kind) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestToRecordsAddsSubagentsNoStepRefersTo(t *testing.T) {
	tr := &Trajectory{
		SchemaVersion: Version, SessionID: "root", Agent: Agent{Name: "p", Version: "1"},
		Steps: []Step{{StepID: 1, Source: SourceUser, Message: Text("hi")}},
		SubagentTrajectories: []Trajectory{
			{TrajectoryID: "lonely", Agent: Agent{Name: "c", Version: "1"}, Steps: []Step{{StepID: 1, Source: SourceAgent, Message: Text("x")}}},
			{TrajectoryID: "lonely", Agent: Agent{Name: "dup", Version: "1"}, Steps: []Step{{StepID: 1, Source: SourceAgent, Message: Text("y")}}},
		},
	}
	records, err := ToRecords(tr)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]string{}
	for _, r := range records {
		if s, ok := r.Payload.(*recorder.RunStarted); ok {
			runs[r.RunID] = r.ParentRunID + "/" + s.AgentName
		}
	}
	if len(runs) != 2 || runs["lonely"] != "root/c" {
		t.Errorf("runs = %v, want root and one child lonely", runs)
	}
}

func TestToRecordsRejectsNil(t *testing.T) {
	if _, err := ToRecords(nil); err == nil {
		t.Error("nil trajectory accepted")
	}
}

func TestToRecordsKeepsWhatTheRoundTripNeeds(t *testing.T) {
	doc := roundTrip(t, failedCallTape().records)
	tr, err := Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Agent.ModelName != "gpt-x" {
		t.Errorf("agent.model_name = %q, want the model of the failed call", tr.Agent.ModelName)
	}

	doc = roundTrip(t, partsTape().records)
	if tr, err = Decode(doc); err != nil {
		t.Fatal(err)
	}
	back, err := ToRecords(tr)
	if err != nil {
		t.Fatal(err)
	}
	var roles []schema.RoleType
	for _, r := range back {
		if m, ok := r.Payload.(*recorder.Message); ok {
			if len(m.Message.UserInputMultiContent) != 1 || m.Message.Content != "" {
				t.Errorf("%s message imported as %+v, want its parts", m.Message.Role, m.Message)
			}
			roles = append(roles, m.Message.Role)
		}
	}
	if len(roles) != 4 {
		t.Errorf("imported messages of roles %v, want system, user, assistant and tool", roles)
	}
}

// TestToRecordsReadsEveryTimestampValidateAccepts imports steps whose
// timestamps use the forms Python's fromisoformat reads besides RFC 3339:
// no offset (UTC), a space, compact and week dates, a comma fraction, a
// date alone.
func TestToRecordsReadsEveryTimestampValidateAccepts(t *testing.T) {
	stamps := map[string]time.Time{
		"2025-10-11T10:30:00":           time.Date(2025, 10, 11, 10, 30, 0, 0, time.UTC),
		"2025-10-11 10:30:01.5":         time.Date(2025, 10, 11, 10, 30, 1, 5e8, time.UTC),
		"20251011T103002":               time.Date(2025, 10, 11, 10, 30, 2, 0, time.UTC),
		"2025-W41-6T10:30:03":           time.Date(2025, 10, 11, 10, 30, 3, 0, time.UTC),
		"2020-W53-5":                    time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC),
		"2025-10-11T12:30:04+02:00":     time.Date(2025, 10, 11, 10, 30, 4, 0, time.UTC),
		"2025-10-11T05:00:05-0530":      time.Date(2025, 10, 11, 10, 30, 5, 0, time.UTC),
		"2025-10-11T10:30:06,25Z":       time.Date(2025, 10, 11, 10, 30, 6, 25e7, time.UTC),
		"2025-10-11T10:30:07.123456789": time.Date(2025, 10, 11, 10, 30, 7, 123456789, time.UTC),
		"2025-10-11T10":                 time.Date(2025, 10, 11, 10, 0, 0, 0, time.UTC),
		"2025-10-11":                    time.Date(2025, 10, 11, 0, 0, 0, 0, time.UTC),
	}
	for stamp, want := range stamps {
		doc := `{"schema_version":"ATIF-v1.6","session_id":"s","agent":{"name":"a","version":"1"},` +
			`"steps":[{"step_id":1,"timestamp":"` + stamp + `","source":"user","message":"hi"}]}`
		records := importValid(t, doc)
		for _, r := range records {
			if !r.RecordedAt.Equal(want) {
				t.Errorf("%s: %s record at %v, want %v", stamp, r.Kind(), r.RecordedAt, want)
			}
		}
	}
}

// importValid checks that doc is a valid ATIF document and imports it.
func importValid(t *testing.T, doc string) []recorder.Record {
	t.Helper()
	if problems := Validate([]byte(doc)); problems != nil {
		t.Fatal(problems)
	}
	tr, err := Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	records, err := ToRecords(tr)
	if err != nil {
		t.Fatal(err)
	}
	return records
}
