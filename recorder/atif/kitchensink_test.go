package atif

import (
	"os"
	"path/filepath"
	"testing"
)

// kitchenSink sets every field ATIF-v1.8 defines, most of them in forms
// records have no field for.
const kitchenSink = `{
  "schema_version": "ATIF-v1.8",
  "session_id": "s-1",
  "trajectory_id": "t-root",
  "agent": {"name": "sink", "version": "9.9", "model_name": "m-1",
    "tool_definitions": [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}, "strict": true}}],
    "extra": {"temperature": 0.5}},
  "notes": "all of it",
  "continued_trajectory_ref": "t.cont-1.json",
  "extra": {"job": "j-7"},
  "final_metrics": {"total_prompt_tokens": 999, "total_completion_tokens": 1, "total_cached_tokens": 7, "total_cost_usd": 1.25, "total_steps": 42, "extra": {"k": "v"}},
  "steps": [
    {"step_id": 1, "timestamp": "2026-01-02T03:04:05+01:00", "source": "system", "message": "sys",
      "observation": {"results": [{"content": "env ready", "extra": {"probe": 1}}]}, "extra": {"x": 1}},
    {"step_id": 2, "timestamp": "2026-01-02", "source": "user", "is_copied_context": true,
      "message": [{"type": "text", "text": "hear this"}, {"type": "audio", "source": {"media_type": "audio/wav", "path": "https://example.com/a.wav", "duration_sec": 1.5}}]},
    {"step_id": 3, "source": "agent", "model_name": "m-2", "reasoning_effort": 0.7, "message": "calling",
      "reasoning_content": "because", "llm_call_count": 3,
      "tool_calls": [{"tool_call_id": "c1", "function_name": "f", "arguments": {"a": 1}, "extra": {"mcp_server": "s"}},
                     {"tool_call_id": "c2", "function_name": "f", "arguments": {}}],
      "observation": {"results": [
        {"source_call_id": "c2", "content": [{"type": "text", "text": "see"}, {"type": "image", "source": {"media_type": "image/png", "path": "https://example.com/i.png"}}], "extra": {"r": true}},
        {"source_call_id": "c1", "subagent_trajectory_ref": [{"trajectory_path": "sub.json", "session_id": "s-sub", "extra": {"why": "summary"}}]},
        {"content": "batched"}]},
      "metrics": {"prompt_tokens": 10, "completion_tokens": 5, "cached_tokens": 0, "cost_usd": 0.01,
        "prompt_token_ids": [1, 2], "completion_token_ids": [3], "logprobs": [-0.5], "extra": {"reasoning_tokens": 2, "other": "o"}},
      "extra": {"context_management": {"type": "compaction", "boundary": "replace"}}},
    {"step_id": 4, "source": "agent", "message": "deterministic", "llm_call_count": 0,
      "tool_calls": [{"tool_call_id": "c3", "function_name": "f", "arguments": {}}]},
    {"step_id": 5, "source": "agent", "model_name": "m-1", "reasoning_effort": "high", "message": "done", "is_copied_context": true,
      "metrics": {"prompt_tokens": 1}}
  ]
}`

func TestEveryATIFFieldSurvivesImportAndExport(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sink.json")
	if err := os.WriteFile(file, []byte(kitchenSink), 0o600); err != nil {
		t.Fatal(err)
	}
	if problems, err := ValidateFile(file, nil); err != nil || problems != nil {
		t.Fatalf("the document is not valid: %v %v", err, problems)
	}
	for _, viaJSONL := range []bool{false, true} {
		if losses := roundTripLosses(t, file, viaJSONL); losses != nil {
			t.Errorf("through JSON Lines %v: %d fields lost or changed:\n%v", viaJSONL, len(losses), losses)
		}
	}
}
