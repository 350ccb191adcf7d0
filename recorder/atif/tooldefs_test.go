package atif

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

var (
	searchDef = recorder.ToolDefinition{Name: "search", Description: "Search the <index>.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)}
	clockDef      = recorder.ToolDefinition{Name: "clock"}
	newerSearch   = recorder.ToolDefinition{Name: "search", Description: "Search the index, newest first."}
	writerOnlyDef = recorder.ToolDefinition{Name: "write", Description: "Write a file.", Parameters: json.RawMessage(`{"type":"object"}`)}
)

// request records a model request offering defs.
func (tp *tape) request(run, model string, defs ...recorder.ToolDefinition) *tape {
	req := &recorder.ModelRequest{Model: model, ToolDefinitions: defs}
	for _, d := range defs {
		req.Tools = append(req.Tools, d.Name)
	}
	return tp.add(run, req)
}

// toolsTape is a root run whose tool set changes (search is redefined and
// clock added), a child with tools of its own, and a child that recorded
// definitions without ever getting a reply.
func toolsTape() *tape {
	tp := newTape().start("root", "", "planner", "").user("root", "go").
		request("root", "gpt-4o", searchDef).
		reply("root", "", 5, 1, "c1", "writer", `{}`).
		toolStart("root", "c1", "writer", "")
	tp.start("writer", "root", "writer", "c1").
		request("writer", "", writerOnlyDef).reply("writer", "written", 3, 1).end("writer")
	tp.start("quiet", "root", "quiet", "c1").
		request("quiet", "small", clockDef).end("quiet")
	tp.toolEnd("root", "c1", "writer", "ok").
		request("root", "gpt-4o").
		reply("root", "", 5, 1, "c2", "search", `{"q":"x"}`).
		request("root", "gpt-4o", newerSearch, clockDef).
		reply("root", "done", 5, 1)
	return tp.end("root")
}

func definitionsJSON(t *testing.T, defs []map[string]any) string {
	t.Helper()
	b, err := marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFromRecordsWritesEachRunsToolDefinitions(t *testing.T) {
	tr := export(t, toolsTape().records, nil)

	want := `[{"function":{"description":"Search the index, newest first.","name":"search"},"type":"function"},` +
		`{"function":{"name":"clock"},"type":"function"}]`
	if got := definitionsJSON(t, tr.Agent.ToolDefinitions); got != want {
		t.Errorf("root tool_definitions:\n got %s\nwant %s", got, want)
	}
	subs := map[string]Trajectory{}
	for _, s := range tr.SubagentTrajectories {
		subs[s.TrajectoryID] = s
	}
	want = `[{"function":{"description":"Write a file.","name":"write","parameters":{"type":"object"}},"type":"function"}]`
	if got := definitionsJSON(t, subs["writer"].Agent.ToolDefinitions); got != want {
		t.Errorf("writer tool_definitions:\n got %s\nwant %s", got, want)
	}
	want = `[{"function":{"name":"clock"},"type":"function"}]`
	if got := definitionsJSON(t, subs["quiet"].Agent.ToolDefinitions); got != want {
		t.Errorf("quiet tool_definitions:\n got %s\nwant %s", got, want)
	}
}

func TestFromRecordsWritesParametersAsTheirSchema(t *testing.T) {
	tr := export(t, newTape().start("r", "", "a", "").request("r", "m", searchDef).reply("r", "hi", 1, 1).records, nil)
	want := `[{"function":{"description":"Search the <index>.","name":"search",` +
		`"parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}},"type":"function"}]`
	if got := definitionsJSON(t, tr.Agent.ToolDefinitions); got != want {
		t.Errorf("tool_definitions:\n got %s\nwant %s", got, want)
	}
}

func TestFromRecordsWithoutToolDefinitionsLeavesTheFieldOut(t *testing.T) {
	tr := export(t, parallelTape().records, nil)
	doc, err := Encode(tr)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(doc), "tool_definitions") {
		t.Errorf("a run that recorded only tool names exported definitions:\n%s", doc)
	}
}

func TestFromRecordsRedactsToolDefinitions(t *testing.T) {
	def := recorder.ToolDefinition{Name: "fetch", Description: "uses TOKEN", Parameters: json.RawMessage(`{"default":"TOKEN"}`)}
	breaking := recorder.ToolDefinition{Name: "odd", Parameters: json.RawMessage(`{"a":"BREAK"}`)}
	records := newTape().start("r", "", "a", "").request("r", "m", def, breaking).reply("r", "hi", 1, 1).records
	redactor := recorder.RedactFunc(func(s string) string {
		return strings.NewReplacer("TOKEN", "[X]", "BREAK", `"`).Replace(s)
	})
	tr := export(t, records, &Options{AgentVersion: "test", Redactor: redactor})
	want := `[{"function":{"description":"uses [X]","name":"fetch","parameters":{"default":"[X]"}},"type":"function"},` +
		`{"function":{"name":"odd","parameters":"{\"a\":\"\"\"}"},"type":"function"}]`
	if got := definitionsJSON(t, tr.Agent.ToolDefinitions); got != want {
		t.Errorf("tool_definitions:\n got %s\nwant %s", got, want)
	}
}

func TestToolDefinitionsRoundTripThroughATIF(t *testing.T) {
	a := roundTrip(t, toolsTape().records)
	if !strings.Contains(string(a), `"tool_definitions"`) {
		t.Fatal("the tape exported no tool definitions")
	}
}

func TestToRecordsPutsToolDefinitionsOnTheFirstModelRequest(t *testing.T) {
	tr := &Trajectory{
		SessionID: "s",
		Agent: Agent{Name: "a", Version: "1", ToolDefinitions: []map[string]any{
			{"type": "function", "function": map[string]any{"name": "ls", "description": "List.", "parameters": map[string]any{"type": "object"}}},
			{"type": "function", "function": map[string]any{"description": "no name"}},
			{"type": "function", "function": map[string]any{"name": "cat", "strict": true}},
		}},
		Steps: []Step{
			{StepID: 1, Source: SourceUser, Message: Text("hi")},
			{StepID: 2, Source: SourceAgent, Message: Text("one")},
			{StepID: 3, Source: SourceAgent, Message: Text("two")},
		},
	}
	records, err := ToRecords(tr)
	if err != nil {
		t.Fatal(err)
	}
	var reqs []*recorder.ModelRequest
	for _, r := range records {
		if req, ok := r.Payload.(*recorder.ModelRequest); ok {
			reqs = append(reqs, req)
		}
	}
	want := []*recorder.ModelRequest{{
		Tools: []string{"ls", "cat"},
		ToolDefinitions: []recorder.ToolDefinition{
			{Name: "ls", Description: "List.", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "cat"},
		},
	}}
	if !reflect.DeepEqual(reqs, want) {
		got, _ := json.Marshal(reqs)
		w, _ := json.Marshal(want)
		t.Errorf("model requests:\n got %s\nwant %s", got, w)
	}
}

func TestTheFixtureToolDefinitionsSurviveImportAndExport(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir(t), "hello-world.trajectory.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Agent struct {
			ToolDefinitions []json.RawMessage `json:"tool_definitions"`
		} `json:"agent"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Agent.ToolDefinitions) == 0 {
		t.Fatal("the fixture has no tool definitions")
	}
	tr, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	records, err := ToRecords(tr)
	if err != nil {
		t.Fatal(err)
	}
	again := export(t, records, nil)
	doc, err := Encode(again)
	if err != nil {
		t.Fatal(err)
	}
	if problems := Validate(doc); len(problems) > 0 {
		t.Fatalf("the export does not validate: %v", problems)
	}
	if len(again.Agent.ToolDefinitions) != len(raw.Agent.ToolDefinitions) {
		t.Fatalf("exported %d tool definitions, the fixture has %d", len(again.Agent.ToolDefinitions), len(raw.Agent.ToolDefinitions))
	}
	for i, want := range raw.Agent.ToolDefinitions {
		got, err := json.Marshal(again.Agent.ToolDefinitions[i])
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, got, want) {
			t.Errorf("tool_definitions[%d]:\n got %s\nwant %s", i, got, want)
		}
	}
}

// sameJSON reports whether a and b hold the same JSON value, whatever
// their key order and spacing.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(va, vb)
}
