package main

import (
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
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: detectorbench DIR")
		return 2
	}
	cases, err := detectorbench.Load(args[0])
	if err == nil {
		var r detectorbench.Result
		if r, err = detectorbench.Run(cases, detectorbench.Specs()); err == nil {
			err = r.Print(stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
