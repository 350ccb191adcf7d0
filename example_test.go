package lookout_test

import (
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
)

func ExampleInjected() {
	block := &schema.Message{Role: schema.User, Content: "## Trajectory Assessment", Extra: map[string]any{lookout.Tag: lookout.TagAssessment}}
	for _, m := range []*schema.Message{schema.UserMessage("fix the tests"), block} {
		kind, ok := lookout.Injected(m)
		fmt.Printf("%q %v\n", kind, ok)
	}
	// Output:
	// "" false
	// "assessment" true
}
