package observer_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/session"
)

const billingTask = "Fix the rounding bug in services/billing/invoice.go and add a test."

// billingWork reads n different files of the billing service.
func billingWork(n int) []observer.ToolCallRecord {
	var out []observer.ToolCallRecord
	for i := range n {
		out = append(out, readFile(fmt.Sprintf("services/billing/file%d.go", i), fmt.Sprint(i)))
	}
	return out
}

func TestDriftFiresWhenMostRecentWorkLeavesTheScope(t *testing.T) {
	h := newHarness(t, detectors()...).task(observer.Task{Prompt: billingTask})
	h.run(billingWork(5)...)
	for i := range 8 {
		h.run(readFile(fmt.Sprintf("web/marketing/page%d.tsx", i), fmt.Sprint(i)))
	}
	assert.Equal(t, []string{"Drift@11", "Drift@12", "Drift@13"}, h.firings(),
		"6 of the last 10 targeted calls are outside from call 11 on")

	a := h.mustAt(11, "Drift")
	assert.Equal(t, observer.Info, a.Severity)
	assert.Equal(t, "Most of your recent work is outside the task's scope.", a.Summary)
	assert.Equal(t, "6 of the last 10 calls that named a file, host or resource were outside the scope taken from the task (services/billing).",
		a.Observations[0].Description)
	assert.Equal(t, []string{
		"#6 read_file path=web/marketing/page0.tsx",
		"#7 read_file path=web/marketing/page1.tsx",
		"#8 read_file path=web/marketing/page2.tsx",
		"#9 read_file path=web/marketing/page3.tsx",
		"#10 read_file path=web/marketing/page4.tsx",
		"#11 read_file path=web/marketing/page5.tsx",
	}, evidenceLines(a))
	assert.Equal(t, []string{
		`Check that this work serves the task: "Fix the rounding bug in services/billing/invoice.go and add a test".`,
		"If it does not, return to the task; if it does, say why before going further.",
	}, a.Suggestions)
}

func TestDriftStaysQuietWithinScope(t *testing.T) {
	h := newHarness(t, detectors()...).task(observer.Task{Prompt: billingTask})
	for i := range 30 {
		h.run(
			readFile(fmt.Sprintf("/home/dev/repo/services/billing/internal/f%d.go", i), fmt.Sprint(i)),
			succeeded("run_tests", `{"args":"-run TestRound"}`, fmt.Sprintf("ok %d", i)),
		)
	}
	assert.Empty(t, h.firings(), "absolute paths under the scope and calls naming no target are in scope")
}

func TestDriftScope(t *testing.T) {
	tests := []struct {
		name  string
		task  observer.Task
		first []observer.ToolCallRecord
		in    func(i int) observer.ToolCallRecord
		out   func(i int) observer.ToolCallRecord
	}{
		{
			name: "a declared host",
			task: observer.Task{Prompt: "Check our payments integration.", Scope: []string{"https://api.stripe.com"}},
			in: func(i int) observer.ToolCallRecord {
				return succeeded("http_get", fmt.Sprintf(`{"url":"https://files.api.stripe.com/v1/f%d"}`, i), "{}")
			},
			out: func(i int) observer.ToolCallRecord {
				return succeeded("http_get", fmt.Sprintf(`{"url":"https://news.example.org/p/%d"}`, i), "{}")
			},
		},
		{
			name: "a resource named in backticks",
			task: observer.Task{Prompt: "Archive old rows from the `invoices` table."},
			in: func(i int) observer.ToolCallRecord {
				return succeeded("sql", fmt.Sprintf(`{"table":"invoices","limit":%d}`, i), "[]")
			},
			out: func(i int) observer.ToolCallRecord {
				return succeeded("sql", fmt.Sprintf(`{"table":"users","limit":%d}`, i), "[]")
			},
		},
		{
			name:  "the run's first calls, when the prompt names nothing",
			task:  observer.Task{Prompt: "Make the failing test pass."},
			first: []observer.ToolCallRecord{succeeded("run_tests", `{}`, "FAIL internal/pay"), readFile("internal/pay/pay_test.go", "package pay")},
			in:    func(i int) observer.ToolCallRecord { return readFile(fmt.Sprintf("internal/pay/f%d.go", i), "x") },
			out:   func(i int) observer.ToolCallRecord { return readFile(fmt.Sprintf("docs/guide%d.md", i), "x") },
		},
		{
			name: "a format named in backticks",
			task: observer.Task{Prompt: "Convert services/billing/rates.yaml to `json`."},
			in: func(i int) observer.ToolCallRecord {
				return readFile(fmt.Sprintf("services/billing/rates%d.json", i), "{}")
			},
			out: func(i int) observer.ToolCallRecord {
				return readFile(fmt.Sprintf("web/marketing/page%d.json", i), "{}")
			},
		},
		{
			name: "paths inside shell commands",
			task: observer.Task{Scope: []string{"services/billing"}},
			in: func(i int) observer.ToolCallRecord {
				return succeeded("bash", fmt.Sprintf(`{"command":"go test ./services/billing/... -run T%d"}`, i), "ok")
			},
			out: func(i int) observer.ToolCallRecord {
				return succeeded("bash", fmt.Sprintf(`{"command":"grep -rn rate%d vendor/github.com/x/y.go"}`, i), "")
			},
		},
	}
	for _, tt := range tests {
		t.Run("it fires outside "+tt.name, func(t *testing.T) {
			h := newHarness(t, drift.New()).task(tt.task)
			h.run(tt.first...)
			// The run's first five calls add to an undeclared scope, so
			// the work leaves it after them.
			for i := range 5 {
				h.run(tt.in(i))
			}
			for i := range 8 {
				h.run(tt.out(i))
			}
			assert.NotEmpty(t, h.firings())
		})
		t.Run("it stays quiet within "+tt.name, func(t *testing.T) {
			h := newHarness(t, drift.New()).task(tt.task)
			h.run(tt.first...)
			for i := range 20 {
				h.run(tt.in(i))
			}
			assert.Empty(t, h.firings())
		})
	}
}

func TestDriftWithoutAScopeStaysQuiet(t *testing.T) {
	h := newHarness(t, &drift.Detector{InitialCalls: -1})
	for i := range 20 {
		h.run(readFile(fmt.Sprintf("anywhere/f%d.go", i), "x"))
	}
	assert.Empty(t, h.firings())
}

func TestDriftPicksUpATaskSeededLater(t *testing.T) {
	h := newHarness(t, &drift.Detector{InitialCalls: -1})
	h.run(readFile("docs/a.md", "x"), readFile("docs/b.md", "x"))
	h.task(observer.Task{Scope: []string{"services/billing"}})
	for i := range 4 {
		h.run(readFile(fmt.Sprintf("docs/c%d.md", i), "x"))
	}
	assert.Equal(t, []string{"Drift@4", "Drift@5", "Drift@6"}, h.firings())
	assert.Contains(t, h.mustAt(4, "Drift").Observations[0].Description, "outside the declared scope (services/billing)")
}

func TestDriftEscalatesWhileItLasts(t *testing.T) {
	h := newHarness(t, drift.New()).task(observer.Task{Scope: []string{"services/billing"}})
	for i := range 25 {
		h.run(readFile(fmt.Sprintf("web/p%d.tsx", i), "x"))
	}
	assert.Equal(t, observer.Info, h.mustAt(4, "Drift").Severity)
	assert.Equal(t, observer.Caution, h.mustAt(9, "Drift").Severity, "5 calls after it began")
	assert.Equal(t, observer.Warning, h.mustAt(19, "Drift").Severity, "15 calls after it began")
}

func TestDriftThresholdsAreConfigurable(t *testing.T) {
	outside := func(i int) observer.ToolCallRecord { return readFile(fmt.Sprintf("web/p%d.tsx", i), "x") }
	inside := func(i int) observer.ToolCallRecord { return readFile(fmt.Sprintf("services/billing/f%d.go", i), "x") }
	h := newHarness(t, &drift.Detector{Window: 4, MinCalls: 2, Share: 0.5}).task(observer.Task{Scope: []string{"services/billing"}})
	h.run(inside(0), outside(0))
	assert.Equal(t, []string{"Drift@2"}, h.firings())

	for _, d := range []*drift.Detector{{Share: 1.5}, {Share: -0.1}, {Share: math.NaN()}, {Window: -1}, {MinCalls: 12}, {Window: 3, MinCalls: 4}} {
		_, err := observer.NewPipeline(session.New(nil), []observer.Spec{{Observer: d, Trigger: observer.Trigger{OnEveryCall: true}}}, nil)
		assert.ErrorIs(t, err, observer.ErrInvalidConfig, "%+v", *d)
	}
}

func TestDriftResourceKeysAreConfigurable(t *testing.T) {
	h := newHarness(t, &drift.Detector{ResourceKeys: []string{"sheet"}}).task(observer.Task{Scope: []string{"q3-forecast"}})
	for i := range 6 {
		h.run(succeeded("read_sheet", fmt.Sprintf(`{"sheet":"q%d-actuals"}`, i), "rows"))
	}
	require.NotEmpty(t, h.firings())
	assert.Contains(t, evidenceLines(h.mustAt(4, "Drift"))[0], "sheet=q0-actuals")
}

func TestDriftResourceKeysAreComparedFolded(t *testing.T) {
	for _, key := range []string{"sheet_name", "Sheet-Name", "SHEETNAME"} {
		h := newHarness(t, &drift.Detector{ResourceKeys: []string{key}}).task(observer.Task{Scope: []string{"q3-forecast"}})
		for i := range 6 {
			h.run(succeeded("read_sheet", fmt.Sprintf(`{"sheetName":"q%d-actuals"}`, i), "rows"))
		}
		require.NotEmpty(t, h.firings(), key)
		assert.Contains(t, evidenceLines(h.mustAt(4, "Drift"))[0], "sheetName=q0-actuals", key)
	}
}

// First user messages are often markdown: a path in bold, in italics or
// as a link's target names the same scope as the bare path.
func TestDriftReadsPathsThroughMarkdownInThePrompt(t *testing.T) {
	for _, prompt := range []string{
		"Fix the rounding bug in **services/billing/invoice.go**.",
		"Fix the rounding bug in _services/billing/invoice.go_.",
		"Fix the rounding bug in *services/billing/invoice.go*.",
		"Fix the rounding bug in [invoice.go](services/billing/invoice.go).",
		"Fix the rounding bug in [services/billing/invoice.go](https://git.example.com/x).",
	} {
		t.Run(prompt, func(t *testing.T) {
			h := newHarness(t, &drift.Detector{InitialCalls: -1}).task(observer.Task{Prompt: prompt})
			h.run(billingWork(10)...)
			assert.Empty(t, h.firings(), "work in services/billing is in scope")
		})
	}
	h := newHarness(t, &drift.Detector{InitialCalls: -1, DerivedMinCalls: 4}).task(observer.Task{Prompt: "Fix **services/billing/invoice.go**."})
	h.run(times(5, readFile("web/page.tsx", "x"))...)
	assert.Contains(t, h.mustAt(5, "Drift").Observations[0].Description, "(services/billing).")
}

// When the prompt names no scope, a first call to a file at the top of
// the tree (README.md, go.mod) says no more than "the repository": it
// must not make the rest of the repository look like drift.
func TestDriftTakesNoScopeFromTopLevelFilesAlone(t *testing.T) {
	h := newHarness(t, detectors()...).task(observer.Task{Prompt: "Add rate limiting to the public API."})
	h.run(
		succeeded("list_dir", `{"path":"."}`, "README.md go.mod main.go internal/"),
		readFile("README.md", "# api"),
		readFile("go.mod", "module example.com/api"),
		readFile("main.go", "package main"),
		succeeded("list_dir", `{"path":"internal"}`, "api/"),
		readFile("internal/api/server.go", "package api"),
		readFile("internal/api/routes.go", "package api"),
		readFile("internal/api/middleware.go", "package api"),
		writeFile("internal/ratelimit/limiter.go", "package ratelimit"),
		writeFile("internal/ratelimit/limiter_test.go", "package ratelimit"),
		writeFile("internal/api/middleware.go", "package api"),
		succeeded("run_tests", `{"command":"go test ./internal/..."}`, "ok"),
	)
	assert.Empty(t, h.firings())

	// A first call into a directory still gives its top directory.
	h = newHarness(t, &drift.Detector{InitialCalls: 2, DerivedMinCalls: 4}).task(observer.Task{Prompt: "Add rate limiting to the public API."})
	h.run(readFile("README.md", "# api"), readFile("internal/api/server.go", "package api"))
	h.run(times(4, readFile("web/page.tsx", "x"))...)
	assert.Contains(t, h.mustAt(6, "Drift").Observations[0].Description, "(internal).")
}

// The false alarms Drift raised on real runs.
func TestDriftKeepsWhatTheAgentMadeInScope(t *testing.T) {
	h := newHarness(t, drift.New()).task(observer.Task{Prompt: "Solve the `rock` challenge: run `./rock` and use `-c` to open it with `cat`, e.g. `n/a`."})
	h.run(
		succeeded("bash", `{"command":"./rock"}`, "?"),
		succeeded("decompile", `{"binary_path":"rock"}`, "int main()"),
		succeeded("create", `{"path":"solve.py"}`, "created"),
		succeeded("bash", `{"command":"python solve.py > out.txt"}`, ""),
		succeeded("bash", `{"command":"cat out.txt"}`, "flag"),
	)
	h.run(times(8, succeeded("bash", `{"command":"python solve.py"}`, "flag"))...)
	assert.Empty(t, h.firings())
}

func TestDriftTakesNoShellWordsFlagsOrAbbreviationsFromThePrompt(t *testing.T) {
	h := newHarness(t, &drift.Detector{InitialCalls: -1, DerivedMinCalls: 4}).task(observer.Task{
		Prompt: "Connect with `nc` to port `4242`, use `-c`, `open` and `cat`, e.g. as n/a says, in `services/billing`."})
	h.run(times(5, readFile("web/page.tsx", "x"))...)
	a := h.mustAt(5, "Drift")
	assert.Contains(t, a.Observations[0].Description, "(services/billing).")
}

func TestDriftTakesATopLevelFileForItsDirectory(t *testing.T) {
	h := newHarness(t, drift.New())
	for i := range 15 {
		h.run(readFile(fmt.Sprintf("/file%d.txt", i), "x"))
	}
	assert.Empty(t, h.firings())
}

func TestDriftJudgesADerivedScopeLaterThanADeclaredOne(t *testing.T) {
	outside := times(drift.DefaultDerivedMinCalls, readFile("web/page.tsx", "x"))
	derived := newHarness(t, &drift.Detector{InitialCalls: -1}).task(observer.Task{Prompt: "Fix services/billing/invoice.go."})
	derived.run(outside...)
	declared := newHarness(t, &drift.Detector{InitialCalls: -1}).task(observer.Task{Scope: []string{"services/billing"}})
	declared.run(outside...)
	assert.Equal(t, fmt.Sprintf("Drift@%d", drift.DefaultDerivedMinCalls), derived.firings()[0])
	assert.Equal(t, fmt.Sprintf("Drift@%d", drift.DefaultMinCalls), declared.firings()[0])
}

func TestDriftTakesNoScopeFromPromptNoise(t *testing.T) {
	task := "<pr_description>\nThe widget reads self.field.widget.attrs.get('class') and ignores \"\"\"docstrings\"\"\". " +
		"Stubs are `...` or `\"\"\"`.\n</pr_description>\nFix django/forms/models.py."
	h := newHarness(t, drift.New()).task(observer.Task{Prompt: task})
	for i := range 5 {
		h.run(readFile(fmt.Sprintf("django/forms/file%d.py", i), "x"))
	}
	for i := range 8 {
		h.run(readFile(fmt.Sprintf("web/marketing/page%d.tsx", i), "x"))
	}
	a := h.mustAt(13, "Drift")
	assert.Contains(t, a.Observations[0].Description, "outside the scope taken from the task (django/forms).",
		"only the path the task names is scope: no closing tag, attribute chain or quote run")
}

func TestDriftResolvesRelativePathsAgainstTheWorkingDirectory(t *testing.T) {
	h := newHarness(t, drift.New()).task(observer.Task{Prompt: "Implement clone_traits in traits/has_traits.py so that traits/tests/test_clone.py passes."})
	h.run(succeeded("bash", `{"command":"cd traits\nls -la\n"}`, "has_traits.py tests"))
	for i := range 12 {
		h.run(succeeded("bash", fmt.Sprintf(`{"command":"sed -i 's/v%d/v%d/' has_traits.py\npytest tests/test_clone.py\n"}`, i, i+1), "FAILED"))
	}
	assert.Empty(t, h.firings(), "has_traits.py and tests/test_clone.py, run from traits/, are the task's own files")
}
