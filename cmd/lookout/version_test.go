package main

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// withBuildInfo makes the program see bi as its build information.
func withBuildInfo(t *testing.T, bi *debug.BuildInfo) {
	t.Helper()
	old := readBuildInfo
	readBuildInfo = func() (*debug.BuildInfo, bool) { return bi, bi != nil }
	t.Cleanup(func() { readBuildInfo = old })
}

func TestVersionPrintsTheModuleAndGoVersions(t *testing.T) {
	platform := " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	cases := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"an installed build prints its module version",
			&debug.BuildInfo{GoVersion: "go1.24.1", Main: debug.Module{Path: "github.com/lookout-go/lookout", Version: "v1.2.3"}},
			"lookout version v1.2.3 go1.24.1" + platform},
		{"a build from a checkout prints (devel)",
			&debug.BuildInfo{GoVersion: "go1.24.1", Main: debug.Module{Path: "github.com/lookout-go/lookout", Version: "(devel)"}},
			"lookout version (devel) go1.24.1" + platform},
		{"a build without build information prints (devel) and the running Go",
			nil,
			"lookout version (devel) " + runtime.Version() + platform},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			withBuildInfo(t, tc.bi)
			for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
				r := lookout(args...)
				assert.Equal(t, exitOK, r.code, args)
				assert.Equal(t, tc.want, r.stdout, args)
				assert.Empty(t, r.stderr, args)
			}
		})
	}
}

func TestVersionTakesNoArguments(t *testing.T) {
	r := lookout("version", "extra")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "lookout version: too many arguments: extra\nUsage: lookout version\n")
}
