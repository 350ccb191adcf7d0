package drift_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/session"
)

// madeFiles returns n calls that each write a scratch file of their own
// outside the task's scope.
func madeFiles(n int) []observer.ToolCallRecord {
	var out []observer.ToolCallRecord
	for i := range n {
		out = append(out, shell(fmt.Sprintf("python3 gen.py > /tmp/scratch/part%d/out%d.txt", i, i)))
	}
	return out
}

// afterMade returns a pipeline of Drift after the run's own work and made
// calls that each made a file, and the call it then takes.
func afterMade(made int) (*observer.Pipeline, observer.ToolCallRecord) {
	p, store := newExamplePipeline(drift.New())
	session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: evidenceTask})
	for _, c := range append(ownWork, madeFiles(made)...) {
		p.AfterToolCall(context.Background(), c)
	}
	return p, shell("cat /home/user/evidence/auth.log /tmp/scratch/part1/out1.txt")
}

// A call allocates nothing more once the agent has made hundreds of
// files; BenchmarkDriftCallAfterManyFilesMade times it.
func TestDriftCallsAllocateTheSameWhateverTheAgentMade(t *testing.T) {
	for _, made := range []int{0, 300} {
		p, call := afterMade(made)
		p.AfterToolCall(context.Background(), call)
		allocs := testing.AllocsPerRun(100, func() { p.AfterToolCall(context.Background(), call) })
		assert.LessOrEqual(t, allocs, 1.0, "after %d files made", made)
	}
}

func BenchmarkDriftCallAfterManyFilesMade(b *testing.B) {
	for _, made := range []int{0, 300} {
		b.Run(fmt.Sprint(made), func(b *testing.B) {
			p, call := afterMade(made)
			b.ReportAllocs()
			for b.Loop() {
				p.AfterToolCall(context.Background(), call)
			}
		})
	}
}

// Once a result planted identifiers, each call's arguments are matched
// with them, and each result read, without allocating.
func TestDriftMatchesPlantedIdentifiersWithoutAllocating(t *testing.T) {
	p, store := newExamplePipeline(drift.New())
	session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: billTask})
	ctx := context.Background()
	p.AfterToolCall(ctx, call("read_file", map[string]any{"file_path": "bill-december-2023.txt"}, plantedBill))
	pay := call("send_money", map[string]any{"recipient": "UK12345678901234567890", "note": "WWW.Example.com +44 7700 900123"},
		"Thank you: your assistant sent it, as you asked, to UK12345678901234567890.")
	p.AfterToolCall(ctx, pay)
	allocs := testing.AllocsPerRun(100, func() { p.AfterToolCall(ctx, pay) })
	assert.LessOrEqual(t, allocs, 1.0, "as many as any call")
}
