package recorder

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/cloudwego/eino/schema"
)

// TestAnInjectedTextScannedBeforeIsNotScannedAgain: the assessment Lookout
// injects into call after call is redacted once, and its redaction reused
// while the text stays the same; a different text is scanned afresh.
func TestAnInjectedTextScannedBeforeIsNotScannedAgain(t *testing.T) {
	rs := redaction{secrets: true, lastScan: new(scanMemo)}
	block := "## Budget\nkey is sk-abcdefghijklmnop0123 ok"
	first := rs.injected([]InjectedMessage{{Content: block}})
	again := rs.injected([]InjectedMessage{{Content: block}})
	if first[0].Content != "## Budget\nkey is [REDACTED] ok" {
		t.Fatalf("redacted to %q", first[0].Content)
	}
	if unsafe.StringData(again[0].Content) != unsafe.StringData(first[0].Content) {
		t.Error("the same injected text was redacted again rather than reused")
	}
	other := rs.injected([]InjectedMessage{{Content: "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}})
	if other[0].Content != "token [REDACTED]" {
		t.Errorf("a new text after a remembered one redacted to %q", other[0].Content)
	}
	clean := []InjectedMessage{{Content: "## Budget\nall fine"}}
	if got := rs.injected(clean); got != nil {
		t.Errorf("a text with no secret was copied: %v", got)
	}
}

// TestRedactorsRunOnARememberedInjectedText: only the built-in pass is
// remembered; the Options.Redactors run on every record, since nothing
// says they give the same result twice.
func TestRedactorsRunOnARememberedInjectedText(t *testing.T) {
	calls := 0
	count := RedactFunc(func(s string) string { calls++; return s + "." })
	rs := redaction{secrets: true, others: []Redactor{count}, lastScan: new(scanMemo)}
	for range 3 {
		out := rs.injected([]InjectedMessage{{Content: "key is sk-abcdefghijklmnop0123 ok"}})
		if out[0].Content != "key is [REDACTED] ok." {
			t.Fatalf("redacted to %q", out[0].Content)
		}
	}
	if calls != 3 {
		t.Errorf("the redactor ran %d times for 3 records, want 3", calls)
	}
}

// TestAnAssessmentAndItsInjectionAreScannedOnce: the assessment record
// and the message that shows the model the same text share one pass of
// the built-in redactor.
func TestAnAssessmentAndItsInjectionAreScannedOnce(t *testing.T) {
	rs := redaction{secrets: true, lastScan: new(scanMemo)}
	block := "## Budget\nkey is sk-abcdefghijklmnop0123 ok"
	recorded := rs.assessment(&AssessmentRecord{Markdown: block})
	injected := rs.injected([]InjectedMessage{{Content: strings.Clone(block)}})
	if recorded.Markdown != "## Budget\nkey is [REDACTED] ok" {
		t.Fatalf("redacted to %q", recorded.Markdown)
	}
	if unsafe.StringData(injected[0].Content) != unsafe.StringData(recorded.Markdown) {
		t.Error("the injected text was scanned again rather than taken from the assessment's")
	}
}

// TestAToolCallsArgumentsAreScannedOnce: the tool_started record of a
// call the model asked for shares the pass of the built-in redactor over
// its arguments with the model response, whichever call of the response
// it is; arguments of no call of it are scanned afresh.
func TestAToolCallsArgumentsAreScannedOnce(t *testing.T) {
	rs := redaction{secrets: true, lastScan: new(scanMemo), lastCalls: new(callsMemo)}
	first := `{"url":"https://api.example.com","api_key":"sk-abcdefghijklmnop0123"}`
	second := `{"cmd":"curl -u admin:hunter2hunter2 https://example.com"}`
	m := &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{
		{Function: schema.FunctionCall{Name: "fetch", Arguments: first}},
		{Function: schema.FunctionCall{Name: "run", Arguments: second}},
	}}
	recorded := rs.message(m)
	for i, args := range []string{strings.Clone(second), first} {
		started := rs.toolStarted(&ToolStarted{Arguments: args})
		want := recorded.ToolCalls[1-i].Function.Arguments
		if started.Arguments != redactSecrets(args) || started.Arguments != want {
			t.Fatalf("arguments %q redacted to %q, want %q", args, started.Arguments, want)
		}
		if unsafe.StringData(started.Arguments) != unsafe.StringData(want) {
			t.Errorf("the arguments of call %d were scanned again rather than taken from the response's", 1-i)
		}
	}
	other := `{"token":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}`
	if got := rs.toolStarted(&ToolStarted{Arguments: other}).Arguments; got != redactSecrets(other) || got == other {
		t.Errorf("arguments of no call of the response redacted to %q", got)
	}
}
