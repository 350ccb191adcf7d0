package lookoutadk_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/supervisor"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
)

// endSurvivesEnv names the trajectory file a child process of
// TestTheRunsEndSurvivesLogFatalOnTheErrorEvent records to; set, it makes
// the test the child.
const endSurvivesEnv = "LOOKOUT_TEST_END_SURVIVES_FILE"

// A program that stops with log.Fatal(event.Err) on the query's error
// event, closing nothing, still finds the root run's run_ended in its
// trajectory file: 200 child processes (20 with -short), 8 at a time,
// each one query of a supervisor that spends its model calls in its
// sub-agent.
func TestTheRunsEndSurvivesLogFatalOnTheErrorEvent(t *testing.T) {
	if path := os.Getenv(endSurvivesEnv); path != "" {
		fatalOnTheErrorEvent(t, path)
		return
	}
	runs := 200
	if testing.Short() {
		runs = 20
	}
	dir := t.TempDir()
	results := make([]childRun, runs)
	slots := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			results[i] = runFatalChild(filepath.Join(dir, fmt.Sprintf("run-%d.jsonl", i)))
		}()
	}
	wg.Wait()

	kept := 0
	for i, res := range results {
		if !assert.NoError(t, res.err, "child %d ran as a program that stops with log.Fatal; its stderr: %s", i, res.stderr) {
			continue
		}
		if rootEnded(t, res.path) {
			kept++
		}
	}
	assert.Equal(t, runs, kept, "children whose trajectory holds the root's run_ended")
}

// childRun is what one child process left.
type childRun struct {
	path   string
	stderr string
	err    error // nil when the child ended as log.Fatal ends a program
}

// runFatalChild runs the test binary as a child recording to path, and
// checks that it ended through log.Fatal on the budget's error.
func runFatalChild(path string) childRun {
	cmd := exec.Command(os.Args[0], "-test.run=^TestTheRunsEndSurvivesLogFatalOnTheErrorEvent$", "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), endSurvivesEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	res := childRun{path: path, stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case !errors.As(err, &exit):
		res.err = fmt.Errorf("the child did not exit with a status: %v", err)
	case exit.ExitCode() != 1:
		res.err = fmt.Errorf("the child exited with status %d, not log.Fatal's 1", exit.ExitCode())
	case !strings.Contains(res.stderr, "budget exceeded"):
		res.err = errors.New("the child did not stop on the budget's error event")
	}
	return res
}

// rootEnded reports whether the trajectory at path holds the run_ended
// of its root run.
func rootEnded(t *testing.T, path string) bool {
	t.Helper()
	records, _, err := recorder.ReadFile(path)
	if !assert.NoError(t, err, path) {
		return false
	}
	root := ""
	for _, r := range records {
		if _, ok := r.Payload.(*recorder.RunStarted); ok && r.ParentRunID == "" {
			root = r.RunID
		}
	}
	if root == "" {
		return false
	}
	for _, r := range records {
		if end, ok := r.Payload.(*recorder.RunEnded); ok && r.RunID == root {
			assert.Equal(t, recorder.OutcomeBudgetExceeded, end.Outcome, path)
			return true
		}
	}
	return false
}

// fatalOnTheErrorEvent is the child: a program whose Recorder writes to
// a file it never closes, and which stops with log.Fatal on the first
// event that carries an error. The lead hands over to a worker that
// keeps calling tools past its wrap-up turn, so the model-call limit
// ends the query with the budget's error.
func fatalOnTheErrorEvent(t *testing.T, path string) {
	ctx := context.Background()
	file, err := recorder.NewFileSink(path, nil)
	require.NoError(t, err)
	mw, err := lookoutadk.New(ctx, &lookout.Config{
		Recorder: recorder.New(file, nil),
		Limits:   budget.Limits{MaxModelCalls: 3},
		OnError:  func(context.Context, error) {},
	})
	require.NoError(t, err)
	agent := func(name string, m *scripted.Model, tools ...tool.BaseTool) adk.Agent {
		a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: name, Description: "the " + name + " agent", Instruction: "You are the " + name + " agent.", Model: m,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
			Handlers:    []adk.ChatModelAgentMiddleware{mw},
		})
		require.NoError(t, err)
		return a
	}
	lead := agent("lead", scripted.New(scripted.Calls(transferTo("worker")), scripted.Forever(scripted.Reply("the worker ran out"))))
	worker := agent("worker", scripted.New(scripted.Forever(scripted.Call("search", `{"q":"more"}`))), echo("search"))
	root, err := supervisor.New(ctx, &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{worker}})
	require.NoError(t, err)

	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(root)}).Query(ctx, "do the task")
	for {
		event, ok := iter.Next()
		if !ok {
			break
		}
		if event.Err != nil {
			log.Fatal(event.Err)
		}
	}
	t.Fatal("the query ended without an error event")
}
