package lookoutadk_test

import (
	"context"
	"testing"
)

// iterationAllocs is how many heap allocations one model+tool iteration of
// an agent of the given kind makes (see newSubject), Recorder included:
// the difference between runs of few and many sequential tool calls,
// spread over the calls between them, so that what a run costs once
// (building the agent, starting and ending the run) cancels out.
func iterationAllocs(t *testing.T, kind int) float64 {
	return iterationAllocsOf(t, func(tb testing.TB, w workload) *subject { return newSubject(tb, kind, w, nil) })
}

// iterationAllocsOf is iterationAllocs for the agents build makes.
func iterationAllocsOf(t *testing.T, build func(testing.TB, workload) *subject) float64 {
	const few, many = 100, 300
	perRun := func(calls int) float64 {
		return testing.AllocsPerRun(3, func() {
			s := build(t, sequential(calls))
			if err := s.run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if dropped := s.close(t); dropped != 0 {
				t.Fatalf("the Recorder dropped %d records", dropped)
			}
		})
	}
	return (perRun(many) - perRun(few)) / (many - few)
}

// maxAllocsAboveNothing bounds what the whole of Lookout (limits, the
// Resource observer every 10 calls, recording into a memory sink, the
// agent wrapped by Middleware.Agent) allocates per model+tool iteration
// above the do-nothing middleware: the gate of docs/performance.md.
const maxAllocsAboveNothing = 4.0

func TestIterationAllocatesLittleMoreThanADoNothingMiddleware(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	if testing.Short() {
		t.Skip("runs agents of hundreds of tool calls")
	}
	holdAllocsAbove(t, "per iteration", iterationAllocs, maxAllocsAboveNothing)
}

// maxObserverAllocsAboveNothing bounds what the four built-in observers
// after every call, recording into a memory sink, allocate per model+tool
// iteration above the do-nothing middleware: the gate of
// docs/performance.md.
const maxObserverAllocsAboveNothing = 8.0

func TestObserversOnEveryCallAllocateLittleMoreThanADoNothingMiddleware(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	if testing.Short() {
		t.Skip("runs agents of hundreds of tool calls")
	}
	nothing := iterationAllocsOf(t, instructionCases["nothing"])
	observers := iterationAllocsOf(t, instructionCases["observers"])
	added := observers - nothing
	t.Logf("allocations per iteration: do-nothing middleware %.2f, four observers %.2f, added %.2f (at most %g)", nothing, observers, added, maxObserverAllocsAboveNothing)
	if added > maxObserverAllocsAboveNothing {
		t.Errorf("the four observers make %.2f allocations per iteration above the do-nothing middleware, more than %g", added, maxObserverAllocsAboveNothing)
	}
}

// holdAllocsAbove counts with count the allocations of the do-nothing
// middleware's agent and of Lookout's, and fails t when Lookout's are
// more than bound above the other's.
func holdAllocsAbove(t *testing.T, what string, count func(*testing.T, int) float64, bound float64) {
	nothing := count(t, nothingAgent)
	lookout := count(t, lookoutAgent)
	added := lookout - nothing
	t.Logf("allocations %s: do-nothing middleware %.2f, Lookout %.2f, added %.2f (at most %g)", what, nothing, lookout, added, bound)
	if added > bound {
		t.Errorf("Lookout makes %.2f allocations %s above the do-nothing middleware, more than %g", added, what, bound)
	}
}

// runAllocs is how many heap allocations a run of an agent of the given
// kind that answers at once, with no tool call, makes, with what its
// Recorder allocates delivering the run's records; the agents are built
// beforehand, as BenchmarkRunFixedCost builds them.
func runAllocs(t *testing.T, kind int) float64 {
	const runs = 20
	subjects := make([]*subject, runs+1) // AllocsPerRun runs once more first
	for i := range subjects {
		subjects[i] = newSubject(t, kind, oneAnswer, nil)
	}
	defer func() {
		for _, s := range subjects {
			s.close(t)
		}
	}()
	next := 0
	return testing.AllocsPerRun(runs, func() {
		s := subjects[next]
		next++
		if err := s.run(context.Background()); err != nil {
			t.Fatal(err)
		}
		s.flush(t)
	})
}

// maxRunAllocsAboveNothing bounds what a run of the whole of Lookout
// allocates once, above the do-nothing middleware: 86 today. About 5 of
// them are the iterator relay of mw.Agent, one the bound, Config.EndWait,
// on the Recorder's flush at the query's end, which keeps the records of
// a program that exits on the query's end, and 12 the callback context
// with which the run's first model call is asked for its model.
const maxRunAllocsAboveNothing = 90

func TestARunAllocatesAFixedFewMoreThanADoNothingMiddleware(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	holdAllocsAbove(t, "per run answering at once", runAllocs, maxRunAllocsAboveNothing)
}
