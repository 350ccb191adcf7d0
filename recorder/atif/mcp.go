package atif

import "github.com/lookout-go/lookout/recorder"

// markMCP records on the tool call of c where its tool came from, when an
// MCP server served it: extra.lookout.mcp_server and mcp_tool.
func markMCP(c *callSpan, p *recorder.ToolStarted) {
	if p.MCPServer == "" {
		return
	}
	call := &c.step.step.ToolCalls[c.index]
	if call.Extra == nil {
		call.Extra = map[string]any{}
	}
	info, _ := call.Extra[ExtraKey].(map[string]any)
	if info == nil {
		info = map[string]any{}
		call.Extra[ExtraKey] = info
	}
	info["mcp_server"] = p.MCPServer
	if p.MCPTool != "" {
		info["mcp_tool"] = p.MCPTool
	}
}

// readMCP sets where a call's tool came from, as markMCP wrote it.
func readMCP(p *recorder.ToolStarted, c ToolCall) {
	info, _ := c.Extra[ExtraKey].(map[string]any)
	p.MCPServer, _ = info["mcp_server"].(string)
	p.MCPTool, _ = info["mcp_tool"].(string)
}
