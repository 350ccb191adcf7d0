package atif

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateAcceptsEveryFixture(t *testing.T) {
	for _, file := range fixtureFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			problems, err := ValidateFile(file, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("unexpected problem: %s", p)
			}
		})
	}
}

// minimalDoc is a small valid document that the table tests break one
// rule at a time.
const minimalDoc = `{
  "schema_version": "ATIF-v1.8",
  "session_id": "run-1",
  "agent": {"name": "lookout", "version": "1.0.0"},
  "steps": [
    {"step_id": 1, "timestamp": "2025-10-11T10:30:00Z", "source": "user", "message": "hi"},
    {"step_id": 2, "source": "agent", "message": "looking",
     "tool_calls": [{"tool_call_id": "c1", "function_name": "search", "arguments": {"q": "x"}}],
     "observation": {"results": [{"source_call_id": "c1", "content": "found"}]},
     "metrics": {"prompt_tokens": 10, "completion_tokens": 2}}
  ]
}`

func parseMinimal(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(minimalDoc), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// at walks a document by keys and indexes: at(doc, "steps", 1, "tool_calls", 0).
func at(doc any, path ...any) map[string]any {
	cur := doc
	for _, p := range path {
		switch k := p.(type) {
		case string:
			cur = cur.(map[string]any)[k]
		case int:
			cur = cur.([]any)[k]
		}
	}
	return cur.(map[string]any)
}

func raw(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

func subagent(id string) map[string]any {
	sub := raw(`{"schema_version":"ATIF-v1.8","agent":{"name":"child","version":"1"},
		"steps":[{"step_id":1,"source":"agent","message":"done"}]}`).(map[string]any)
	if id != "" {
		sub["trajectory_id"] = id
	}
	return sub
}

func TestValidateMinimalDocIsValid(t *testing.T) {
	if problems := Validate([]byte(minimalDoc)); problems != nil {
		t.Fatalf("minimal document rejected: %v", problems)
	}
}

func TestValidateRejectsEachRule(t *testing.T) {
	message := func(d map[string]any) map[string]any { return at(d, "steps", 0) }
	agentStep := func(d map[string]any) map[string]any { return at(d, "steps", 1) }
	result := func(d map[string]any) map[string]any { return at(d, "steps", 1, "observation", "results", 0) }
	setParts := func(parts string) func(map[string]any) {
		return func(d map[string]any) { message(d)["message"] = raw(parts) }
	}
	tests := []struct {
		name   string
		mutate func(map[string]any)
		rule   Rule
		path   string
	}{
		{"an unknown root key", func(d map[string]any) { d["bogus"] = 1 }, RuleUnknownField, "bogus"},
		{"an unknown key on a tool call", func(d map[string]any) { at(d, "steps", 1, "tool_calls", 0)["mcp_server"] = "x" }, RuleUnknownField, "steps[1].tool_calls[0].mcp_server"},
		{"a metrics extension outside extra", func(d map[string]any) { at(d, "steps", 1, "metrics")["duration_ms"] = 5 }, RuleUnknownField, "steps[1].metrics.duration_ms"},
		{"an unknown key on an observation result", func(d map[string]any) { result(d)["error"] = "boom" }, RuleUnknownField, "steps[1].observation.results[0].error"},
		{"a missing agent", func(d map[string]any) { delete(d, "agent") }, RuleMissingField, "agent"},
		{"a missing agent version", func(d map[string]any) { delete(at(d, "agent"), "version") }, RuleMissingField, "agent.version"},
		{"a missing message", func(d map[string]any) { delete(message(d), "message") }, RuleMissingField, "steps[0].message"},
		{"a missing source", func(d map[string]any) { delete(message(d), "source") }, RuleMissingField, "steps[0].source"},
		{"tool call arguments missing", func(d map[string]any) { delete(at(d, "steps", 1, "tool_calls", 0), "arguments") }, RuleMissingField, "steps[1].tool_calls[0].arguments"},
		{"an observation without results", func(d map[string]any) { agentStep(d)["observation"] = map[string]any{} }, RuleMissingField, "steps[1].observation.results"},
		{"missing steps", func(d map[string]any) { delete(d, "steps") }, RuleMissingField, "steps"},
		{"a string step_id", func(d map[string]any) { message(d)["step_id"] = "1" }, RuleType, "steps[0].step_id"},
		{"a fractional step_id", func(d map[string]any) { message(d)["step_id"] = 1.5 }, RuleType, "steps[0].step_id"},
		{"a numeric message", func(d map[string]any) { message(d)["message"] = 3 }, RuleType, "steps[0].message"},
		{"a null message", func(d map[string]any) { message(d)["message"] = nil }, RuleType, "steps[0].message"},
		{"string arguments", func(d map[string]any) { at(d, "steps", 1, "tool_calls", 0)["arguments"] = `{"q":"x"}` }, RuleType, "steps[1].tool_calls[0].arguments"},
		{"a numeric session_id", func(d map[string]any) { d["session_id"] = 7 }, RuleType, "session_id"},
		{"a list extra", func(d map[string]any) { d["extra"] = []any{} }, RuleType, "extra"},
		{"a string is_copied_context", func(d map[string]any) { message(d)["is_copied_context"] = "yes" }, RuleType, "steps[0].is_copied_context"},
		{"a string logprob", func(d map[string]any) { at(d, "steps", 1, "metrics")["logprobs"] = []any{-0.1, "x"} }, RuleType, "steps[1].metrics.logprobs[1]"},
		{"a boolean reasoning_effort", func(d map[string]any) { agentStep(d)["reasoning_effort"] = true }, RuleType, "steps[1].reasoning_effort"},
		{"a tool definition that is not an object", func(d map[string]any) { at(d, "agent")["tool_definitions"] = []any{"search"} }, RuleType, "agent.tool_definitions[0]"},
		{"numeric observation content", func(d map[string]any) { result(d)["content"] = 42 }, RuleType, "steps[1].observation.results[0].content"},
		{"a step that is not an object", func(d map[string]any) { d["steps"].([]any)[0] = "hi" }, RuleType, "steps[0]"},
		{"empty steps", func(d map[string]any) { d["steps"] = []any{} }, RuleEmptySteps, "steps"},
		{"step ids out of order", func(d map[string]any) { message(d)["step_id"] = 2; agentStep(d)["step_id"] = 1 }, RuleStepOrder, "steps[0].step_id"},
		{"a gap in step ids", func(d map[string]any) { agentStep(d)["step_id"] = 3 }, RuleStepOrder, "steps[1].step_id"},
		{"a step_id of 0", func(d map[string]any) { message(d)["step_id"] = 0 }, RuleMinimum, "steps[0].step_id"},
		{"model_name on a user step", func(d map[string]any) { message(d)["model_name"] = "gpt" }, RuleAgentOnly, "steps[0].model_name"},
		{"reasoning_effort on a user step", func(d map[string]any) { message(d)["reasoning_effort"] = "low" }, RuleAgentOnly, "steps[0].reasoning_effort"},
		{"reasoning_content on a system step", func(d map[string]any) {
			message(d)["source"] = "system"
			message(d)["reasoning_content"] = "hm"
		}, RuleAgentOnly, "steps[0].reasoning_content"},
		{"tool_calls on a user step", func(d map[string]any) { message(d)["tool_calls"] = []any{} }, RuleAgentOnly, "steps[0].tool_calls"},
		{"metrics on a user step", func(d map[string]any) { message(d)["metrics"] = map[string]any{} }, RuleAgentOnly, "steps[0].metrics"},
		{"a timestamp that is not ISO 8601", func(d map[string]any) { message(d)["timestamp"] = "yesterday" }, RuleTimestamp, "steps[0].timestamp"},
		{"an impossible date", func(d map[string]any) { message(d)["timestamp"] = "2025-02-30T10:00:00Z" }, RuleTimestamp, "steps[0].timestamp"},
		{"a source_call_id with no matching call", func(d map[string]any) { result(d)["source_call_id"] = "c9" }, RuleSourceCallID, "steps[1].observation.results[0].source_call_id"},
		{"a source_call_id from another step", func(d map[string]any) {
			steps := d["steps"].([]any)
			third := raw(`{"step_id":3,"source":"agent","message":"","observation":{"results":[{"source_call_id":"c1"}]}}`)
			d["steps"] = append(steps, third)
		}, RuleSourceCallID, "steps[2].observation.results[0].source_call_id"},
		{"a session_id-only subagent ref", func(d map[string]any) {
			result(d)["subagent_trajectory_ref"] = raw(`[{"session_id":"child"}]`)
		}, RuleUnresolvableRef, "steps[1].observation.results[0].subagent_trajectory_ref[0]"},
		{"a step that gives two calls one tool_call_id", func(d map[string]any) {
			calls := agentStep(d)["tool_calls"].([]any)
			agentStep(d)["tool_calls"] = append(calls, calls[0])
		}, RuleDuplicateCallID, "steps[1].tool_calls[1].tool_call_id"},
		{"an embedded ref with no matching entry", func(d map[string]any) {
			result(d)["subagent_trajectory_ref"] = raw(`[{"trajectory_id":"nowhere"}]`)
		}, RuleUnresolvableRef, "steps[1].observation.results[0].subagent_trajectory_ref[0].trajectory_id"},
		{"a subagent ref with blank ids", func(d map[string]any) {
			result(d)["subagent_trajectory_ref"] = raw(`[{"trajectory_id":"  ","trajectory_path":"\t"}]`)
		}, RuleUnresolvableRef, "steps[1].observation.results[0].subagent_trajectory_ref[0]"},
		{"a ref in a subagent to an entry of the root only", func(d map[string]any) {
			inner := subagent("b")
			at(inner, "steps", 0)["observation"] = raw(`{"results":[{"subagent_trajectory_ref":[{"trajectory_id":"a"}]}]}`)
			d["subagent_trajectories"] = []any{subagent("a"), inner}
		}, RuleUnresolvableRef, "subagent_trajectories[1].steps[0].observation.results[0].subagent_trajectory_ref[0].trajectory_id"},
		{"an embedded subagent with a blank trajectory_id", func(d map[string]any) {
			sub := subagent("")
			sub["trajectory_id"] = " "
			d["subagent_trajectories"] = []any{sub}
		}, RuleSubagentID, "subagent_trajectories[0].trajectory_id"},
		{"a subagent ref with empty ids", func(d map[string]any) {
			result(d)["subagent_trajectory_ref"] = raw(`[{"trajectory_id":"","trajectory_path":""}]`)
		}, RuleUnresolvableRef, "steps[1].observation.results[0].subagent_trajectory_ref[0]"},
		{"an embedded subagent without trajectory_id", func(d map[string]any) { d["subagent_trajectories"] = []any{subagent("")} }, RuleSubagentID, "subagent_trajectories[0].trajectory_id"},
		{"an embedded subagent with an empty trajectory_id", func(d map[string]any) {
			sub := subagent("")
			sub["trajectory_id"] = ""
			d["subagent_trajectories"] = []any{sub}
		}, RuleSubagentID, "subagent_trajectories[0].trajectory_id"},
		{"two embedded subagents with one trajectory_id", func(d map[string]any) {
			d["subagent_trajectories"] = []any{subagent("a"), subagent("a")}
		}, RuleDuplicateSubagent, "subagent_trajectories[1].trajectory_id"},
		{"a broken rule inside an embedded subagent", func(d map[string]any) {
			sub := subagent("a")
			at(sub, "steps", 0)["step_id"] = 2
			d["subagent_trajectories"] = []any{sub}
		}, RuleStepOrder, "subagent_trajectories[0].steps[0].step_id"},
		{"llm_call_count 0 with metrics", func(d map[string]any) { agentStep(d)["llm_call_count"] = 0 }, RuleDeterministicStep, "steps[1].metrics"},
		{"llm_call_count 0 with reasoning_content", func(d map[string]any) {
			delete(agentStep(d), "metrics")
			agentStep(d)["llm_call_count"] = 0
			agentStep(d)["reasoning_content"] = "thinking"
		}, RuleDeterministicStep, "steps[1].reasoning_content"},
		{"a negative llm_call_count", func(d map[string]any) { agentStep(d)["llm_call_count"] = -1 }, RuleMinimum, "steps[1].llm_call_count"},
		{"a negative total_steps", func(d map[string]any) { d["final_metrics"] = raw(`{"total_steps":-1}`) }, RuleMinimum, "final_metrics.total_steps"},
		{"an unknown schema_version", func(d map[string]any) { d["schema_version"] = "ATIF-v2.0" }, RuleSchemaVersion, "schema_version"},
		{"an unknown source", func(d map[string]any) { message(d)["source"] = "robot" }, RuleEnum, "steps[0].source"},
		{"an unknown content part type", setParts(`[{"type":"video","source":{"media_type":"video/mp4","path":"v.mp4"}}]`), RuleEnum, "steps[0].message[0].type"},
		{"an unsupported image media type", setParts(`[{"type":"image","source":{"media_type":"image/bmp","path":"a.bmp"}}]`), RuleEnum, "steps[0].message[0].source.media_type"},
		{"an unsupported audio media type", setParts(`[{"type":"audio","source":{"media_type":"audio/midi","path":"a.mid"}}]`), RuleEnum, "steps[0].message[0].source.media_type"},
		{"a text part without text", setParts(`[{"type":"text"}]`), RuleContentPart, "steps[0].message[0]"},
		{"a text part with a source", setParts(`[{"type":"text","text":"a","source":{"media_type":"image/png","path":"a.png"}}]`), RuleContentPart, "steps[0].message[0].source"},
		{"an image part without a source", setParts(`[{"type":"image"}]`), RuleContentPart, "steps[0].message[0]"},
		{"an image part with text", setParts(`[{"type":"image","text":"a","source":{"media_type":"image/png","path":"a.png"}}]`), RuleContentPart, "steps[0].message[0].text"},
		{"an image part with an audio source", setParts(`[{"type":"image","source":{"media_type":"audio/wav","path":"a.wav"}}]`), RuleContentPart, "steps[0].message[0].source.media_type"},
		{"an audio part with an image source", setParts(`[{"type":"audio","source":{"media_type":"image/png","path":"a.png"}}]`), RuleContentPart, "steps[0].message[0].source.media_type"},
		{"a content part in an observation", func(d map[string]any) { result(d)["content"] = raw(`[{"type":"image"}]`) }, RuleContentPart, "steps[1].observation.results[0].content[0]"},
		{"an image source with a duration", setParts(`[{"type":"image","source":{"media_type":"image/png","path":"a.png","duration_sec":1}}]`), RuleUnknownField, "steps[0].message[0].source.duration_sec"},
		{"a negative audio duration", setParts(`[{"type":"audio","source":{"media_type":"audio/wav","path":"a.wav","duration_sec":-1}}]`), RuleMinimum, "steps[0].message[0].source.duration_sec"},
		{"a media source without a path", setParts(`[{"type":"image","source":{"media_type":"image/png"}}]`), RuleMissingField, "steps[0].message[0].source.path"},
	}
	for _, tt := range tests {
		t.Run("rejects "+tt.name, func(t *testing.T) {
			doc := parseMinimal(t)
			tt.mutate(doc)
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			problems := Validate(data)
			for _, p := range problems {
				if p.Rule == tt.rule && p.Path == tt.path {
					return
				}
			}
			t.Errorf("want a %s problem at %q, got %v", tt.rule, tt.path, problems)
		})
	}
}

func TestValidateAcceptsWhatUpstreamAccepts(t *testing.T) {
	agentStep := func(d map[string]any) map[string]any { return at(d, "steps", 1) }
	tests := []struct {
		name   string
		mutate func(map[string]any)
	}{
		{"negative token counts", func(d map[string]any) { at(d, "steps", 1, "metrics")["prompt_tokens"] = -5 }},
		{"calls with no observation", func(d map[string]any) { delete(agentStep(d), "observation") }},
		{"an embedded ref that resolves", func(d map[string]any) {
			at(d, "steps", 1, "observation", "results", 0)["subagent_trajectory_ref"] = raw(`[{"trajectory_id":"a"}]`)
			d["subagent_trajectories"] = []any{subagent("a")}
		}},
		{"a file-form ref with a session_id", func(d map[string]any) {
			at(d, "steps", 1, "observation", "results", 0)["subagent_trajectory_ref"] = raw(`[{"session_id":"s","trajectory_path":"child.json"}]`)
		}},
		{"a result with no source_call_id", func(d map[string]any) { delete(at(d, "steps", 1, "observation", "results", 0), "source_call_id") }},
		{"an observation on a system step", func(d map[string]any) {
			at(d, "steps", 0)["source"] = "system"
			at(d, "steps", 0)["observation"] = raw(`{"results":[{"content":"booted"}]}`)
		}},
		{"a missing schema_version", func(d map[string]any) { delete(d, "schema_version") }},
		{"every older schema_version", func(d map[string]any) { d["schema_version"] = "ATIF-v1.0" }},
		{"null optional fields", func(d map[string]any) {
			d["notes"] = nil
			at(d, "steps", 0)["model_name"] = nil
			at(d, "steps", 0)["tool_calls"] = nil
		}},
		{"an empty message", func(d map[string]any) { at(d, "steps", 0)["message"] = "" }},
		{"a numeric reasoning_effort", func(d map[string]any) { agentStep(d)["reasoning_effort"] = 0.5 }},
		{"llm_call_count 0 without metrics", func(d map[string]any) {
			delete(agentStep(d), "metrics")
			agentStep(d)["llm_call_count"] = 0
		}},
		{"aggregated llm calls", func(d map[string]any) { agentStep(d)["llm_call_count"] = 3 }},
		{"an audio alias media type", func(d map[string]any) {
			at(d, "steps", 0)["message"] = raw(`[{"type":"audio","source":{"media_type":"Audio/MP3","path":"a.mp3","duration_sec":1.5}}]`)
		}},
		{"mixed text and image parts", func(d map[string]any) {
			at(d, "steps", 0)["message"] = raw(`[{"type":"text","text":""},{"type":"image","source":{"media_type":"image/webp","path":"https://example.com/a.webp"}}]`)
		}},
		{"unique embedded subagents", func(d map[string]any) { d["subagent_trajectories"] = []any{subagent("a"), subagent("b")} }},
		{"a space between date and time", func(d map[string]any) { at(d, "steps", 0)["timestamp"] = "2025-10-11 10:30:00.5+02:00" }},
	}
	for _, tt := range tests {
		t.Run("accepts "+tt.name, func(t *testing.T) {
			doc := parseMinimal(t)
			tt.mutate(doc)
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if problems := Validate(data); problems != nil {
				t.Errorf("unexpected problems: %v", problems)
			}
		})
	}
}

func TestValidateRejectsInputThatIsNotADocument(t *testing.T) {
	for _, input := range []string{"", "{", "[]", `"hi"`, "null", `{} {}`, `{}A`, `{}]`} {
		problems := Validate([]byte(input))
		if len(problems) != 1 || problems[0].Rule != RuleSyntax {
			t.Errorf("Validate(%q) = %v, want one syntax problem", input, problems)
		}
	}
}

func TestValidateFileChecksMediaRelativeToTheFile(t *testing.T) {
	dir := t.TempDir()
	doc := parseMinimal(t)
	at(doc, "steps", 0)["message"] = raw(`[
		{"type":"image","source":{"media_type":"image/png","path":"images/shot.png"}},
		{"type":"image","source":{"media_type":"image/png","path":"https://example.com/remote.png"}}]`)
	at(doc, "steps", 1, "observation", "results", 0)["content"] = raw(`[
		{"type":"audio","source":{"media_type":"audio/wav","path":"clip.wav"}}]`)
	data, _ := json.Marshal(doc)
	file := filepath.Join(dir, "trajectory.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}

	problems, err := ValidateFile(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Rule{}
	for _, p := range problems {
		got[p.Path] = p.Rule
	}
	want := map[string]Rule{
		"steps[0].message[0].source.path":                        RuleMediaMissing,
		"steps[1].observation.results[0].content[0].source.path": RuleMediaMissing,
	}
	if len(got) != len(want) {
		t.Fatalf("problems = %v, want missing image and audio only", problems)
	}
	for path, rule := range want {
		if got[path] != rule {
			t.Errorf("no %s problem at %s in %v", rule, path, problems)
		}
	}

	if problems, _ := ValidateFile(file, &FileOptions{SkipMedia: true}); problems != nil {
		t.Errorf("SkipMedia still reported %v", problems)
	}
	if problems := Validate(data); problems != nil {
		t.Errorf("Validate on bytes looked at the file system: %v", problems)
	}

	if err := os.MkdirAll(filepath.Join(dir, "images"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"images/shot.png", "clip.wav"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if problems, _ := ValidateFile(file, nil); problems != nil {
		t.Errorf("media present, still got %v", problems)
	}
}

func TestValidateFileReportsReadErrors(t *testing.T) {
	_, err := ValidateFile(filepath.Join(t.TempDir(), "missing.json"), nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want a not-exist error", err)
	}
}

func TestProblemsUnwrapToErrInvalid(t *testing.T) {
	problems := Validate([]byte(`{"agent":{"name":"a","version":"1"},"steps":[]}`))
	if len(problems) != 1 {
		t.Fatalf("problems = %v, want one", problems)
	}
	if !errors.Is(problems[0], ErrInvalid) {
		t.Error("Problem does not unwrap to ErrInvalid")
	}
	if got, want := problems[0].Error(), "atif: steps: a trajectory needs at least one step (empty_steps)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	err := error(&ValidationError{Problems: problems})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "empty_steps") {
		t.Errorf("ValidationError = %v, want it to unwrap to ErrInvalid and name the rule", err)
	}
}

func TestTrajectoryValidate(t *testing.T) {
	tr := &Trajectory{
		SchemaVersion: Version,
		Agent:         Agent{Name: "a", Version: "1"},
		Steps:         []Step{{StepID: 1, Source: SourceUser, Message: Text("hi"), ModelName: "gpt"}},
	}
	err := tr.Validate()
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Problems) != 1 || verr.Problems[0].Rule != RuleAgentOnly {
		t.Fatalf("Validate() = %v, want one agent_only problem", err)
	}
	tr.Steps[0].ModelName = ""
	if err := tr.Validate(); err != nil {
		t.Fatalf("Validate() = %v, want nil", err)
	}
}

func TestValidTimestamp(t *testing.T) {
	valid := []string{
		"2025-10-11T10:30:00Z", "2025-10-11T10:30:00+00:00", "2025-10-11T10:30:00.123456-05:30",
		"2025-10-11T10:30:00.123456789Z", "2025-10-11", "20251011", "2025-10-11T10", "2025-10-11T10:30",
		"2025-10-11 10:30:00", "20251011T103000", "2025-10-11T10:30:00,5", "2024-02-29T00:00:00Z",
		"2025-W41-6", "2025-W41-6T10:00", "2020-W53-1", "2025-10-11T10:30:00+0530", "2025-10-11T10:30:00+05",
	}
	invalid := []string{
		"", "yesterday", "2025-13-01", "2025-02-29", "2025-10-32", "2025-10-11T24:00:00",
		"2025-10-11T10:60", "2025-10-11T10:30:60", "2025-10-11T", "2025-10-11T10:30:00.",
		"2025-10-11T10.5", "2025-10", "0000-01-01", "2025-10-11T10:30:00+", "2025-10-11T10:30:00ZZ",
		"2025-W54-1", "2025-W53-1", "2025-W01-8", "2025-10-11T10:3", "2025-10-11T1030:00",
	}
	for _, s := range valid {
		if !validTimestamp(s) {
			t.Errorf("validTimestamp(%q) = false, want true", s)
		}
	}
	for _, s := range invalid {
		if validTimestamp(s) {
			t.Errorf("validTimestamp(%q) = true, want false", s)
		}
	}
}
