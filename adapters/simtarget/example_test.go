package simtarget_test

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/adk"

	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/adapters/simtarget"
	"github.com/lookout-go/lookout/simulate"
)

func ExampleAgent() {
	ctx := context.Background()
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "greeter", Description: "greets", Instruction: "Be brief.",
		Model: scripted.New(scripted.Reply("Hello!"), scripted.Reply("Goodbye!")),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	user := scripted.New(scripted.Reply("Hi there"), scripted.Reply("Bye"))
	res, err := (&simulate.Runner{UserModel: user}).Run(ctx,
		&simulate.Scenario{Goal: "say hello and goodbye", MaxTurns: 2}, simtarget.Agent(ctx, agent))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range res.Conversation() {
		fmt.Printf("%s: %s\n", m.Role, m.Content)
	}
	fmt.Println(res.End.Reason)
	// Output:
	// user: Hi there
	// assistant: Hello!
	// user: Bye
	// assistant: Goodbye!
	// max-turns
}
