package lookout_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lookout-go/lookout"
)

// A configuration that cannot work fails its check, with an error that
// names the field; the adapters check the Config they are given the same
// way.
func ExampleConfig_Check() {
	_, err := (&lookout.Config{WrapUpAt: 1.5}).Check()
	fmt.Println(err)
	fmt.Println(errors.Is(err, lookout.ErrInvalidConfig))
	// Output:
	// lookout: invalid config: WrapUpAt 1.5 must be a number below 1
	// true
}

// The README's snippet is the body of the ADK adapter's Example, which
// compiles and runs with the tests; this keeps the two identical.
func TestTheReadmeSnippetIsTheADKExample(t *testing.T) {
	src, err := os.ReadFile("adapters/lookoutadk/example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), "\nfunc Example() {\n")
	body, _, ok2 := strings.Cut(rest, "\n}\n")
	if !ok || !ok2 {
		t.Fatal("no func Example in adapters/lookoutadk/example_test.go")
	}
	var want strings.Builder
	for _, line := range strings.Split(body, "\n") {
		want.WriteString(strings.TrimPrefix(line, "\t") + "\n")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+want.String()+"```\n") {
		t.Error("README.md's Go snippet differs from the body of Example in adapters/lookoutadk/example_test.go")
	}
}
