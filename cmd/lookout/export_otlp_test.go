package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/otelexport"
	"github.com/lookout-go/lookout/recorder"
)

// otlpSpans decodes the OTLP JSON lines of out and returns each line's
// span names.
func otlpSpans(t *testing.T, out string) [][]string {
	t.Helper()
	var traces [][]string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		req, err := otelexport.UnmarshalJSON([]byte(line))
		require.NoError(t, err)
		var names []string
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					names = append(names, s.Name)
				}
			}
		}
		traces = append(traces, names)
	}
	return traces
}

func TestExportOTLPWritesTheRunTreeAsOneRequest(t *testing.T) {
	r := lookout("export", "--format", "otlp", trajectoryFile(t))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, [][]string{{
		"invoke_agent migrator", "chat gpt-test", "execute_tool shell", "execute_tool helper",
		"invoke_agent helper", "chat",
	}}, otlpSpans(t, r.stdout))
}

func TestTwoOTLPExportsOfOneFileAreByteIdentical(t *testing.T) {
	file := trajectoryFile(t)
	a := lookout("export", "--format", "otlp", file)
	b := lookout("export", "--format", "otlp", file)
	require.Equal(t, exitOK, a.code, a.stderr)
	require.NotEmpty(t, a.stdout)
	assert.Equal(t, a.stdout, b.stdout)
}

func TestExportOTLPWritesEveryRootRunToStandardOutput(t *testing.T) {
	again := strings.ReplaceAll(string(encode(t, recordTrajectory(t))), `"run-`, `"again-`)
	file := writeFile(t, "two.jsonl", append(encode(t, recordTrajectory(t)), again...))
	r := lookout("export", "--format", "otlp", file)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Len(t, otlpSpans(t, r.stdout), 2, "one line per root run")
	first := lookout("export", "--format", "otlp", "--run", "run-1", file)
	second := lookout("export", "--format", "otlp", "--run", "again-1", file)
	assert.Equal(t, first.stdout+second.stdout, r.stdout, "each line is its root run's export")

	r = lookout("export", "--format", "otlp", "--run", "run-2", file)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, [][]string{{"invoke_agent helper", "chat"}}, otlpSpans(t, r.stdout))
}

func TestExportOTLPIntoADirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	r := lookout("export", "--format", "otlp", "-o", dir, trajectoryFile(t))
	require.Equal(t, exitOK, r.code, r.stderr)
	path := filepath.Join(dir, "run-1.otlp.json")
	assert.Equal(t, path+"\n", r.stdout)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Len(t, otlpSpans(t, string(data)), 1)
}

func TestExportOTLPMetricsIsWhatWriteMetricsJSONWrites(t *testing.T) {
	file := trajectoryFile(t)
	r := lookout("export", "--format", "otlp-metrics", file)
	require.Equal(t, 0, r.code, r.stderr)

	records, _, err := recorder.ReadFile(file)
	require.NoError(t, err)
	var want bytes.Buffer
	require.NoError(t, otelexport.WriteMetricsJSON(&want, records, nil))
	require.NotEmpty(t, want.String())
	assert.Equal(t, want.String(), r.stdout)
	assert.Contains(t, r.stdout, `"gen_ai.client.token.usage"`)

	dir := t.TempDir()
	r = lookout("export", "--format", "otlp-metrics", "-o", dir, file)
	require.Equal(t, 0, r.code, r.stderr)
	path := filepath.Join(dir, "run-1.metrics.otlp.json")
	assert.Equal(t, path+"\n", r.stdout)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want.String(), string(data))
}
