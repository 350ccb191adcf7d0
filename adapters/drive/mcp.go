package drive

import (
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
)

// mcpSource returns where tool name comes from: the Extra of its info
// among the tools the run last offered, or else Config.MCPTools. The zero
// lookout.MCPSource means no MCP server. The tool's MCP name defaults to its own.
func (r *Run) mcpSource(name string) lookout.MCPSource {
	var src lookout.MCPSource
	s := &r.trace.tools
	s.mu.Lock()
	var infos []*schema.ToolInfo
	if s.set != nil {
		infos = s.set.infos
	}
	for _, info := range infos {
		if info != nil && info.Name == name {
			src = mcpOfInfo(info)
			break
		}
	}
	s.mu.Unlock()
	if src.Server == "" {
		src = r.cfg.MCPTools[name]
	}
	if src.Server != "" && src.Tool == "" {
		src.Tool = name
	}
	return src
}

// mcpOfInfo reads the MCP source from a tool's info: Lookout's keys, or
// else eino-ext's.
func mcpOfInfo(info *schema.ToolInfo) lookout.MCPSource {
	if len(info.Extra) == 0 {
		return lookout.MCPSource{}
	}
	server, _ := info.Extra[lookout.MCPServerKey].(string)
	tool, _ := info.Extra[lookout.MCPToolKey].(string)
	if server == "" {
		server, _ = info.Extra[lookout.EinoExtMCPServerKey].(string)
		tool, _ = info.Extra[lookout.EinoExtMCPToolKey].(string)
	}
	return lookout.MCPSource{Server: server, Tool: tool}
}
