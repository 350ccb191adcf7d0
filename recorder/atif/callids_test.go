package atif

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// refsByStep lists, for each step of steps, the subagent trajectory ids
// its results refer to, as "step N: id@call".
func refsByStep(steps []Step) []string {
	var out []string
	for _, s := range steps {
		if s.Observation == nil {
			continue
		}
		for _, r := range s.Observation.Results {
			for _, ref := range r.SubagentTrajectoryRef {
				out = append(out, "step "+itoa(s.StepID)+": "+ref.TrajectoryID+"@"+r.SourceCallID)
			}
		}
	}
	return out
}

// reusedIDsTape is a run whose model numbers its calls per turn, as many
// do: both turns call helper as call_0, and each call starts a child run.
func reusedIDsTape(named bool) *tape {
	call := ""
	if named {
		call = "call_0"
	}
	return newTape().start("root", "", "planner", "").
		user("root", "go").
		reply("root", "", 1, 1, "call_0", "helper", `{"n":1}`).
		toolStart("root", "call_0", "helper", "").
		start("kid1", "root", "helper", call).reply("kid1", "one", 1, 1).end("kid1").
		toolEnd("root", "call_0", "helper", "one").
		reply("root", "", 1, 1, "call_0", "helper", `{"n":2}`).
		toolStart("root", "call_0", "helper", "").
		start("kid2", "root", "helper", call).reply("kid2", "two", 1, 1).end("kid2").
		toolEnd("root", "call_0", "helper", "two").
		reply("root", "done", 1, 1).end("root")
}

func TestFromRecordsLinksEachChildToItsOwnTurnWhenCallIDsRepeat(t *testing.T) {
	for _, named := range []bool{true, false} {
		name := "by the running call"
		if named {
			name = "by the call named in the metadata"
		}
		t.Run(name, func(t *testing.T) {
			tr := export(t, reusedIDsTape(named).records, nil)
			got := refsByStep(tr.Steps)
			want := []string{"step 2: kid1@call_0", "step 3: kid2@call_0"}
			if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
				t.Errorf("refs = %q, want %q", got, want)
			}
			for i, text := range map[int]string{1: "one", 2: "two"} {
				r := tr.Steps[i].Observation.Results[0]
				if r.SourceCallID != "call_0" || r.Content == nil || r.Content.PlainText() != text {
					t.Errorf("step %d result = %+v, want %q for call_0", i+1, r, text)
				}
			}
		})
	}
}

func TestRoundTripKeepsChildrenOfRepeatedCallIDsInTheirTurns(t *testing.T) {
	roundTrip(t, reusedIDsTape(true).records)
}

func TestFromRecordsKeepsEveryResultOfCallsThatShareAnID(t *testing.T) {
	// Harbor rejects a step that names a tool_call_id twice: the second
	// call is renamed, neither result is lost, and the import gives the
	// recorded id back.
	tp := newTape().start("r", "", "a", "").
		reply("r", "", 1, 1, "dup", "fetch", `{"u":"a"}`, "dup", "fetch", `{"u":"b"}`).
		toolStart("r", "dup", "fetch", "").toolStart("r", "dup", "fetch", "").
		toolEnd("r", "dup", "fetch", "A").toolEnd("r", "dup", "fetch", "B").end("r")
	tr := export(t, tp.records, nil)
	if len(tr.Steps) != 1 || tr.Steps[0].Observation == nil {
		t.Fatalf("steps = %+v, want one agent step with both results", tr.Steps)
	}
	var got []string
	for _, r := range tr.Steps[0].Observation.Results {
		got = append(got, r.SourceCallID+"="+r.Content.PlainText())
	}
	if len(got) != 2 || got[0] != "dup=A" || got[1] != "dup#2=B" {
		t.Errorf("results = %q, want dup=A then dup#2=B", got)
	}
	data, err := Encode(tr)
	if err != nil {
		t.Fatal(err)
	}
	if problems := Validate(data); problems != nil {
		t.Errorf("the export is invalid: %v", problems)
	}
	var ended int
	back, err := ToRecords(tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range back {
		if e, ok := r.Payload.(*recorder.ToolEnded); ok {
			ended++
			if e.CallID != "dup" {
				t.Errorf("imported call id %q, want the recorded dup", e.CallID)
			}
		}
	}
	if ended != 2 {
		t.Errorf("imported %d tool_ended records, want 2", ended)
	}
}

func TestFromRecordsPairsCallsWithoutIDsByTheirTool(t *testing.T) {
	// Some providers leave tool call ids empty; results still belong to
	// the step that made the calls, in call order.
	tp := newTape().start("r", "", "a", "").
		reply("r", "", 1, 1, "", "search", `{"q":"x"}`, "", "fetch", `{"u":"y"}`).
		toolStart("r", "", "search", "").toolStart("r", "", "fetch", "").
		toolEnd("r", "", "fetch", "page").toolEnd("r", "", "search", "hits").
		reply("r", "done", 1, 1).end("r")
	tr := export(t, tp.records, nil)
	if len(tr.Steps) != 2 {
		t.Fatalf("got %d steps, want the agent step with both results and the answer", len(tr.Steps))
	}
	var got []string
	for _, r := range tr.Steps[0].Observation.Results {
		got = append(got, r.SourceCallID+"="+r.Content.PlainText())
	}
	if len(got) != 2 || got[0] != "=hits" || got[1] != "=page" {
		t.Errorf("results = %q, want hits (search) then page (fetch)", got)
	}
	roundTrip(t, tp.records)
}

// endedCalls lists the tool_ended records of records as "id/name=result",
// and the calls that started and never ended.
func endedCalls(records []recorder.Record) (ended, unfinished []string) {
	open := map[string]int{}
	var order []string
	for _, r := range records {
		switch p := r.Payload.(type) {
		case *recorder.ToolStarted:
			if open[p.CallID] == 0 {
				order = append(order, p.CallID)
			}
			open[p.CallID]++
		case *recorder.ToolEnded:
			ended = append(ended, p.CallID+"/"+p.Name+"="+p.Result)
			open[p.CallID]--
		}
	}
	for _, id := range order {
		if open[id] > 0 {
			unfinished = append(unfinished, id)
		}
	}
	return ended, unfinished
}

func TestToRecordsGivesBatchedOutputToTheCallsWithoutAResult(t *testing.T) {
	// Terminus 2 writes one result without source_call_id for the calls
	// of a step: the output of those calls, not a call of its own.
	step := func(id int, calls []string, results ...string) Step {
		s := Step{StepID: id, Source: SourceAgent, Message: Text("")}
		for _, c := range calls {
			s.ToolCalls = append(s.ToolCalls, ToolCall{ID: c, FunctionName: "bash_command", Arguments: []byte(`{}`)})
		}
		s.Observation = &Observation{}
		for _, r := range results {
			content := Text(r)
			s.Observation.Results = append(s.Observation.Results, ObservationResult{Content: &content})
		}
		return s
	}
	tr := &Trajectory{SchemaVersion: "ATIF-v1.5", SessionID: "s", Agent: Agent{Name: "terminus-2", Version: "1"}, Steps: []Step{
		step(1, []string{"a1"}, "one call"),
		step(2, []string{"b1", "b2"}, "first", "second"),
		step(3, []string{"c1", "c2"}, "screen after both"),
		step(4, nil, "no call made"),
	}}
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	records, err := ToRecords(tr)
	if err != nil {
		t.Fatal(err)
	}
	ended, unfinished := endedCalls(records)
	want := []string{
		"a1/bash_command=one call",
		"b1/bash_command=first", "b2/bash_command=second",
		"c2/bash_command=screen after both",
		"/=no call made",
	}
	if len(ended) != len(want) {
		t.Fatalf("tool_ended = %q, want %q", ended, want)
	}
	for i := range want {
		if ended[i] != want[i] {
			t.Errorf("tool_ended[%d] = %q, want %q", i, ended[i], want[i])
		}
	}
	if len(unfinished) != 1 || unfinished[0] != "c1" {
		t.Errorf("unfinished calls = %q, want only c1 (batched output is the last call's)", unfinished)
	}
}

func TestTheTerminusFixtureImportsEachCallWithItsOutput(t *testing.T) {
	_, tr := readFixture(t, filepath.Join(fixtureDir(t), "hello-world-context-summarization.trajectory.json"))
	records, err := ToRecords(tr)
	if err != nil {
		t.Fatal(err)
	}
	ended, unfinished := endedCalls(records)
	for _, e := range ended {
		if strings.HasPrefix(e, "/") {
			t.Errorf("tool_ended without a call: %q", e)
		}
	}
	if len(ended) != 7 || len(unfinished) != 0 {
		t.Errorf("%d calls ended, %q unfinished; want the 7 calls ended", len(ended), unfinished)
	}
	again := export(t, records, nil)
	if len(again.Steps) != len(tr.Steps) {
		t.Errorf("re-exported %d steps, want the fixture's %d", len(again.Steps), len(tr.Steps))
	}
}

func TestFromRecordsKeepsTheToolCallsOfAssistantMessagesFromHistory(t *testing.T) {
	// A conversation handed to a run carries earlier turns: the assistant
	// message's calls belong with it, as in the messages export.
	tp := newTape().start("r", "", "a", "").user("r", "and now?")
	tp.add("r", &recorder.Message{Message: schema.AssistantMessage("", []schema.ToolCall{
		{ID: "c0", Type: "function", Function: schema.FunctionCall{Name: "lookup", Arguments: `{"k":"v"}`}},
	})})
	tp.add("r", &recorder.Message{Message: schema.ToolMessage("found", "c0")})
	tp.reply("r", "done", 1, 1).end("r")
	tr := export(t, tp.records, nil)
	step := tr.Steps[1]
	if step.Source != SourceAgent || len(step.ToolCalls) != 1 || step.ToolCalls[0].ID != "c0" ||
		step.ToolCalls[0].FunctionName != "lookup" || string(step.ToolCalls[0].Arguments) != `{"k":"v"}` {
		t.Errorf("history step = %+v, want the assistant message with its call c0", step)
	}
	roundTrip(t, tp.records)
}
