package recorder_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

// cleanTexts are texts without secrets as agents' tools return them:
// prose (the project's README), a JSON tool result and Go code (the
// recorder's reader).
func cleanTexts(tb testing.TB) map[string]string {
	prose, err := os.ReadFile("../README.md")
	if err != nil {
		tb.Fatal(err)
	}
	code, err := os.ReadFile("reader.go")
	if err != nil {
		tb.Fatal(err)
	}
	type hit struct {
		ID, Title, URL, Snippet string
		Score                   float64
		Tags                    []string
	}
	var hits []hit
	for i := range 24 {
		hits = append(hits, hit{
			ID: fmt.Sprintf("doc-%04d", i), Title: fmt.Sprintf("Release notes %d.%d", i/10, i%10),
			URL:     fmt.Sprintf("https://example.com/docs/releases/%d", i),
			Snippet: "The scheduler now retries failed jobs with backoff; the task-manager keeps at most 64 of them in memory.",
			Score:   1 / float64(i+1), Tags: []string{"release", "scheduler"},
		})
	}
	results, err := json.Marshal(map[string]any{"query": "retry backoff", "total": len(hits), "results": hits})
	if err != nil {
		tb.Fatal(err)
	}
	return map[string]string{"prose": string(prose), "json": string(results), "code": string(code)}
}

// BenchmarkSecretsCleanText measures the built-in redactor on text that
// holds no secret, the common case; its rate, in MB/s, is the inverse of
// ns per byte.
func BenchmarkSecretsCleanText(b *testing.B) {
	texts := cleanTexts(b)
	for _, name := range []string{"prose", "json", "code"} {
		in := texts[name]
		b.Run(name, func(b *testing.B) {
			r := recorder.Secrets()
			if out := r.Redact(in); out != in {
				b.Logf("changed %d bytes of %d", len(out)-len(in), len(in))
			}
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				_ = r.Redact(in)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(in)), "ns/byte")
		})
	}
}

func TestCleanTextsStayClean(t *testing.T) {
	for name, in := range cleanTexts(t) {
		if out := recorder.Secrets().Redact(in); out != in {
			i := 0
			for i < len(in) && i < len(out) && in[i] == out[i] {
				i++
			}
			t.Errorf("%s changed at %d: %q", name, i, out[max(0, i-80):min(len(out), i+80)])
		}
	}
}
