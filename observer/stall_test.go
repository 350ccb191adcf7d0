package observer_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

func TestStallFiresOnFourIdenticalActionObservationPairs(t *testing.T) {
	h := newHarness(t, detectors()...)
	h.run(times(4, readFile("go.mod", "module example.com/app"))...)

	assert.Equal(t, []string{"Stall@4"}, h.firings(), "quiet for the first three, then only Stall")
	a := h.mustAt(4, "Stall")
	assert.Equal(t, observer.Info, a.Severity, "the first report is a nudge")
	require.Len(t, a.Observations, 1)
	assert.Equal(t, "repeat", a.Observations[0].Category)
	assert.Contains(t, a.Observations[0].Description, "`read_file` was called 4 times")
	assert.Contains(t, a.Observations[0].Description, "(calls #1 to #4)")
	assert.Equal(t, []string{
		"#1 read_file path=go.mod",
		"#2 read_file path=go.mod",
		"#3 read_file path=go.mod",
		"#4 read_file path=go.mod",
	}, evidenceLines(a))
}

func TestStallAndErrorsFireOnThreeIdenticalFailingActions(t *testing.T) {
	h := newHarness(t, detectors()...)
	h.run(times(3, failed("write_file", `{"path":"/etc/app.conf","content":"x"}`, "open /etc/app.conf: permission denied"))...)

	assert.Equal(t, []string{"Errors@2", "Stall@3", "Errors@3"}, h.firings(), "Errors at the first unchanged retry")
	stall := h.mustAt(3, "Stall")
	assert.Contains(t, stall.Summary, "keeps failing the same way")
	assert.Contains(t, stall.Observations[0].Description, "`write_file` was called 3 times")
	assert.Equal(t, "#3 write_file path=/etc/app.conf content=x (failed: open /etc/app.conf: permission denied)", evidenceLines(stall)[2])

	errs := h.mustAt(3, "Errors")
	assert.Equal(t, "The last 3 calls all failed with `open <path>: permission denied`.", errs.Summary)
}

func TestStallFiresOnABAlternationOverSixCalls(t *testing.T) {
	a := readFile("internal/pay/pay.go", "package pay")
	b := succeeded("run_tests", `{"package":"./internal/pay"}`, "FAIL: TestRound (0.00s)")
	h := newHarness(t, detectors()...)
	h.run(a, b, a, b, a, b)

	assert.Equal(t, []string{"Stall@6"}, h.firings())
	got := h.mustAt(6, "Stall")
	assert.Equal(t, "oscillation", got.Observations[0].Category)
	assert.Equal(t, "The last 6 calls alternated between `read_file path=internal/pay/pay.go` and "+
		"`run_tests package=./internal/pay`, with the same results each time.", got.Observations[0].Description)
	assert.Equal(t, []string{
		"#1 read_file path=internal/pay/pay.go",
		"#2 run_tests package=./internal/pay",
		"#3 read_file path=internal/pay/pay.go",
		"#4 run_tests package=./internal/pay",
		"#5 read_file path=internal/pay/pay.go",
		"#6 run_tests package=./internal/pay",
	}, evidenceLines(got))
}

func TestStallFiresThroughoutFiftyIdenticalReadsAndEscalates(t *testing.T) {
	h := newHarness(t, detectors()...)
	h.run(times(50, readFile("config.yaml", "port: 8080"))...)

	severities := map[int]observer.Severity{}
	for i := 4; i <= 50; i++ {
		severities[i] = h.mustAt(i, "Stall").Severity
	}
	assert.Equal(t, observer.Info, severities[4])
	assert.Equal(t, observer.Info, severities[5])
	assert.Equal(t, observer.Caution, severities[6], "caution 2 calls after the first report")
	assert.Equal(t, observer.Caution, severities[9])
	assert.Equal(t, observer.Warning, severities[10], "warning 6 calls after the first report")
	assert.Equal(t, observer.Warning, severities[50])

	last := h.mustAt(50, "Stall")
	assert.Contains(t, last.Observations[0].Description, "was called 50 times")
	assert.Contains(t, last.Observations[0].Description, "(calls #1 to #50)")
	assert.Equal(t, []string{
		"#1 read_file path=config.yaml",
		"… 46 more calls …",
		"#48 read_file path=config.yaml",
		"#49 read_file path=config.yaml",
		"#50 read_file path=config.yaml",
	}, evidenceLines(last))
	assert.Contains(t, last.Suggestions, "If you cannot make progress this way, stop and report what is blocking you.")
}

func TestStallWriteBack(t *testing.T) {
	t.Run("it fires when a write repeats an earlier write of the cycle", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(
			readFile("config.yaml", "port: 80"),
			writeFile("config.yaml", "port: 8080"),
			readFile("config.yaml", "port: 80"),
			writeFile("config.yaml", "port: 8080"),
		)
		assert.Equal(t, []string{"Stall@4"}, h.firings())
		a := h.mustAt(4, "Stall")
		assert.Equal(t, "write_back", a.Observations[0].Category)
		assert.Equal(t, "You keep reading and rewriting `config.yaml` without making progress.", a.Summary)
		assert.Equal(t, []string{
			"#1 read_file path=config.yaml",
			"#2 write_file path=config.yaml content=port: 8080",
			"#3 read_file path=config.yaml",
			"#4 write_file path=config.yaml content=port: 8080",
		}, evidenceLines(a))
	})
	t.Run("it fires when a toggle brings back content read before", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(
			readFile("flags.json", "on"),
			writeFile("flags.json", "off"),
			readFile("flags.json", "off"),
			writeFile("flags.json", "on"),
			readFile("flags.json", "on"),
		)
		assert.Equal(t, []string{"Stall@5"}, h.firings())
		assert.Equal(t, "write_back", h.mustAt(5, "Stall").Observations[0].Category)
	})
	t.Run("it stays quiet while each edit changes the file", func(t *testing.T) {
		h := newHarness(t, stall.New())
		for i := range 6 {
			h.run(readFile("main.go", fmt.Sprintf("version %d", i)), writeFile("main.go", fmt.Sprintf("version %d", i+1)))
		}
		assert.Empty(t, h.firings())
	})
	t.Run("it stays quiet while each edit succeeds, though reads show only the file's unchanged start", func(t *testing.T) {
		// The adapter keeps about 1 KiB of a result: re-reading a longer
		// file after each edit of its end gets the same text every time.
		head := "package billing\n" + strings.Repeat("// Licensed under the Apache License.\n", 30)
		h := newHarness(t, stall.New())
		for i := range 6 {
			h.run(readFile("invoice.go", head), succeeded("edit_file",
				fmt.Sprintf(`{"path":"invoice.go","old_string":"round%d(","new_string":"roundHalfEven%d("}`, i, i), "ok"))
		}
		assert.Empty(t, h.firings())
	})
	t.Run("it fires when edits fail and the same content is read back", func(t *testing.T) {
		h := newHarness(t, &stall.Detector{FailedRepeats: -1})
		for i := range 2 {
			h.run(readFile("invoice.go", "package billing"),
				failed("edit_file", fmt.Sprintf(`{"path":"invoice.go","old_string":"x%d"}`, i), "old_string not found"))
		}
		assert.Equal(t, []string{"Stall@4"}, h.firings())
	})
	t.Run("it goes quiet once a new edit succeeds", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(
			readFile("config.yaml", "port: 80"),
			writeFile("config.yaml", "port: 8080"),
			readFile("config.yaml", "port: 80"),
			writeFile("config.yaml", "port: 8080"),
			readFile("config.yaml", "port: 80"),
			writeFile("config.yaml", "listen: 8080"),
			readFile("config.yaml", "listen: 8080"),
			writeFile("config.yaml", "listen: 8080\nhost: 0.0.0.0"),
			readFile("config.yaml", "listen: 8080\nhost: 0.0.0.0"),
		)
		assert.Equal(t, []string{"Stall@4", "Stall@5"}, h.firings())
	})
	t.Run("it reports a cycle that starts repeating late at info first", func(t *testing.T) {
		h := newHarness(t, stall.New())
		for i := range 4 {
			h.run(readFile("main.go", fmt.Sprintf("version %d", i)), writeFile("main.go", fmt.Sprintf("version %d", i+1)))
		}
		h.run(readFile("main.go", "version 4"), writeFile("main.go", "version 4"), readFile("main.go", "version 4"))
		assert.Equal(t, []string{"Stall@10", "Stall@11"}, h.firings())
		assert.Equal(t, observer.Info, h.mustAt(10, "Stall").Severity, "the first report is a nudge")
		assert.Contains(t, h.mustAt(10, "Stall").Observations[0].Description, "read and written in turn 10 times (calls #1 to #10)")
	})
	t.Run("it classifies tools named in ReadTools and WriteTools", func(t *testing.T) {
		h := newHarness(t, &stall.Detector{ReadTools: []string{"peek"}, WriteTools: []string{"poke"}})
		peek := succeeded("peek", `{"key":"a"}`, "1")
		poke := succeeded("poke", `{"key":"a","value":"2"}`, "ok")
		h.run(peek, poke, peek, poke)
		assert.Equal(t, "write_back", h.mustAt(4, "Stall").Observations[0].Category)
	})
	t.Run("it reads access from the words of a tool's name", func(t *testing.T) {
		h := newHarness(t, stall.New())
		read := succeeded("FileViewer", `{"file_path":"a.txt"}`, "1")
		write := succeeded("str_replace_editor", `{"file_path":"a.txt","old":"1","new":"2"}`, "ok")
		h.run(read, write, read, write)
		assert.Equal(t, "write_back", h.mustAt(4, "Stall").Observations[0].Category)
	})
}

func TestStallIgnoresVolatileFields(t *testing.T) {
	h := newHarness(t, stall.New())
	for i := range 4 {
		args := fmt.Sprintf(`{"url":"https://api.example.com/v1/orders","request_id":"req-%d","timestamp":"2026-01-15T14:0%d:00Z"}`, i, i)
		result := fmt.Sprintf(`{"orders":[],"fetched_at":"2026-01-15T14:0%d:00Z","trace":"%08x-aaaa-bbbb-cccc-1234567890ab"}`, i, i)
		h.run(succeeded("http_get", args, result))
	}
	assert.Equal(t, []string{"Stall@4"}, h.firings())
}

func TestStallTreatsReorderedJSONKeysAsTheSameCall(t *testing.T) {
	h := newHarness(t, stall.New())
	h.run(
		succeeded("search", `{"q":"rounding","limit":10}`, "no results"),
		succeeded("search", `{"limit":10,"q":"rounding"}`, "no results"),
		succeeded("search", `{ "limit": 10, "q": "rounding" }`, "no results"),
		succeeded("search", `{"q":"rounding","limit":10}`, "no results"),
	)
	assert.Equal(t, []string{"Stall@4"}, h.firings())
}

func TestStallStaysQuietWhenAPollingToolsResultsKeepChanging(t *testing.T) {
	h := newHarness(t, &stall.Detector{PollingTools: []string{"job_status"}})
	for i := range 10 {
		h.run(succeeded("job_status", `{"id":"build-7"}`, fmt.Sprintf("running: %d%% done", i*10)))
	}
	assert.Empty(t, h.firings())
}

func TestStallCountsPollingToolsOnlyUpToTheirCap(t *testing.T) {
	poll := succeeded("job_status", `{"id":"build-7"}`, "running")
	t.Run("a declared polling tool is quiet below its cap", func(t *testing.T) {
		h := newHarness(t, &stall.Detector{PollingTools: []string{"job_status"}})
		h.run(times(stall.DefaultPollingCap-1, poll)...)
		assert.Empty(t, h.firings())
	})
	t.Run("a declared polling tool is reported as no progress at its cap", func(t *testing.T) {
		h := newHarness(t, &stall.Detector{PollingTools: []string{"job_status"}})
		last := h.run(times(12, poll)...)
		assert.Equal(t, []string{"Stall@10", "Stall@11", "Stall@12"}, h.firings())
		require.NotNil(t, last)
		assert.Equal(t, "no_progress", last.Assessments[0].Observations[0].Category)
	})
	t.Run("a declared cap is kept", func(t *testing.T) {
		h := newHarness(t, &stall.Detector{PollingTools: []string{"job_status"}, PollingCap: 3})
		h.run(times(3, poll)...)
		assert.Equal(t, []string{"Stall@3"}, h.firings())
	})
	t.Run("a negative cap never reports", func(t *testing.T) {
		h := newHarness(t, &stall.Detector{PollingTools: []string{"job_status"}, PollingCap: -1})
		h.run(times(30, poll)...)
		assert.Empty(t, h.firings())
	})
	t.Run("the same calls to an undeclared tool fire", func(t *testing.T) {
		h := newHarness(t, stall.New())
		h.run(times(4, poll)...)
		assert.Equal(t, []string{"Stall@4"}, h.firings())
	})
	t.Run("a polling tool in an alternation is quiet", func(t *testing.T) {
		h := newHarness(t, &stall.Detector{PollingTools: []string{"job_status"}})
		wait := succeeded("sleep", `{"seconds":5}`, "slept")
		h.run(concat(times(1, wait), times(1, poll), times(1, wait), times(1, poll), times(1, wait), times(1, poll))...)
		assert.Empty(t, h.firings())
	})
}

func TestStallGoesQuietOnceTheAgentMovesOn(t *testing.T) {
	h := newHarness(t, stall.New())
	h.run(times(4, readFile("go.mod", "module x"))...)
	for i := range 5 {
		h.run(readFile(fmt.Sprintf("pkg/file%d.go", i), "package pkg"))
	}
	assert.Equal(t, []string{"Stall@4"}, h.firings())
}

func TestStallPrefersOscillationOverTheRepeatsInIt(t *testing.T) {
	a := readFile("a.go", "A")
	b := readFile("b.go", "B")
	h := newHarness(t, stall.New())
	h.run(a, b, a, b, a, b, a, b)
	got := h.mustAt(8, "Stall")
	assert.Equal(t, "oscillation", got.Observations[0].Category, "a.go was read 4 times, but the alternation says more")
	assert.Equal(t, observer.Caution, got.Severity)
}

func TestStallThresholdsAreConfigurable(t *testing.T) {
	read := readFile("go.mod", "module x")
	tests := []struct {
		name  string
		stall *stall.Detector
		calls []observer.ToolCallRecord
		want  []string
	}{
		{"two repeats", &stall.Detector{Repeats: 2}, times(2, read), []string{"Stall@2"}},
		{"repeats turned off", &stall.Detector{Repeats: -1}, times(8, read), nil},
		{"five failed repeats", &stall.Detector{FailedRepeats: 5}, times(5, failed("x", `{}`, "boom")), []string{"Stall@5"}},
		{"a window too short for four repeats", &stall.Detector{Window: 3}, concat(times(1, read), times(1, readFile("a", "1")), times(1, readFile("b", "2")), times(3, read)), nil},
		{"oscillation over four calls", &stall.Detector{Oscillation: 4}, []observer.ToolCallRecord{read, readFile("a", "1"), read, readFile("a", "1")}, []string{"Stall@4"}},
		{"oscillation turned off", &stall.Detector{Oscillation: -1, Repeats: -1}, concat(times(1, read), times(1, readFile("a", "1")), times(1, read), times(1, readFile("a", "1")), times(1, read), times(1, readFile("a", "1"))), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.stall)
			h.run(tt.calls...)
			assert.Equal(t, tt.want, h.firings())
		})
	}
}

func TestStallEscalationIsConfigurable(t *testing.T) {
	h := newHarness(t, &stall.Detector{Escalation: observer.Escalation{CautionAfter: 0, WarningAfter: 1}})
	h.run(times(5, readFile("go.mod", "module x"))...)
	assert.Equal(t, observer.Caution, h.mustAt(4, "Stall").Severity, "caution from the first report")
	assert.Equal(t, observer.Warning, h.mustAt(5, "Stall").Severity)

	never := newHarness(t, &stall.Detector{Escalation: observer.Escalation{CautionAfter: -1, WarningAfter: -1}})
	never.run(times(30, readFile("go.mod", "module x"))...)
	assert.Equal(t, observer.Info, never.mustAt(30, "Stall").Severity)
}

func TestStallValidate(t *testing.T) {
	for _, s := range []*stall.Detector{{Window: 1}, {Window: -1}, {Repeats: 1}, {FailedRepeats: 1}, {Oscillation: 2}, {WriteBack: 2}} {
		_, err := observer.NewPipeline(session.New(nil), []observer.Spec{{Observer: s, Trigger: observer.Trigger{OnEveryCall: true}}}, nil)
		assert.ErrorIs(t, err, observer.ErrInvalidConfig, "%+v", *s)
	}
	assert.NoError(t, stall.New().Validate())
}

func TestStallRebuildsItsWindowAfterARestore(t *testing.T) {
	read := readFile("go.mod", "module x")
	h := newHarness(t, stall.New())
	h.run(times(3, read)...)
	snap, err := h.store.Snapshot()
	require.NoError(t, err)

	t.Run("in a new pipeline, as after a checkpoint resume", func(t *testing.T) {
		resumed := newHarness(t, stall.New())
		require.NoError(t, resumed.store.Restore(snap))
		resumed.run(read)
		assert.Equal(t, "repeat", resumed.mustAt(1, "Stall").Observations[0].Category,
			"the fourth identical call, counting the three restored ones")
	})
	t.Run("in the same pipeline, rolled back to different calls", func(t *testing.T) {
		other := newHarness(t, stall.New())
		other.run(readFile("a", "1"), readFile("b", "2"), readFile("c", "3"))
		otherSnap, err := other.store.Snapshot()
		require.NoError(t, err)

		h.run(read) // the fourth identical call here
		assert.NotNil(t, h.produced[3])
		require.NoError(t, h.store.Restore(otherSnap))
		h.run(read)
		assert.Nil(t, h.produced[4], "after the restore, go.mod was read once")
	})
	t.Run("in the same pipeline, replaced by as many other calls", func(t *testing.T) {
		same := newHarness(t, stall.New())
		same.run(times(3, read)...)
		other := newHarness(t, stall.New())
		other.run(readFile("a", "1"), readFile("b", "2"), readFile("c", "3"))
		otherSnap, err := other.store.Snapshot()
		require.NoError(t, err)

		// The same tool at the same positions and times: only the log's
		// epoch tells the calls apart.
		require.NoError(t, same.store.Restore(otherSnap))
		same.run(read)
		assert.Nil(t, same.produced[3], "after the restore, go.mod was read once")
	})
}

func TestOneStallServesConcurrentSessions(t *testing.T) {
	stall := stall.New()
	var wg sync.WaitGroup
	results := make([][]string, 8)
	for s := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			store := session.New(&session.StoreOptions{Now: (&clock{t: start}).Now})
			p, err := observer.NewPipeline(store, []observer.Spec{{Observer: stall, Trigger: observer.Trigger{OnEveryCall: true}}}, nil)
			if err != nil {
				panic(err)
			}
			for i := range 40 {
				rec := readFile(fmt.Sprintf("s%d/f%d.go", s, i), "x")
				if s%2 == 0 && i >= 30 {
					rec = readFile("same.go", "x")
				}
				if _, current := p.AfterToolCall(context.Background(), rec); current != nil {
					results[s] = append(results[s], fmt.Sprint(current.CallIndex))
				}
			}
		}()
	}
	wg.Wait()
	for s, got := range results {
		if s%2 == 0 {
			assert.Len(t, got, 7, "session %d: calls 34 to 40 repeat", s)
		} else {
			assert.Empty(t, got, "session %d never repeats", s)
		}
	}
}

func TestDetectorsWithoutAPipelineSeeNothing(t *testing.T) {
	ctx := context.Background()
	oc := &observer.Context{Now: start, CallIndex: 3}
	for _, o := range detectors() {
		assert.False(t, o.ShouldRun(ctx, oc), o.Name())
		a, err := o.Observe(ctx, oc)
		require.NoError(t, err)
		assert.Equal(t, observer.Info, a.Severity)
		assert.NotEmpty(t, a.Summary)
	}
}

func TestDetectorsCatchUpWhenTheirTriggerIsSparse(t *testing.T) {
	stall := stall.New()
	store := session.New(&session.StoreOptions{Now: (&clock{t: start}).Now})
	p, err := observer.NewPipeline(store, []observer.Spec{{Observer: stall, Trigger: observer.Trigger{EveryNCalls: 5}}}, nil)
	require.NoError(t, err)
	var fired []int64
	for i := range 10 {
		rec := readFile(fmt.Sprintf("f%d.go", i), "x")
		if i >= 6 {
			rec = readFile("same.go", "x")
		}
		if _, current := p.AfterToolCall(context.Background(), rec); current != nil {
			fired = append(fired, current.CallIndex)
		}
	}
	assert.Equal(t, []int64{10}, fired, "calls 7 to 10 repeat; the run at call 10 saw the calls it was not asked about")
}

func TestStallChainCitesOnlyTheCallsWithTheSameResult(t *testing.T) {
	// The same call alternates between two results: each result makes a
	// chain of its own, and the evidence of one leaves out the other.
	h := newHarness(t, stall.New())
	for i := range 8 {
		h.run(succeeded("job_status", `{"id":"build-7"}`, []string{"running", "queued"}[i%2]))
	}
	assert.Equal(t, []string{"Stall@8"}, h.firings())
	a := h.mustAt(8, "Stall")
	assert.Contains(t, a.Observations[0].Description, "(calls #2 to #8)")
	assert.Equal(t, []string{
		"#2 job_status id=build-7",
		"#4 job_status id=build-7",
		"#6 job_status id=build-7",
		"#8 job_status id=build-7",
	}, evidenceLines(a))
}

// Repeats are counted over every call, not only those in the window
// before the observer runs: with a sparse trigger, and after the session
// is restored into a new pipeline.
func TestStallCountsRepeatsItDidNotRunAfter(t *testing.T) {
	newPipeline := func(store *session.Store, every int) *observer.Pipeline {
		p, err := observer.NewPipeline(store, []observer.Spec{
			{Observer: stall.New(), Trigger: observer.Trigger{EveryNCalls: every}},
		}, &observer.PipelineOptions{OnError: func(_ context.Context, err error) { t.Error(err) }})
		require.NoError(t, err)
		return p
	}
	read := readFile("config.yaml", "port: 8080")
	stallAfter := func(p *observer.Pipeline, n int) string {
		var last *observer.CurrentAssessment
		for range n {
			_, last = p.AfterToolCall(context.Background(), read)
		}
		require.NotNil(t, last)
		return last.Assessments[0].Observations[0].Description
	}

	t.Run("a sparse trigger", func(t *testing.T) {
		p := newPipeline(session.New(nil), 25)
		desc := stallAfter(p, 25)
		assert.Contains(t, desc, "was called 25 times")
		assert.Contains(t, desc, "(calls #1 to #25)")
	})
	t.Run("a restored session", func(t *testing.T) {
		store := session.New(nil)
		stallAfter(newPipeline(store, 1), 100)
		snap, err := store.Snapshot()
		require.NoError(t, err)

		restored := session.New(nil)
		p := newPipeline(restored, 1)
		require.NoError(t, restored.Restore(snap))
		desc := stallAfter(p, 1)
		assert.Contains(t, desc, "was called 101 times")
	})
	t.Run("a long session read back only so far", func(t *testing.T) {
		// A new pipeline on a session of thousands of calls reads back a
		// bounded number of them, so its first check stays cheap.
		store := session.New(nil)
		quiet := newPipeline(store, observer.MaxTriggerCalls)
		for range 3000 {
			quiet.AfterToolCall(context.Background(), read)
		}
		desc := stallAfter(newPipeline(store, 1), 1)
		assert.Contains(t, desc, "was called 1024 times")
	})
}

// A write-back cycle longer than the window has lost its first access:
// the evidence still cites it as the access it was, a read, not as
// whichever kept access comes first.
func TestStallWriteBackCitesTheCyclesFirstAccessAsItWas(t *testing.T) {
	h := newHarness(t, stall.New())
	for i := range 10 {
		h.run(
			readFile("config.yaml", "port: 8080"),
			succeeded("run_tests", fmt.Sprintf(`{"shard":%d}`, i), "ok"),
			writeFile("config.yaml", "port: 8080"),
		)
	}
	a := h.mustAt(30, "Stall")
	require.Equal(t, "write_back", a.Observations[0].Category)
	assert.Contains(t, a.Observations[0].Description, "read and written in turn 20 times (calls #1 to #30)")
	lines := evidenceLines(a)
	assert.Equal(t, "#1 read_file path=config.yaml", lines[0], "call #1 was a read")
	assert.Equal(t, "… 16 more calls …", lines[1])
	assert.Equal(t, "#30 write_file path=config.yaml content=port: 8080", lines[len(lines)-1])
}

// The target is named as the calls name it: cleaning it for comparison
// (lower case, one slash) must not change what the model is told.
func TestStallWriteBackNamesTheTargetAsTheCallsDo(t *testing.T) {
	h := newHarness(t, stall.New())
	get := succeeded("http_get", `{"url":"https://api.example.com/Items/42"}`, `{"name":"a"}`)
	put := succeeded("http_put", `{"url":"https://api.example.com/Items/42","body":"{}"}`, "ok")
	h.run(get, put, get, put)
	a := h.mustAt(4, "Stall")
	require.Equal(t, "write_back", a.Observations[0].Category)
	assert.Equal(t, "You keep reading and rewriting `https://api.example.com/Items/42` without making progress.", a.Summary)
	assert.True(t, strings.HasPrefix(a.Observations[0].Description, "`https://api.example.com/Items/42` was read and written"),
		a.Observations[0].Description)
	assert.Contains(t, a.Suggestions[0], "Stop rewriting `https://api.example.com/Items/42`:")
}

// The repeats peers' stuck detectors report that a raw comparison misses.
func TestStallReportsRepeatsThatDifferOnlyInCounters(t *testing.T) {
	tests := []struct {
		name string
		call func(i int) observer.ToolCallRecord
	}{
		{"results that differ only in a session id and pid", func(i int) observer.ToolCallRecord {
			return succeeded("run_command", `{"command":"make build"}`, fmt.Sprintf("Command still running (session sess-%d, pid 100%d)", i, i))
		}},
		{"errors that differ only in an attempt counter", func(i int) observer.ToolCallRecord {
			return failed("spawn", `{"runtime":"python3"}`, fmt.Sprintf("Runtime failed before spawn: attempt %d", i))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, stall.New())
			for i := 1; i <= 10; i++ {
				h.run(tt.call(i))
			}
			require.NotEmpty(t, h.firings())
		})
	}
}

func TestStallReportsManyIdenticalCallsWhoseOutputChanges(t *testing.T) {
	h := newHarness(t, &stall.Detector{ResultRules: []observer.Rule{}})
	var last *observer.CurrentAssessment
	for i := range 30 {
		if current := h.run(succeeded("shell", `{"command":"date"}`, fmt.Sprintf("Fri Nov 27 04:%02d:%02d UTC 2026", i/60, i%60))); current != nil {
			last = current
		}
	}
	firings := h.firings()
	require.NotEmpty(t, firings)
	assert.Equal(t, fmt.Sprintf("Stall@%d", stall.DefaultSameCalls), firings[0])
	assert.Equal(t, "same_call", last.Assessments[0].Observations[0].Category)
}

func TestStallSeesTheSameFailureComeBackAfterEachEdit(t *testing.T) {
	test := succeeded("bash", `{"command":"pytest tests/test_round.py"}`, "FAILED tests/test_round.py::test_half - assert 2.4 == 2.5")
	h := newHarness(t, stall.New())
	for i := range 3 {
		h.run(succeeded("bash", fmt.Sprintf(`{"command":"sed -i 's/v%d/v%d/' round.py"}`, i, i+1), ""), test)
	}
	assert.Equal(t, []string{"Stall@6"}, h.firings(), "the third same failure, each after a different edit")
	assert.Equal(t, "recheck", h.mustAt(6, "Stall").Observations[0].Category)
}

func TestStallTakesCountersThatMoveAsProgress(t *testing.T) {
	tail := func(epoch int) observer.ToolCallRecord {
		return succeeded("bash", `{"command":"tail -n 1 train.log"}`, fmt.Sprintf("epoch %d/10 loss 0.41", epoch))
	}
	t.Run("a log whose epoch moves stays quiet", func(t *testing.T) {
		h := newHarness(t, stall.New())
		for i := range 6 {
			h.run(tail(i+1), succeeded("sleep", fmt.Sprintf(`{"seconds":%d}`, 60+i), ""))
		}
		assert.Empty(t, h.firings())
	})
	t.Run("once it moved, the call is a poll: the same result counts up to PollingCap", func(t *testing.T) {
		h := newHarness(t, &stall.Detector{PollingCap: 4})
		h.run(tail(1), succeeded("sleep", `{"seconds":60}`, ""), tail(2))
		for i := range 4 {
			h.run(succeeded("sleep", fmt.Sprintf(`{"seconds":%d}`, 61+i), ""), tail(2))
		}
		assert.Equal(t, []string{"Stall@9", "Stall@11"}, h.firings(), "the fourth same result, and on")
	})
}

func TestStallSeesCallsThatAWaitingShellOnlyEchoes(t *testing.T) {
	h := newHarness(t, stall.New())
	h.run(succeeded("bash_command", `{"keystrokes":"cat > run.sh << 'EOF'\necho hi\n"}`, "root@box:~# cat > run.sh << 'EOF'\n> echo hi\n>"))
	for _, cmd := range []string{"chmod +x run.sh", "./run.sh", "ls -la"} {
		h.run(succeeded("bash_command", `{"keystrokes":"`+cmd+`\n"}`, "> "+cmd+"\n>"))
	}
	assert.Equal(t, []string{"Stall@4"}, h.firings(), "the third call with no effect")
	assert.Equal(t, "no_effect", h.mustAt(4, "Stall").Observations[0].Category)
}
