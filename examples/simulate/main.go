package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/simtarget"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
	"github.com/lookout-go/lookout/simulate"
)

func main() {
	out := flag.String("out", "", "folder for the run's artifacts (default: a new temporary folder)")
	flag.Parse()
	ctx := context.Background()
	m, err := modelsFromEnv(ctx, os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := run(ctx, os.Stdout, *out, m); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// models are the three model roles of a simulation.
type models struct {
	name   string
	agent  model.ToolCallingChatModel
	user   model.BaseChatModel
	ranker simulate.Ranker
}

// modelsFromEnv picks a real OpenAI-compatible model when OPENAI_API_KEY is
// set, and the scripted models otherwise.
func modelsFromEnv(ctx context.Context, getenv func(string) string) (*models, error) {
	key := getenv("OPENAI_API_KEY")
	if key == "" {
		return scriptedModels(), nil
	}
	name := getenv("OPENAI_MODEL")
	if name == "" {
		name = "gpt-4o-mini"
	}
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{APIKey: key, BaseURL: getenv("OPENAI_BASE_URL"), Model: name})
	if err != nil {
		return nil, fmt.Errorf("openai model: %w", err)
	}
	// The runner retries the user's and the ranker's calls on 429s and
	// 5xx itself; the agent's model is called by the agent, so it gets
	// the same retries from RetryModel.
	agent := simulate.RetryModel(cm, nil).(model.ToolCallingChatModel)
	return &models{name: name, agent: agent, user: cm, ranker: simulate.NewRanker(cm)}, nil
}

// run plays the travel scenario and reports on w. An empty outDir means a
// new temporary folder.
func run(ctx context.Context, w io.Writer, outDir string, m *models) error {
	// Lookout on the agent records its trajectory; one session on the ctx
	// gives the conversation's turns one budget.
	trajectory := recorder.NewMemorySink()
	rec := recorder.New(trajectory, nil)
	defer rec.Close(ctx)
	agent, err := travelAgent(ctx, m, rec)
	if err != nil {
		return err
	}
	ctx = session.NewContext(ctx, session.New(nil))
	runner := &simulate.Runner{UserModel: m.user, Ranker: m.ranker,
		ModelNames: simulate.ModelNames{User: m.name, Ranker: m.name, Agent: m.name}}
	res, runErr := runner.Run(ctx, travelScenario(), simtarget.Agent(ctx, agent))
	if res == nil {
		return runErr
	}
	printConversation(w, m.name, res)
	dir, err := saveArtifacts(ctx, outDir, res, rec, trajectory)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Artifacts: %s\n", dir)
	return runErr
}

// travelAgent is the travel planner on m's agent model, with Lookout
// recording into rec.
func travelAgent(ctx context.Context, m *models, rec *recorder.Recorder) (adk.Agent, error) {
	tools, err := travelTools()
	if err != nil {
		return nil, err
	}
	mw, err := lookoutadk.New(ctx, &lookout.Config{
		Limits:   budget.Limits{MaxToolCalls: 40},
		Recorder: rec,
	})
	if err != nil {
		return nil, err
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "travel-planner",
		Description: "plans and books trips",
		Instruction: agentInstruction,
		Model:       m.agent,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	if err != nil {
		return nil, err
	}
	return mw.Agent(agent), nil
}

// printConversation prints each turn of the simulated conversation, then
// why it stopped and its summary.
func printConversation(w io.Writer, name string, res *simulate.Result) {
	fmt.Fprintf(w, "Simulated conversation (%s models)\n", name)
	for _, t := range res.Traces {
		step := t.StepID
		if step == "" {
			step = "-"
		}
		fmt.Fprintf(w, "\n[turn %d · step %s · %s]\n", t.Turn, step, t.Selection.Method)
		fmt.Fprintf(w, "  user: %s\n", t.User.Content)
		for _, msg := range t.Agent {
			printMessage(w, msg)
		}
	}
	fmt.Fprintf(w, "\nStop reason: %s (completed: %v)\n%s\n", res.End.Reason, res.End.Completed, res.Summary())
}

// saveArtifacts writes the run's artifacts and the agent's trajectory
// into a new folder under outDir (a new temporary folder when "") and
// returns that folder.
func saveArtifacts(ctx context.Context, outDir string, res *simulate.Result, rec *recorder.Recorder, trajectory *recorder.MemorySink) (string, error) {
	var err error
	if outDir == "" {
		if outDir, err = os.MkdirTemp("", "lookout-simulate-"); err != nil {
			return "", err
		}
	}
	dir, err := simulate.WriteArtifacts(outDir, res)
	if err != nil {
		return "", err
	}
	if err := rec.Flush(ctx); err != nil {
		return "", err
	}
	if err := writeTrajectory(ctx, filepath.Join(dir, "trajectory.jsonl"), trajectory.Records()); err != nil {
		return "", err
	}
	return dir, nil
}

// writeTrajectory writes the agent's recorded runs, one per turn, as JSON
// Lines next to the conversation.
func writeTrajectory(ctx context.Context, path string, records []recorder.Record) error {
	file, err := recorder.NewFileSink(path, &recorder.FileOptions{Truncate: true})
	if err != nil {
		return err
	}
	for i := range records {
		if err := file.Write(ctx, &records[i]); err != nil {
			file.Close(ctx)
			return err
		}
	}
	return file.Close(ctx)
}

func printMessage(w io.Writer, msg *schema.Message) {
	switch {
	case msg.Role == schema.Tool:
		fmt.Fprintf(w, "  tool %s: %s\n", msg.ToolName, oneLine(msg.Content))
	case len(msg.ToolCalls) > 0:
		for _, tc := range msg.ToolCalls {
			fmt.Fprintf(w, "  agent calls %s %s\n", tc.Function.Name, tc.Function.Arguments)
		}
	default:
		fmt.Fprintf(w, "  agent: %s\n", oneLine(msg.Content))
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
