package openaicheck_test

import (
	"encoding/json"
	"fmt"

	"github.com/lookout-go/lookout/internal/openaicheck"
)

func ExamplePairing() {
	var msgs []openaicheck.Message
	_ = json.Unmarshal([]byte(`[
		{"role":"user"},
		{"role":"assistant","tool_calls":[{"id":"c1"},{"id":"c2"}]},
		{"role":"tool","tool_call_id":"c1"},
		{"role":"tool"},
		{"role":"user"}]`), &msgs)
	for _, p := range openaicheck.Pairing(msgs) {
		fmt.Println(p)
	}
	// Output:
	// message 3: a tool message without tool_call_id
	// message 4: tool call "c2" is never answered
}
