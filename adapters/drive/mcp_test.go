package drive

import (
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"

	"github.com/lookout-go/lookout"
)

func TestMCPSourceReadsLookoutsAndEinoExtsKeysAndTheConfig(t *testing.T) {
	r := &Run{cfg: &lookout.Config{MCPTools: map[string]lookout.MCPSource{"by_hand": {Server: "local"}}}}
	r.trace.tools.set = &toolSet{infos: []*schema.ToolInfo{
		{Name: "ours", Extra: map[string]any{lookout.MCPServerKey: "weather", lookout.MCPToolKey: "forecast"}},
		{Name: "einoext", Extra: map[string]any{lookout.EinoExtMCPServerKey: "files", lookout.EinoExtMCPToolKey: "read"}},
		{Name: "plain"},
	}}
	assert.Equal(t, lookout.MCPSource{Server: "weather", Tool: "forecast"}, r.mcpSource("ours"))
	assert.Equal(t, lookout.MCPSource{Server: "files", Tool: "read"}, r.mcpSource("einoext"))
	assert.Equal(t, lookout.MCPSource{Server: "local", Tool: "by_hand"}, r.mcpSource("by_hand"), "the tool's own name by default")
	assert.Equal(t, lookout.MCPSource{}, r.mcpSource("plain"))
}
