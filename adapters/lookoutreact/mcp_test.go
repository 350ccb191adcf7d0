package lookoutreact_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/session"
)

type forecastIn struct {
	City string `json:"city" jsonschema:"the city"`
}

// weatherServer serves one tool, forecast, from an MCP server named
// weather on a loopback HTTP server, and returns a client session to it.
func weatherServer(t *testing.T) *mcp.ClientSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "forecast", Description: "the forecast for a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, in forecastIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + in.City}}}, nil, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := mcp.NewClient(&mcp.Implementation{Name: "lookout-test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: tr}}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// mcpTool adapts a tool of an MCP client session to an Eino tool whose
// info names the server and the tool's MCP name, as Lookout reads them.
type mcpTool struct {
	cs     *mcp.ClientSession
	server string
	tool   *mcp.Tool
}

// mcpTools adapts every tool the session's server lists, prefixing their
// Eino names with the server's.
func mcpTools(t *testing.T, cs *mcp.ClientSession) []tool.BaseTool {
	t.Helper()
	listed, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	server := cs.InitializeResult().ServerInfo.Name
	var out []tool.BaseTool
	for _, tl := range listed.Tools {
		out = append(out, mcpTool{cs: cs, server: server, tool: tl})
	}
	return out
}

func (m mcpTool) Info(context.Context) (*schema.ToolInfo, error) {
	raw, err := json.Marshal(m.tool.InputSchema)
	if err != nil {
		return nil, err
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(raw, &js); err != nil {
		return nil, err
	}
	return &schema.ToolInfo{
		Name: m.server + "_" + m.tool.Name, Desc: m.tool.Description, ParamsOneOf: schema.NewParamsOneOfByJSONSchema(&js),
		Extra: map[string]any{lookout.MCPServerKey: m.server, lookout.MCPToolKey: m.tool.Name},
	}, nil
}

func (m mcpTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	res, err := m.cs.CallTool(ctx, &mcp.CallToolParams{Name: m.tool.Name, Arguments: json.RawMessage(args)})
	if err != nil {
		return "", err
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	if res.IsError {
		return "", errors.New(strings.Join(text, "\n"))
	}
	return strings.Join(text, "\n"), nil
}

// Tools served by an MCP server, adapted to Eino, carry the server's name
// and their MCP names into the records and the ATIF tool calls; a tool
// wrapped by hand gets them from Config.MCPTools.
func TestMCPToolsAreRecordedWithTheirServer(t *testing.T) {
	ctx := context.Background()
	tools := append(mcpTools(t, weatherServer(t)), echo("lookup"))
	backend := scripted.New(
		scripted.Call("weather_forecast", `{"city":"Lisbon"}`).Call("lookup", `{"q":"tides"}`),
		scripted.Reply("Sunny, and the tides are fine."),
	)
	rec, sink := newRecorder(t)
	h, err := lookoutreact.New(ctx, &lookout.Config{
		Recorder: rec, MCPTools: map[string]lookout.MCPSource{"lookup": {Server: "almanac", Tool: "tides"}},
	})
	require.NoError(t, err)
	ra, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: h.WrapModel(backend),
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools, ToolCallMiddlewares: []compose.ToolMiddleware{h.ToolMiddleware()}},
	})
	require.NoError(t, err)
	out, err := h.Agent(ra).Generate(session.NewContext(ctx, session.New(nil)), []*schema.Message{schema.UserMessage("weather?")})
	require.NoError(t, err)
	assert.Equal(t, "Sunny, and the tides are fine.", out.Content)
	records := flushed(t, rec, sink)

	sources := map[string][2]string{}
	var results []string
	for _, r := range records {
		switch p := r.Payload.(type) {
		case *recorder.ToolStarted:
			sources[p.Name] = [2]string{p.MCPServer, p.MCPTool}
		case *recorder.ToolEnded:
			results = append(results, p.Result)
		}
	}
	assert.Equal(t, map[string][2]string{"weather_forecast": {"weather", "forecast"}, "lookup": {"almanac", "tides"}}, sources)
	assert.Contains(t, results, "sunny in Lisbon", "the tool ran on the MCP server")

	tr, err := atif.FromRecords(records, nil)
	require.NoError(t, err)
	data, err := atif.Encode(tr)
	require.NoError(t, err)
	assert.Empty(t, atif.Validate(data))
	var calls []atif.ToolCall
	for _, s := range tr.Steps {
		calls = append(calls, s.ToolCalls...)
	}
	require.Len(t, calls, 2)
	assert.Equal(t, map[string]any{"mcp_server": "weather", "mcp_tool": "forecast"}, calls[0].Extra[atif.ExtraKey])
	assert.Equal(t, map[string]any{"mcp_server": "almanac", "mcp_tool": "tides"}, calls[1].Extra[atif.ExtraKey])

	back, err := atif.ToRecords(tr)
	require.NoError(t, err)
	again, err := atif.FromRecords(back, nil)
	require.NoError(t, err)
	assert.Equal(t, calls[0].Extra, again.Steps[len(again.Steps)-2].ToolCalls[0].Extra, "import keeps the server")
}
