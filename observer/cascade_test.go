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
	// Streaks off: one success among three failures of one cause is a
	// streak of its own.
	h := newHarness(t, &cascade.Detector{Consecutive: -1})
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
	h.run(denied("/etc/x"), denied("/etc/y"), denied("/etc/z"))
	h.run(times(3, readFile("a.go", "package a"))...)
	assert.Equal(t, []string{"Errors@3"}, h.firings())
}

func TestErrorsFireOnAnUnchangedRetryThatFailsTheSameWay(t *testing.T) {
	h := newHarness(t, cascade.New())
	h.run(times(2, denied("/etc/x"))...)
	assert.Equal(t, []string{"Errors@2"}, h.firings())
	assert.Equal(t, "The last 2 calls all failed with `permission denied: <path>`.", h.mustAt(2, "Errors").Summary)

	for name, second := range map[string]observer.ToolCallRecord{
		"changed arguments": denied("/etc/y"),
		"another error":     failed("write_file", `{"path":"/etc/x","content":"x"}`, "disk full"),
	} {
		h := newHarness(t, cascade.New())
		h.run(denied("/etc/x"), second)
		assert.Empty(t, h.firings(), name)
	}
}

func TestErrorsFireWhenOneSuccessBreaksAStreakOfOneCause(t *testing.T) {
	// The cause is told apart past the first 100 bytes of a message.
	boiler := "Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry. ERRORS: "
	edit := func(n int, cause string) observer.ToolCallRecord {
		return failed("edit", fmt.Sprintf(`{"range":"%d:%d"}`, n, n), boiler+cause)
	}
	seats := failed("update", `{"cabin":"economy"}`, "not enough seats on flight HAT229")
	balance := func(card string) observer.ToolCallRecord {
		return failed("update", `{"cabin":"business","payment":"`+card+`"}`, "gift card balance is not enough")
	}
	think := observer.ToolCallRecord{ToolName: "think", Arguments: `{}`, Success: true}

	h := newHarness(t, cascade.New())
	h.run(seats, balance("gift_card_1"), think, balance("gift_card_2"))
	assert.Equal(t, []string{"Errors@4"}, h.firings())
	a := h.mustAt(4, "Errors")
	assert.Equal(t, "3 of the last 4 calls failed; 2 of them with `gift card balance is not enough`.", a.Summary)
	assert.Equal(t, "error_rate", a.Observations[0].Category)

	h = newHarness(t, cascade.New())
	h.run(edit(2, "E999 IndentationError: unexpected indent"), edit(3, "E999 IndentationError: unexpected indent"),
		readFile("a.py", "x"), edit(2, "F821 undefined name 'binascii'"))
	assert.Empty(t, h.firings(), "the latest failure has another cause than the one before it")

	h = newHarness(t, cascade.New())
	for i := range 4 {
		h.run(readFile("a.go", fmt.Sprint(i)), failed("go_test", `{}`, "--- FAIL: TestA"))
	}
	assert.Empty(t, h.firings(), "a test-driven loop fails every other call")
}

func TestErrorsThresholdsAreConfigurable(t *testing.T) {
	tests := []struct {
		name    string
		cascade *cascade.Detector
		pattern string // f and g fail, each with its own cause, o succeeds
		want    []string
	}{
		{"five in a row", &cascade.Detector{Consecutive: 5}, "ffffff", []string{"Errors@5", "Errors@6"}},
		{"streaks turned off", &cascade.Detector{Consecutive: -1}, "fffff", nil},
		{"a half rate over four calls", &cascade.Detector{Window: 4, Rate: 0.5}, "ofof", []string{"Errors@4"}},
		{"rates turned off", &cascade.Detector{Rate: -1}, "fgofgofgofg", nil},
		{"warning after three", &cascade.Detector{WarningAfter: 3}, "fff", []string{"Errors@3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cascade)
			for i, c := range tt.pattern {
				switch c {
				case 'f':
					h.run(denied(fmt.Sprintf("/x/%d", i)))
				case 'g':
					h.run(failed("run", fmt.Sprintf(`{"n":%d}`, i), "exit status 2"))
				default:
					h.run(readFile("a", "1"))
				}
			}
			assert.Equal(t, tt.want, h.firings())
		})
	}
	h := newHarness(t, &cascade.Detector{WarningAfter: 3})
	h.run(denied("/x"), denied("/y"), denied("/z"))
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
