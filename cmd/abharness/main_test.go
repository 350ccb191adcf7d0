package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMainPrintsTheTables(t *testing.T) {
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = out
	main()
	os.Stdout = stdout
	require.NoError(t, out.Close())
	b, err := os.ReadFile(out.Name())
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "| scenario | agent |"))
	assert.Contains(t, string(b), "| observer | oblivious followed | attentive followed |")
}
