package main

import (
	"fmt"
	"os"

	"github.com/lookout-go/lookout/internal/abharness"
)

func main() {
	r, err := abharness.Measure()
	if err == nil {
		err = r.Print(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
