package lookout

import "github.com/cloudwego/eino/schema"

// The keys of a tool's schema.ToolInfo.Extra under which an adapter of MCP
// tools to Eino names the MCP server that serves the tool and the tool's
// name on that server. Lookout records them with each call of the tool.
// It also reads the keys eino-ext's officialmcp adapter sets,
// EinoExtMCPServerKey and EinoExtMCPToolKey.
const (
	MCPServerKey        = "mcp_server"
	MCPToolKey          = "mcp_tool"
	EinoExtMCPServerKey = "mcp.server_name"
	EinoExtMCPToolKey   = "mcp.raw_tool_name"
)

// MCPSource names the MCP server that serves a tool and the tool's name
// there. It is a plain value and safe for concurrent use.
type MCPSource struct {
	Server string
	Tool   string
}

// mcpSource returns where tool name comes from: the Extra of its info
// among the tools the run last offered, or else Config.MCPTools. The zero
// MCPSource means no MCP server. The tool's MCP name defaults to its own.
func (r *Run) mcpSource(name string) MCPSource {
	var src MCPSource
	s := &r.trace.tools
	s.mu.Lock()
	for _, info := range s.infos {
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
func mcpOfInfo(info *schema.ToolInfo) MCPSource {
	if len(info.Extra) == 0 {
		return MCPSource{}
	}
	server, _ := info.Extra[MCPServerKey].(string)
	tool, _ := info.Extra[MCPToolKey].(string)
	if server == "" {
		server, _ = info.Extra[EinoExtMCPServerKey].(string)
		tool, _ = info.Extra[EinoExtMCPToolKey].(string)
	}
	return MCPSource{Server: server, Tool: tool}
}
