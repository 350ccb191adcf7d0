package migrator_test

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/adk"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/examples/quickstart/migrator"
)

// The agent runs offline on its script until Lookout's wrap-up turn, and
// reports what is left to do.
func Example() {
	ctx := context.Background()
	mw, err := lookoutadk.New(ctx, migrator.Config(nil, nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	agent, err := migrator.NewAgent(ctx, migrator.Script(), migrator.Tools(), mw)
	if err != nil {
		fmt.Println(err)
		return
	}
	final, err := migrator.Drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}).Query(ctx, migrator.Task))
	fmt.Println(err)
	fmt.Println(final[:56])
	// Output:
	// <nil>
	// I moved billing/client.go to payments.Charge. The billin
}
