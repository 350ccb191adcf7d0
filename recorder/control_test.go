package recorder_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

func TestAControlToolCallIsMarkedAndReadBack(t *testing.T) {
	for _, control := range []bool{true, false} {
		in := recorder.Record{SchemaVersion: recorder.SchemaVersion, RunID: "r1", RecordedAt: t0,
			Payload: &recorder.ToolStarted{CallID: "c1", Name: "exit", Control: control}}
		line, err := in.AppendJSON(nil)
		require.NoError(t, err)
		assert.Equal(t, control, strings.Contains(string(line), `"control":true`), "%s", line)
		var out recorder.Record
		require.NoError(t, json.Unmarshal(line, &out))
		assert.Equal(t, control, out.Payload.(*recorder.ToolStarted).Control)
	}
}
