package migrator

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/recorder"
)

// Task is what the agent is asked to do.
const Task = "Migrate the billing service to the new payments API, make the tests pass, and report what you changed."

// Script is what the offline model does: it explores, edits, and keeps
// re-running tests that keep failing, until its tool calls are spent and
// Lookout asks it to wrap up.
func Script() *scripted.Model {
	// Each turn reports fixed usage, so the offline run is the same every
	// time whatever the prompts look like.
	return scripted.New(
		scripted.Call("list_files", `{"dir":"billing"}`).WithUsage(300, 20),
		scripted.Call("read_file", `{"path":"billing/client.go"}`).
			Call("read_file", `{"path":"billing/client_test.go"}`).
			Call("read_file", `{"path":"payments/api.go"}`).WithUsage(350, 40),
		scripted.Call("write_file", `{"path":"billing/client.go","content":"package billing // uses payments.Charge"}`).WithUsage(420, 60),
		scripted.Call("run_tests", `{"package":"./billing"}`).WithUsage(480, 20),
		scripted.Call("run_tests", `{"package":"./billing","verbose":true}`).WithUsage(520, 25),
		scripted.Call("run_tests", `{"package":"./billing","run":"TestCharge"}`).WithUsage(560, 25),
		scripted.Call("read_file", `{"path":"billing/testdata/charge.json"}`).WithUsage(600, 20),
		scripted.Reply("I moved billing/client.go to payments.Charge. The billing tests still fail: "+
			"the fixture in billing/testdata/charge.json expects the old currency field. "+
			"Remaining: update the fixture and re-run the tests.").WithUsage(720, 80),
	)
}

// Tools is a small in-memory project; run_tests always fails.
func Tools() []tool.BaseTool {
	files := map[string]string{
		"billing/client.go":            "package billing // calls legacy.Charge",
		"billing/client_test.go":       "package billing // TestCharge",
		"billing/testdata/charge.json": `{"amount": 100, "currency_code": "EUR"}`,
		"payments/api.go":              "package payments // func Charge(amount int, currency string)",
	}
	return []tool.BaseTool{
		NewTool("list_files", "List the files of a directory. Arguments: {\"dir\": string}.", func(string) (string, error) {
			var names []string
			for name := range files {
				names = append(names, name)
			}
			slices.Sort(names)
			return strings.Join(names, "\n"), nil
		}),
		NewTool("read_file", "Read a file. Arguments: {\"path\": string}.", func(args string) (string, error) {
			for name, body := range files {
				if strings.Contains(args, `"`+name+`"`) {
					return body, nil
				}
			}
			return "", errors.New("no such file")
		}),
		NewTool("write_file", "Write a file. Arguments: {\"path\": string, \"content\": string}.", func(string) (string, error) {
			return "written", nil
		}),
		NewTool("run_tests", "Run the tests of a package. Arguments: {\"package\": string}.", func(string) (string, error) {
			return "", errors.New("FAIL billing TestCharge: unknown field \"currency_code\" in testdata/charge.json")
		}),
	}
}

// Config is the agent's Lookout configuration: the Resource, ErrorCascade
// and Stall observers, limits on time, tokens and tool calls, and tool
// errors as messages the model reads, so that the failing test does not
// end the run. rec, if not nil, records the run; now, if not nil, is its
// clock.
func Config(rec *recorder.Recorder, now func() time.Time) *lookout.Config {
	return &lookout.Config{
		Recorder:   rec,
		Now:        now,
		ToolErrors: lookout.ToolErrorsAsMessages,
		Limits:     budget.Limits{Timeout: 10 * time.Minute, MaxTokens: 5_000, MaxToolCalls: 9},
		Observers: []observer.Spec{
			{Observer: resource.New(), Trigger: observer.Trigger{EveryNCalls: 5, AfterConsecutiveErrors: 3}},
			{Observer: cascade.New(), Trigger: observer.Trigger{OnEveryCall: true}},
			{Observer: stall.New(), Trigger: observer.Trigger{OnEveryCall: true}},
		},
	}
}

// NewAgent builds the agent on chat with tools and handlers, the first
// registered outermost; Lookout's middleware is one of them.
func NewAgent(ctx context.Context, chat model.ToolCallingChatModel, tools []tool.BaseTool, handlers ...adk.ChatModelAgentMiddleware) (adk.Agent, error) {
	return adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "migrator",
		Description: "Migrates services to new APIs.",
		Instruction: "You work unattended. Use the tools, keep an eye on your budget, and finish with a short report.",
		Model:       chat,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
		Handlers:    handlers,
	})
}

// Drain reads a run's events to the end and returns the agent's final
// answer, its last message without tool calls, and the last error the run
// reported.
func Drain(iter *adk.AsyncIterator[*adk.AgentEvent]) (final string, runErr error) {
	for {
		ev, ok := iter.Next()
		if !ok {
			return final, runErr
		}
		if ev.Err != nil {
			runErr = ev.Err
			continue
		}
		if msg := message(ev); isAnswer(msg) {
			final = msg.Content
		}
	}
}

// message returns the message ev carries, or nil when it carries none.
func message(ev *adk.AgentEvent) *schema.Message {
	if ev.Output == nil || ev.Output.MessageOutput == nil {
		return nil
	}
	msg, err := ev.Output.MessageOutput.GetMessage()
	if err != nil {
		return nil
	}
	return msg
}

// isAnswer reports whether msg is an assistant message without tool
// calls.
func isAnswer(msg *schema.Message) bool {
	return msg != nil && msg.Role == schema.Assistant && len(msg.ToolCalls) == 0
}

// fnTool is a tool backed by a function of its JSON arguments.
type fnTool struct {
	info *schema.ToolInfo
	fn   func(args string) (string, error)
}

// NewTool returns a tool named name, described by desc, that answers
// with fn of its JSON arguments.
func NewTool(name, desc string, fn func(args string) (string, error)) tool.InvokableTool {
	return &fnTool{info: &schema.ToolInfo{Name: name, Desc: desc}, fn: fn}
}

func (t *fnTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

func (t *fnTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	return t.fn(args)
}
