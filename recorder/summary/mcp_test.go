package summary_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/summary"
)

func TestAnalyzeGroupsToolsByTheirMCPServer(t *testing.T) {
	tp := newTape().start("r", "", "a")
	tp.add("r", &recorder.ToolStarted{CallID: "c1", Name: "weather_forecast", MCPServer: "weather", MCPTool: "forecast"})
	tp.toolEnd("r", "c1", "weather_forecast", "sunny")
	tp.add("r", &recorder.ToolStarted{CallID: "c2", Name: "weather_alerts", MCPServer: "weather", MCPTool: "alerts"})
	tp.toolFail("r", "c2", "weather_alerts", "timeout")
	tp.toolStart("r", "c3", "local")
	tp.toolEnd("r", "c3", "local", "ok")

	rep := summary.Analyze(tp.records)
	require.Len(t, rep.Total.MCPServers, 1)
	s := rep.Total.MCPServers[0]
	assert.Equal(t, "weather", s.Name)
	assert.Equal(t, []string{"weather_alerts", "weather_forecast"}, s.Tools)
	assert.Equal(t, 2, s.Calls)
	assert.Equal(t, 1, s.Errors)
	assert.Equal(t, "forecast", rep.Runs[0].Tools[2].MCPTool)

	var text strings.Builder
	require.NoError(t, rep.WriteText(&text))
	assert.Contains(t, text.String(), "MCP server weather (weather_alerts, weather_forecast): 2 calls, 1 error")
}
