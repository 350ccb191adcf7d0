package simulate

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// BenchmarkBatch runs 200 scripted conversations of 10 turns each at
// concurrency 8, the project's simulation throughput target (≤ 5 s per op).
// Each agent turn makes one tool call, so every trace holds three messages.
func BenchmarkBatch(b *testing.B) { benchBatch(b, 200) }

// BenchmarkBatch10k runs 10,000 scripted conversations of 10 turns at
// concurrency 8, writing every artifact and marker: the scale target (≤ 15
// s per op with artifacts). It runs them again with the cache of the
// user's replies (Runner.CacheDir) cold, filled as the batch goes, and
// warm, filled beforehand: the warm batch makes no user model call.
func BenchmarkBatch10k(b *testing.B) { benchBatch(b, 10_000) }

// benchModes are the ways benchBatch runs its batches: in memory, with
// artifacts, and with artifacts and the cache, cold or warm.
// "artifacts-unsynced" writes them without syncing them to disk, which
// shows what the syncs cost.
var benchModes = []struct {
	name        string
	files, sync bool
	cache, warm bool
}{
	{"memory", false, true, false, false},
	{"artifacts", true, true, false, false},
	{"artifacts-unsynced", true, false, false, false},
	{"artifacts-cache-cold", true, true, true, false},
	{"artifacts-cache-warm", true, true, true, true},
}

func benchBatch(b *testing.B, conversations int) {
	const turns = 10
	scs := make([]*Scenario, conversations)
	for i := range scs {
		scs[i] = &Scenario{
			Name: fmt.Sprintf("s%05d", i), Goal: "plan a trip", MaxTurns: turns,
			Persona: Persona{Name: "Ana", Description: "traveller", Guardrails: []string{"stay polite"}},
		}
	}
	var userCalls atomic.Int64
	user := func() *fakeModel {
		return &fakeModel{fn: func(int, []*schema.Message) (*schema.Message, error) {
			userCalls.Add(1)
			return schema.AssistantMessage("Any flights to Lisbon next Friday?", nil), nil
		}}
	}
	for _, mode := range benchModes {
		if conversations < 10_000 && mode.cache {
			continue
		}
		b.Run(mode.name, func(b *testing.B) {
			if !mode.sync {
				file, dir := syncFile, syncDir
				syncFile, syncDir = func(*os.File) error { return nil }, func(string) error { return nil }
				defer func() { syncFile, syncDir = file, dir }()
			}
			cache := ""
			setup := func(context.Context, Job) (*Runner, Target, error) {
				return &Runner{UserModel: user(), CacheDir: cache}, toolTarget(func(int) string { return "search_flights" }), nil
			}
			run := func(out string) {
				batch := &Batch{Scenarios: scs, Concurrency: 8, Setup: setup, Progress: io.Discard, OutDir: out}
				rep, err := batch.Run(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if rep.Ran != conversations || rep.Failed != 0 {
					b.Fatalf("ran %d, failed %d", rep.Ran, rep.Failed)
				}
			}
			if mode.warm {
				cache = b.TempDir()
				run(b.TempDir())
			}
			userCalls.Store(0)
			b.ReportAllocs()
			for b.Loop() {
				if mode.cache && !mode.warm {
					cache = b.TempDir()
				}
				out := ""
				if mode.files {
					out = b.TempDir()
				}
				run(out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*conversations*turns), "ns/turn")
			b.ReportMetric(float64(userCalls.Load())/float64(b.N), "user-calls/op")
		})
	}
}
