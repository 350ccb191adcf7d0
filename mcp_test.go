package lookout

import (
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
)

func TestMCPSourceReadsLookoutsAndEinoExtsKeysAndTheConfig(t *testing.T) {
	r := &Run{cfg: &Config{MCPTools: map[string]MCPSource{"by_hand": {Server: "local"}}}}
	r.trace.tools.infos = []*schema.ToolInfo{
		{Name: "ours", Extra: map[string]any{MCPServerKey: "weather", MCPToolKey: "forecast"}},
		{Name: "einoext", Extra: map[string]any{EinoExtMCPServerKey: "files", EinoExtMCPToolKey: "read"}},
		{Name: "plain"},
	}
	assert.Equal(t, MCPSource{Server: "weather", Tool: "forecast"}, r.mcpSource("ours"))
	assert.Equal(t, MCPSource{Server: "files", Tool: "read"}, r.mcpSource("einoext"))
	assert.Equal(t, MCPSource{Server: "local", Tool: "by_hand"}, r.mcpSource("by_hand"), "the tool's own name by default")
	assert.Equal(t, MCPSource{}, r.mcpSource("plain"))
}
