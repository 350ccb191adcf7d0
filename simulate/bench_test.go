package simulate

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// BenchmarkBatch runs 200 scripted conversations of 10 turns each at
// concurrency 8, the project's simulation throughput target (≤ 5 s per op).
// Each agent turn makes one tool call, so every trace holds three messages.
func BenchmarkBatch(b *testing.B) { benchBatch(b, 200) }

// BenchmarkBatch10k runs 10,000 scripted conversations of 10 turns at
// concurrency 8, writing every artifact and marker: the scale target (≤ 15
// s per op with artifacts).
func BenchmarkBatch10k(b *testing.B) { benchBatch(b, 10_000) }

func benchBatch(b *testing.B, conversations int) {
	const turns = 10
	scs := make([]*Scenario, conversations)
	for i := range scs {
		scs[i] = &Scenario{
			Name: fmt.Sprintf("s%05d", i), Goal: "plan a trip", MaxTurns: turns,
			Persona: Persona{Name: "Ana", Description: "traveller", Guardrails: []string{"stay polite"}},
		}
	}
	user := func() *fakeModel {
		return &fakeModel{fn: func(int, []*schema.Message) (*schema.Message, error) {
			return schema.AssistantMessage("Any flights to Lisbon next Friday?", nil), nil
		}}
	}
	setup := func(context.Context, Job) (*Runner, Target, error) {
		return &Runner{UserModel: user()}, toolTarget(func(int) string { return "search_flights" }), nil
	}
	for _, withFiles := range []bool{false, true} {
		name := "memory"
		if withFiles {
			name = "artifacts"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				batch := &Batch{Scenarios: scs, Concurrency: 8, Setup: setup, Progress: io.Discard}
				if withFiles {
					batch.OutDir = b.TempDir()
				}
				rep, err := batch.Run(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if rep.Ran != conversations || rep.Failed != 0 {
					b.Fatalf("ran %d, failed %d", rep.Ran, rep.Failed)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*conversations*turns), "ns/turn")
		})
	}
}
