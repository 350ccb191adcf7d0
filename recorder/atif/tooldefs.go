package atif

import (
	"bytes"
	"encoding/json"

	"github.com/lookout-go/lookout/recorder"
)

// toolSet gathers the tool definitions a run recorded: every name once,
// in the order first seen, with the last definition recorded for it.
type toolSet struct {
	defs  []recorder.ToolDefinition
	index map[string]int
}

func (s *toolSet) add(defs []recorder.ToolDefinition) {
	for _, d := range defs {
		if i, ok := s.index[d.Name]; ok {
			s.defs[i] = d
			continue
		}
		if s.index == nil {
			s.index = map[string]int{}
		}
		s.index[d.Name] = len(s.defs)
		s.defs = append(s.defs, d)
	}
}

// toolDefinitions writes recorded definitions in the OpenAI shape ATIF
// uses: {"type":"function","function":{"name","description","parameters"}},
// without a description or parameters the tool did not have.
func (x *exporter) toolDefinitions(defs []recorder.ToolDefinition) []map[string]any {
	if len(defs) == 0 {
		return nil
	}
	out := make([]map[string]any, len(defs))
	for i, d := range defs {
		fn := map[string]any{"name": d.Name}
		if d.Description != "" {
			fn["description"] = x.redact(d.Description)
		}
		if len(d.Parameters) > 0 {
			fn["parameters"] = x.parameters(d.Parameters)
		}
		out[i] = map[string]any{"type": "function", "function": fn}
	}
	return out
}

// parameters is a recorded parameter schema, redacted, as a JSON value.
// Text that is not JSON (or stops being JSON once redacted) is kept as a
// JSON string, so the document still encodes.
func (x *exporter) parameters(raw json.RawMessage) any {
	text := x.redact(string(raw))
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(text)); err != nil {
		return text
	}
	return json.RawMessage(buf.Bytes())
}
