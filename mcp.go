package lookout

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
