package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/examples/quickstart/migrator"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/replay"
	"github.com/lookout-go/lookout/session"
)

func main() {
	broken := flag.Bool("break", false, "change run_tests' result, so the replay leaves the recording")
	flag.Parse()
	os.Exit(run(context.Background(), os.Stdout, *broken, ""))
}

// run records the agent into a new folder under tmp ("" is the system's
// temporary folder), replays it, and returns the exit status: 0 when the
// replay matched, 1 when it did not, 2 when something else failed. The
// folder is removed, unless the replay diverged: the report points into
// it.
func run(ctx context.Context, w io.Writer, broken bool, tmp string) int {
	dir, err := os.MkdirTemp(tmp, "lookout-replay-")
	if err != nil {
		fmt.Fprintln(w, "replay example:", err)
		return 2
	}
	status := recordAndReplay(ctx, w, broken, filepath.Join(dir, "trajectory.jsonl"))
	if status == 1 {
		fmt.Fprintf(w, "The recording is kept in %s.\n", dir)
	} else {
		_ = os.RemoveAll(dir)
	}
	return status
}

// recordAndReplay records the agent into path, replays the recording and
// says how the replay went, returning run's exit status.
func recordAndReplay(ctx context.Context, w io.Writer, broken bool, path string) int {
	recorded, err := record(ctx, path)
	if err != nil {
		fmt.Fprintln(w, "replay example: recording:", err)
		return 2
	}
	fmt.Fprintf(w, "Recorded the quickstart agent on its scripted model: %s.\n", summary(recorded))

	cassette, err := replay.Load(path, nil)
	if err != nil {
		fmt.Fprintln(w, "replay example:", err)
		return 2
	}
	replayed, again, err := replayFrom(ctx, cassette, broken)
	if err != nil {
		fmt.Fprintln(w, "replay example:", err)
		return 2
	}
	return judge(w, path, cassette, recorded, replayed, again)
}

// replayFrom runs the agent again on the cassette, with run_tests'
// result changed when broken, and returns how it went and what it
// recorded.
func replayFrom(ctx context.Context, cassette *replay.Cassette, broken bool) (outcome, []recorder.Record, error) {
	tools := migrator.Tools()
	if broken {
		tools[3] = changed{tools[3].(tool.InvokableTool)}
	}
	// Every tool answers from the recording but run_tests, which runs.
	tools, err := cassette.Tools(ctx, tools, "run_tests")
	if err != nil {
		return outcome{}, nil, err
	}
	// The replay is recorded too, to compare with the recording. The
	// cassette's middleware runs the calls of a reply in their recorded
	// order, so that each takes its recorded call index.
	again := recorder.NewMemorySink()
	rec := recorder.New(again, nil)
	replayed := runAgent(ctx, cassette.Model(), tools, rec, cassette.Now, cassette.Middleware())
	if err := rec.Close(ctx); err != nil {
		return outcome{}, nil, err
	}
	return replayed, again.Records(), nil
}

// judge compares the replay, replayed with its records again, with the
// recording at path, says how it went and returns run's exit status.
func judge(w io.Writer, path string, cassette *replay.Cassette, recorded, replayed outcome, again []recorder.Record) int {
	var d *replay.DivergenceError
	if errors.As(cassette.Err(), &d) {
		fmt.Fprintf(w, "The replay left the recording:\n%v\n", d)
		return 1
	}
	if replayed.err != nil {
		fmt.Fprintln(w, "replay example: the replay failed:", replayed.err)
		return 2
	}
	original, _, err := recorder.ReadFile(path)
	if err != nil {
		fmt.Fprintln(w, "replay example:", err)
		return 2
	}
	want, got := events(original), events(again)
	if differs(cassette, recorded, replayed, want, got) {
		fmt.Fprintf(w, "The replay differs: %s, %d recorded model calls not played.\n", summary(replayed), cassette.Remaining())
		if i, ok := firstDifference(want, got); ok {
			fmt.Fprintf(w, "recorded: %s\nreplayed: %s\n", at(want, i), at(got, i))
		}
		return 1
	}
	fmt.Fprintf(w, "Replayed without the model: the replay matched the recording: the same budget (%s), the same %d events (tool calls with their indices, assessments, budget charges) and the same final answer.\nFinal answer: %s\n",
		summary(replayed), len(want), replayed.final)
	return 0
}

// differs reports whether the replay differs from the recording: in its
// budget, its final answer, its events, or in model calls left unplayed.
func differs(cassette *replay.Cassette, recorded, replayed outcome, want, got []string) bool {
	return summary(replayed) != summary(recorded) || replayed.final != recorded.final || cassette.Remaining() != 0 || !slices.Equal(want, got)
}

// firstDifference returns the first index at which want and got differ,
// counting a missing event as different.
func firstDifference(want, got []string) (int, bool) {
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) || want[i] != got[i] {
			return i, true
		}
	}
	return 0, false
}

// events lists what a trajectory says happened, in order, without times
// and ids: tool calls with their indices and results, assessments and
// budget events.
func events(records []recorder.Record) []string {
	var out []string
	for _, r := range records {
		switch p := r.Payload.(type) {
		case *recorder.ToolEnded:
			out = append(out, fmt.Sprintf("tool call #%d %s: %q %q", p.CallIndex, p.Name, p.Result, p.Error))
		case *recorder.AssessmentRecord:
			out = append(out, fmt.Sprintf("assessment after #%d: %s", p.AfterCallIndex, p.Markdown))
		case *recorder.BudgetRecord:
			out = append(out, fmt.Sprintf("budget %s %s: %d, %d of %d", p.Event, p.Resource, p.Amount, p.Used, p.Limit))
		}
	}
	return out
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(nothing)"
}

// outcome is what a run of the agent did.
type outcome struct {
	final  string
	budget budget.Budget
	err    error
}

func summary(o outcome) string {
	b := o.budget
	return fmt.Sprintf("%s tokens in %d model calls, %d tool calls", observer.FormatCount(b.TokensUsed), b.ModelCalls, b.ToolCalls)
}

// record runs the agent on its scripted model, recording to path.
func record(ctx context.Context, path string) (outcome, error) {
	sink, err := recorder.NewFileSink(path, nil)
	if err != nil {
		return outcome{}, err
	}
	rec := recorder.New(sink, nil)
	o := runAgent(ctx, migrator.Script(), migrator.Tools(), rec, nil)
	if err := rec.Close(ctx); err != nil {
		return o, err
	}
	return o, o.err
}

// runAgent runs the agent once on chat and tools.
func runAgent(ctx context.Context, chat model.ToolCallingChatModel, tools []tool.BaseTool, rec *recorder.Recorder, now func() time.Time, first ...adk.ChatModelAgentMiddleware) outcome {
	mw, err := lookoutadk.New(ctx, migrator.Config(rec, now))
	if err != nil {
		return outcome{err: err}
	}
	agent, err := migrator.NewAgent(ctx, chat, tools, append(first, mw)...)
	if err != nil {
		return outcome{err: err}
	}
	store := session.New(nil)
	ctx = session.NewContext(ctx, store)
	var o outcome
	o.final, o.err = migrator.Drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}).Query(ctx, migrator.Task))
	o.budget, _ = lookout.BudgetOf(store)
	return o
}

// changed is run_tests as -break makes it: the tests pass.
type changed struct{ tool.InvokableTool }

func (changed) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return "ok  \tbilling\t0.012s", nil
}
