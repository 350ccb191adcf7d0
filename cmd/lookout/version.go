package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

// readBuildInfo is debug.ReadBuildInfo, replaced in tests.
var readBuildInfo = debug.ReadBuildInfo

var versionCmd = &command{
	name:    "version",
	summary: "print the version of lookout and of the Go that built it",
	details: `Version prints the module version of this build of lookout, "(devel)" when it
was built from a checkout rather than installed at a version, and the Go
version, operating system and architecture it was built with. lookout
--version prints the same.`,
	examples: `  lookout version
  lookout --version`,
	maxArgs: 0,
	flags: func(*flag.FlagSet) func(context.Context, *env, []string) int {
		return func(_ context.Context, e *env, _ []string) int {
			fmt.Fprintln(e.stdout, versionLine())
			return exitOK
		}
	},
}

// versionLine is what lookout version prints, in the shape of go version:
// "lookout version v1.2.3 go1.24.1 linux/amd64".
func versionLine() string {
	module, goVersion := "(devel)", runtime.Version()
	if bi, ok := readBuildInfo(); ok {
		if bi.Main.Version != "" {
			module = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
	}
	return fmt.Sprintf("lookout version %s %s %s/%s", module, goVersion, runtime.GOOS, runtime.GOARCH)
}
