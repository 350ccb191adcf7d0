package main

import (
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestExitStatusesAndUsage(t *testing.T) {
	file := trajectoryFile(t)
	cases := []struct {
		name       string
		args       []string
		code       int
		stdout     string // a substring of stdout, if set
		stderr     string // a substring of stderr, if set
		quietOut   bool   // nothing on stdout
		quietError bool   // nothing on stderr
	}{
		{name: "no arguments print usage to stderr", args: nil, code: 2, stderr: "Usage: lookout <command>", quietOut: true},
		{name: "help prints usage to stdout", args: []string{"help"}, code: 0, stdout: "Commands:\n  inspect", quietError: true},
		{name: "-h prints usage", args: []string{"-h"}, code: 0, stdout: "Usage: lookout <command>"},
		{name: "--help prints usage", args: []string{"--help"}, code: 0, stdout: "Usage: lookout <command>"},
		{name: "help on a command shows its flags", args: []string{"help", "export"}, code: 0, stdout: "-format string"},
		{name: "a command's -h shows its flags", args: []string{"summarize", "-h"}, code: 0, stdout: "-timeout duration", quietError: true},
		{name: "help on an unknown command is a usage error", args: []string{"help", "frob"}, code: 2, stderr: `unknown command "frob"`},
		{name: "an unknown command is a usage error", args: []string{"frob"}, code: 2, stderr: "lookout: unknown command \"frob\"\nRun 'lookout help' for the commands.\n", quietOut: true},
		{name: "an unknown flag is a usage error", args: []string{"inspect", "--nope", file}, code: 2, stderr: "lookout inspect: flag provided but not defined: -nope\nUsage: lookout inspect [flags] FILE...\nRun 'lookout help inspect' for details.\n"},
		{name: "a missing file argument is a usage error", args: []string{"inspect"}, code: 2, stderr: "lookout inspect: missing FILE..."},
		{name: "export takes one file", args: []string{"export", "--format", "atif", file, file}, code: 2, stderr: "too many arguments"},
		{name: "export needs a format", args: []string{"export", file}, code: 2, stderr: "--format must be atif, openai, otlp or otlp-metrics"},
		{name: "export rejects an unknown format", args: []string{"export", "--format=xml", file}, code: 2, stderr: `not "xml"`},
		{name: "a missing file cannot be read", args: []string{"inspect", "missing.jsonl"}, code: 3,
			stderr: "lookout: read missing.jsonl: open missing.jsonl: no such file or directory\n", quietOut: true},
		{name: "validate of a missing file cannot be read", args: []string{"validate", "missing.jsonl"}, code: 3, stderr: "lookout: read missing.jsonl: open missing.jsonl"},
		{name: "export of a missing file cannot be read", args: []string{"export", "--format", "openai", "missing.jsonl"}, code: 3, stderr: "lookout: read missing.jsonl"},
		{name: "inspect succeeds", args: []string{"inspect", file}, code: 0, stdout: "runs: 2 (1 root, 1 child)", quietError: true},
		{name: "validate succeeds", args: []string{"validate", file}, code: 0, stdout: "valid trajectory", quietError: true},
		{name: "summarize succeeds", args: []string{"summarize", file}, code: 0, stdout: "prompts: 2"},
		{name: "export succeeds", args: []string{"export", "--format", "openai", file}, code: 0, stdout: `{"role":"user"`, quietError: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "summarize succeeds" {
				t.Setenv("OPENAI_API_KEY", "")
			}
			r := lookout(tc.args...)
			assert.Equal(t, tc.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, tc.stdout)
			assert.Contains(t, r.stderr, tc.stderr)
			if tc.quietOut {
				assert.Empty(t, r.stdout)
			}
			if tc.quietError {
				assert.Empty(t, r.stderr)
			}
		})
	}
}

func TestFlagsMayFollowTheFile(t *testing.T) {
	file := trajectoryFile(t)
	dir := t.TempDir()
	r := lookout("export", file, "--format", "openai", "-o", dir)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "run-1.messages.jsonl")
}

func TestAfterDoubleDashEverythingIsAFile(t *testing.T) {
	r := lookout("inspect", "--", "-json")
	assert.Equal(t, exitUnreadable, r.code)
	assert.Contains(t, r.stderr, "lookout: read -json: open -json: no such file or directory")
}

func TestTheExitStatusesAreTheDocumentedNumbers(t *testing.T) {
	assert.Equal(t, []int{0, 1, 2, 3}, []int{exitOK, exitProblems, exitUsage, exitUnreadable})
}

func TestExitStatusTellsProblemsFromUnreadableFiles(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	good := trajectoryFile(t)
	invalid := writeFile(t, "invalid.jsonl", []byte("not json\n"))
	locked := writeFile(t, "locked.jsonl", []byte("{}\n"))
	require.NoError(t, os.Chmod(locked, 0))
	if f, err := os.Open(locked); err == nil {
		f.Close()
		locked = "" // running as root: every file can be read
	}
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"inspect of invalid data finds problems", []string{"inspect", invalid}, exitProblems},
		{"summarize of invalid data finds problems", []string{"summarize", invalid}, exitProblems},
		{"export of invalid data finds problems", []string{"export", "--format", "atif", invalid}, exitProblems},
		{"validate of invalid data finds problems", []string{"validate", good, invalid}, exitProblems},
		{"validate of an invalid and a missing file cannot read one", []string{"validate", invalid, "missing.jsonl", good}, exitUnreadable},
		{"inspect of a file without permission cannot read it", []string{"inspect", locked}, exitUnreadable},
		{"validate of a file without permission cannot read it", []string{"validate", locked}, exitUnreadable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if slices.Contains(tc.args, "") {
				t.Skip("permissions do not stop root")
			}
			r := lookout(tc.args...)
			assert.Equal(t, tc.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		})
	}
}
