package simulate_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/lookout-go/lookout/simulate"
)

// A user who stops the conversation before anything was booked: the stop
// is reported with the goals it left unmet.
func ExampleScenario_stopSignal() {
	scenario := &simulate.Scenario{
		ConversationID: "impatient",
		Goal:           "book a flight to Lisbon",
		Opening:        "Any flights to Lisbon on Friday?",
		StopSignal:     "###DONE###",
		Goals:          []simulate.Goal{simulate.ToolCalled("book")},
	}
	runner := &simulate.Runner{UserModel: &lines{says: []string{"Too expensive. ###DONE###"}}}
	res, _ := runner.Run(context.Background(), scenario, bookingAgent)
	fmt.Println(res.End.Reason, res.End.Completed, res.End.UnmetGoals)
	fmt.Println(res.End.Summary)
	// Output:
	// user-stop false [called book]
	// impatient: stopped with user-stop after 1 turn; goal not completed. The user stopped the conversation with unmet goals: called book.
	// Goals: called book not met.
}

// A batch of two scenarios, four repetitions each, merged into one dataset
// and summed up.
func ExampleMerge() {
	out, _ := os.MkdirTemp("", "batch")
	defer os.RemoveAll(out)
	batch := &simulate.Batch{
		Scenarios: []*simulate.Scenario{
			{Name: "book", Goal: "book TP123", Opening: "Please book TP123.", MaxTurns: 1, Goals: []simulate.Goal{simulate.ToolCalled("book")}},
			{Name: "browse", Goal: "book TP123", Opening: "Any flights?", MaxTurns: 1, Goals: []simulate.Goal{simulate.ToolCalled("book")}},
		},
		Repetitions: 4,
		OutDir:      out,
		Progress:    io.Discard,
		Runner:      &simulate.Runner{UserModel: &lines{says: []string{"unused"}}},
		Target:      bookingAgent,
	}
	if _, err := batch.Run(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	var dataset bytes.Buffer
	rep, _ := simulate.Merge(&dataset, simulate.MergeOptions{}, out)
	fmt.Printf("merged %d runs, %d lines, %d unfinished\n", rep.Runs, rep.Lines, len(rep.Unfinished))

	s, _ := simulate.ReadBatch([]string{out}, nil, nil)
	fmt.Printf("completion %.2f, stop reasons %v\n", s.CompletionRate, s.StopReasons)
	fmt.Printf("pass^1 %.2f, pass^4 %.2f\n", s.PassK[0], s.PassK[3])
	// Output:
	// merged 8 runs, 8 lines, 0 unfinished
	// completion 0.50, stop reasons map[goal-reached:4 max-turns:4]
	// pass^1 0.50, pass^4 0.50
}

// ShardFromEnv outside Kubernetes: one shard holding every job.
func ExampleShardFromEnv() {
	os.Unsetenv(simulate.EnvShard)
	shard, shards, err := simulate.ShardFromEnv()
	fmt.Println(shard, shards, err)
	// Output:
	// 0 1 <nil>
}
