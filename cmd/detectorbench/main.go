package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/lookout-go/lookout/internal/detectorbench"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run replays the folder named by args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("detectorbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	replays := fs.Int("replays", 1, "replay each run `n` times and keep each call's least cost")
	table := fs.Bool("table", false, "print the scores by family, with delays, false alarms per 100 calls and cost per call")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: detectorbench [-table] [-replays n] DIR")
		return 2
	}
	cases, err := detectorbench.Load(fs.Arg(0))
	if err == nil {
		var r detectorbench.Result
		if r, err = detectorbench.RunN(cases, detectorbench.Specs, *replays); err == nil {
			if *table {
				err = r.PrintTable(stdout)
			} else {
				err = r.Print(stdout)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
