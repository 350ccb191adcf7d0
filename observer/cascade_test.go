package observer_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/session"
)

func denied(path string) observer.ToolCallRecord {
	return failed("write_file", `{"path":"`+path+`","content":"x"}`, "permission denied: "+path)
}

func TestErrorsFireOnConsecutiveFailures(t *testing.T) {
	h := newHarness(t, cascade.New())
	for i := range 7 {
		h.run(denied(fmt.Sprintf("/srv/data/part-%d.csv", i)))
	}
	assert.Equal(t, []string{"Errors@3", "Errors@4", "Errors@5", "Errors@6", "Errors@7"}, h.firings())

	third := h.mustAt(3, "Errors")
	assert.Equal(t, observer.Caution, third.Severity)
	assert.Equal(t, "The last 3 calls all failed with `permission denied: <path>`.", third.Summary)
	assert.Equal(t, "error_cascade", third.Observations[0].Category)
	assert.Contains(t, third.Suggestions, "Stop and reassess your approach before the next call.")
	assert.Contains(t, third.Suggestions, "Deal with the cause (`permission denied: <path>`) first, or find a way around it.")

	assert.Equal(t, observer.Warning, h.mustAt(6, "Errors").Severity, "six failures in a row")
}

func TestErrorsFireOnAHighErrorRate(t *testing.T) {
	h := newHarness(t, cascade.New())
	ok := readFile("README.md", "# app")
	// f o f f o f f o f f: 7 of 10 failed, never 3 in a row.
	for i, c := range "foffoffoff" {
		if c == 'o' {
			h.run(ok)
		} else {
			h.run(denied(fmt.Sprintf("/srv/data/part-%d.csv", i)))
		}
	}
	assert.Equal(t, []string{"Errors@10"}, h.firings(), "the rate is judged once the window is full")
	a := h.mustAt(10, "Errors")
	assert.Equal(t, "7 of the last 10 calls failed with `permission denied: <path>`.", a.Summary)
	assert.Equal(t, "error_rate", a.Observations[0].Category)
	assert.Equal(t, []string{
		"permission denied: <path> (7 calls)",
		"  … 4 earlier calls",
		"  #7 write_file path=/srv/data/part-6.csv content=x",
		"  #9 write_file path=/srv/data/part-8.csv content=x",
		"  #10 write_file path=/srv/data/part-9.csv content=x",
	}, evidenceLines(a))
}

func TestErrorsNameTheCommonCauseInMixedFailures(t *testing.T) {
	h := newHarness(t, cascade.New())
	h.run(
		failed("http_get", `{"url":"http://10.0.0.7:8080/health"}`, "dial tcp 10.0.0.7:8080: connection refused"),
		denied("/etc/app/a.conf"),
		failed("run", `{"cmd":"make"}`, "exit status 2"),
		denied("/etc/app/b.conf"),
		failed("http_get", `{"url":"http://10.0.0.9:8080/health"}`, "dial tcp 10.0.0.9:8080: connection refused"),
		denied("/etc/app/c.conf"),
		denied("/var/lib/app/d.db"),
	)
	a := h.mustAt(7, "Errors")
	assert.Equal(t, "The last 7 calls all failed; 4 of them with `permission denied: <path>`.", a.Summary)
	assert.Equal(t, "The most common cause is `permission denied: <path>` (4 of 7 failures); 3 different errors in all.",
		a.Observations[0].Description)
	lines := evidenceLines(a)
	assert.Equal(t, "permission denied: <path> (4 calls)", lines[0])
	assert.Contains(t, lines, "dial tcp <addr>: connection refused (2 calls)")
	assert.Contains(t, lines, "exit status <n> (1 call)")
}

func TestErrorsSayWhenEveryFailureDiffers(t *testing.T) {
	h := newHarness(t, cascade.New())
	h.run(failed("a", `{}`, "no such table: users"), failed("b", `{}`, "syntax error"), failed("c", `{}`, "timeout"))
	a := h.mustAt(3, "Errors")
	assert.Equal(t, "The last 3 calls all failed, each with a different error.", a.Summary)
	assert.Len(t, a.Suggestions, 1, "no common cause to deal with")
}

func TestErrorsUseTheResultWhenThereIsNoErrorMessage(t *testing.T) {
	h := newHarness(t, cascade.New())
	h.run(times(3, observer.ToolCallRecord{ToolName: "sh", Arguments: `{"cmd":"ls /root"}`, Result: "ls: /root: Permission denied"})...)
	assert.Equal(t, "The last 3 calls all failed with `ls: <path>: Permission denied`.", h.mustAt(3, "Errors").Summary)
}

func TestErrorsGoQuietWhenACallSucceeds(t *testing.T) {
	h := newHarness(t, cascade.New())
	h.run(concat(times(3, denied("/etc/x")), times(3, readFile("a.go", "package a")))...)
	assert.Equal(t, []string{"Errors@3"}, h.firings())
}

func TestErrorsThresholdsAreConfigurable(t *testing.T) {
	tests := []struct {
		name    string
		cascade *cascade.Detector
		pattern string // f fails, o succeeds
		want    []string
	}{
		{"five in a row", &cascade.Detector{Consecutive: 5}, "ffffff", []string{"Errors@5", "Errors@6"}},
		{"streaks turned off", &cascade.Detector{Consecutive: -1}, "fffff", nil},
		{"a half rate over four calls", &cascade.Detector{Window: 4, Rate: 0.5}, "ofof", []string{"Errors@4"}},
		{"rates turned off", &cascade.Detector{Rate: -1}, "ffoffoffoff", nil},
		{"warning after three", &cascade.Detector{WarningAfter: 3}, "fff", []string{"Errors@3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cascade)
			for _, c := range tt.pattern {
				if c == 'f' {
					h.run(denied("/x"))
				} else {
					h.run(readFile("a", "1"))
				}
			}
			assert.Equal(t, tt.want, h.firings())
		})
	}
	h := newHarness(t, &cascade.Detector{WarningAfter: 3})
	h.run(times(3, denied("/x"))...)
	assert.Equal(t, observer.Warning, h.mustAt(3, "Errors").Severity)
}

func TestErrorsRulesAreExtensible(t *testing.T) {
	rule, err := observer.PatternRule("tenant", `tenant-[a-z]+`)
	require.NoError(t, err)
	h := newHarness(t, &cascade.Detector{Rules: append(cascade.DefaultRules(), rule)})
	h.run(failed("q", `{}`, "quota exceeded for tenant-acme"), failed("q", `{}`, "quota exceeded for tenant-globex"), failed("q", `{}`, "quota exceeded for tenant-initech"))
	assert.Equal(t, "The last 3 calls all failed with `quota exceeded for <tenant>`.", h.mustAt(3, "Errors").Summary)

	_, err = observer.PatternRule("bad", `(`)
	assert.ErrorIs(t, err, observer.ErrInvalidConfig)
}

func TestErrorsValidate(t *testing.T) {
	for _, e := range []*cascade.Detector{{Rate: 1.5}, {Rate: math.NaN()}, {Window: 1}, {Window: -2}, {Consecutive: 1}} {
		_, err := observer.NewPipeline(session.New(nil), []observer.Spec{{Observer: e, Trigger: observer.Trigger{OnEveryCall: true}}}, nil)
		assert.ErrorIs(t, err, observer.ErrInvalidConfig, "%+v", *e)
	}
}

func TestErrorGrouping(t *testing.T) {
	// Each case is two messages that must read the same once normalized,
	// shown as the template they share.
	tests := []struct{ a, b, want string }{
		{"open /var/data/users.db: permission denied", "open /var/data/orders.db: permission denied", "open <path>: permission denied"},
		{"line 42: unexpected token", "line 7: unexpected token", "line <n>: unexpected token"},
		{"timeout after 30s", "timeout after 5s", "timeout after <n>"},
		{"GET https://api.example.com/v1/a failed", "GET https://api.example.com/v2/b?x=1 failed", "GET <url> failed"},
		{"dial tcp 10.0.0.7:5432: refused", "dial tcp 192.168.1.20:5432: refused", "dial tcp <addr>: refused"},
		{"job 3fa85f64-5717-4562-b3fc-2c963f66afa6 not found", "job 16fd2706-8baf-433b-82eb-8c7fada847da not found", "job <uuid> not found"},
		{"commit 9fceb02d0ae598e95dc970b74767f19372d61af8 missing", "commit 1f7a7a472abf3dd9643fd615f6da379c4acb3e3a missing", "commit <id> missing"},
		{"at 2026-01-15T14:03:07Z: busy", "at 2026-01-16T09:00:00Z: busy", "at <time>: busy"},
		{"cannot read src/pay/pay.go", "cannot read src/bill/bill_test.go", "cannot read <path>"},
		{`C:\Users\me\a.txt locked`, `D:\work\b.txt locked`, "<path> locked"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			h := newHarness(t, cascade.New())
			h.run(failed("x", `{}`, tt.a), failed("x", `{}`, tt.b), failed("x", `{}`, tt.a))
			assert.Equal(t, "The last 3 calls all failed with `"+tt.want+"`.", h.mustAt(3, "Errors").Summary)
		})
	}
	t.Run("words that are not paths or numbers are kept", func(t *testing.T) {
		h := newHarness(t, cascade.New())
		h.run(failed("x", `{}`, "read/write error in utf8 E0001"), failed("x", `{}`, "read/write error in utf8 E0001"), failed("x", `{}`, "read/write error in utf8 E0001"))
		assert.Equal(t, "The last 3 calls all failed with `read/write error in utf8 E0001`.", h.mustAt(3, "Errors").Summary)
	})
	t.Run("a long message is cut", func(t *testing.T) {
		h := newHarness(t, cascade.New())
		long := strings.Repeat("very long failure ", 50)
		h.run(times(3, failed("x", `{}`, long))...)
		assert.Less(t, len(h.mustAt(3, "Errors").Summary), 200)
	})
}

// A Python traceback names its cause on its last line, after a header and
// stack lines that failures of every cause share.
func TestErrorsGroupPythonTracebacksByTheirException(t *testing.T) {
	traceback := func(line int, exception string) string {
		return fmt.Sprintf("Traceback (most recent call last):\n  File \"/workspace/analysis.py\", line %d, in <module>\n"+
			"    main()\n  File \"/workspace/analysis.py\", line 12, in main\n    df = load(path)\n%s\n", line, exception)
	}
	h := newHarness(t, cascade.New())
	h.run(
		failed("python", `{"code":"a"}`, traceback(40, "KeyError: 'revenue'")),
		failed("python", `{"code":"b"}`, traceback(41, "ModuleNotFoundError: No module named 'polars'")),
		failed("python", `{"code":"c"}`, traceback(42, "KeyError: 'revenue'")),
	)
	a := h.mustAt(3, "Errors")
	assert.Equal(t, "The last 3 calls all failed; 2 of them with `KeyError: 'revenue'`.", a.Summary)
	assert.Equal(t, []string{
		"KeyError: 'revenue' (2 calls)",
		"  #1 python code=a",
		"  #3 python code=c",
		"ModuleNotFoundError: No module named 'polars' (1 call)",
		"  #2 python code=b",
	}, evidenceLines(a))

	// Cut before its last line, a traceback is grouped as it reads.
	h = newHarness(t, cascade.New())
	h.run(times(3, failed("python", `{"code":"a"}`, "Traceback (most recent call last):\n  File \"a.py\", line 1"))...)
	assert.Equal(t, "The last 3 calls all failed with `Traceback (most recent call last): File \"a.py\", line <n>`.", h.mustAt(3, "Errors").Summary,
		"line breaks and the indentation after them read as one space")
}
