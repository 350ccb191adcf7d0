package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder/atif"
)

func TestExportSetsTheAgentFromTheCommandLine(t *testing.T) {
	file := trajectoryFile(t)
	r := lookout("export", "--format", "atif", file)
	require.Equal(t, 0, r.code, r.stderr)
	doc, err := atif.Decode([]byte(r.stdout))
	require.NoError(t, err)
	assert.Equal(t, "migrator", doc.Agent.Name, "the recorded name")

	r = lookout("export", "--format", "atif", "--agent-name", "billing-bot", "--agent-version", "v2.3.0", "--agent-model", "gpt-4o", file)
	require.Equal(t, 0, r.code, r.stderr)
	doc, err = atif.Decode([]byte(r.stdout))
	require.NoError(t, err)
	assert.Equal(t, atif.Agent{Name: "billing-bot", Version: "v2.3.0", ModelName: "gpt-4o"}, atif.Agent{Name: doc.Agent.Name, Version: doc.Agent.Version, ModelName: doc.Agent.ModelName})
}
