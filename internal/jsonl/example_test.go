package jsonl_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lookout-go/lookout/internal/jsonl"
)

func ExampleLines() {
	lines := jsonl.New(strings.NewReader("{\"a\":1}\n"+strings.Repeat("x", 20)+"\n{\"b\":"), 10)
	for {
		line, start, terminated, tooLong, err := lines.Next()
		if len(line) > 0 || tooLong {
			fmt.Printf("at %d: %q terminated=%v tooLong=%v\n", start, line, terminated, tooLong)
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	// Output:
	// at 0: "{\"a\":1}" terminated=true tooLong=false
	// at 8: "" terminated=true tooLong=true
	// at 29: "{\"b\":" terminated=false tooLong=false
}
