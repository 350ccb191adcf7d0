package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
		{name: "an unknown command is a usage error", args: []string{"frob"}, code: 2, stderr: "lookout: unknown command \"frob\"\n\nUsage:", quietOut: true},
		{name: "an unknown flag is a usage error", args: []string{"inspect", "--nope", file}, code: 2, stderr: "lookout inspect: flag provided but not defined: -nope\n\nUsage: lookout inspect"},
		{name: "a missing file argument is a usage error", args: []string{"inspect"}, code: 2, stderr: "lookout inspect: missing FILE..."},
		{name: "export takes one file", args: []string{"export", "--format", "atif", file, file}, code: 2, stderr: "too many arguments"},
		{name: "export needs a format", args: []string{"export", file}, code: 2, stderr: "--format must be atif or openai"},
		{name: "export rejects an unknown format", args: []string{"export", "--format=xml", file}, code: 2, stderr: `not "xml"`},
		{name: "a missing file is a runtime failure", args: []string{"inspect", "missing.jsonl"}, code: 1,
			stderr: "lookout: read missing.jsonl: open missing.jsonl: no such file or directory\n", quietOut: true},
		{name: "validate of a missing file is a runtime failure", args: []string{"validate", "missing.jsonl"}, code: 1, stderr: "lookout: read missing.jsonl: open missing.jsonl"},
		{name: "export of a missing file is a runtime failure", args: []string{"export", "--format", "openai", "missing.jsonl"}, code: 1, stderr: "lookout: read missing.jsonl"},
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
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "lookout: read -json: open -json: no such file or directory")
}
