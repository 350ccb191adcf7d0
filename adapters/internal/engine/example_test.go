package engine_test

import (
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/internal/engine"
)

func ExampleSummarize() {
	fmt.Println(engine.Summarize("{\n  \"path\": \"billing/client.go\"\n}", 40))
	fmt.Println(engine.Summarize(`{"query":"a long search query that goes on and on"}`, 24))
	// Output:
	// { "path": "billing/client.go" }
	// {"query":"a long sear...
}

func ExampleInjected() {
	block := &schema.Message{Role: schema.User, Content: "## Trajectory Assessment", Extra: map[string]any{engine.Tag: engine.TagAssessment}}
	for _, m := range []*schema.Message{schema.UserMessage("fix the tests"), block} {
		kind, ok := engine.Injected(m)
		fmt.Printf("%q %v\n", kind, ok)
	}
	// Output:
	// "" false
	// "assessment" true
}
