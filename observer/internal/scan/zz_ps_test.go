package scan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkZZPromptScope(b *testing.B) {
	files, _ := filepath.Glob("../../../internal/detectorbench/testdata/real/*.json")
	var prompts []string
	n := 0
	for _, f := range files {
		bs, _ := os.ReadFile(f)
		var c struct{ Task string }
		json.Unmarshal(bs, &c)
		prompts = append(prompts, c.Task)
		n += len(c.Task)
	}
	b.ResetTimer()
	for range b.N {
		for _, p := range prompts {
			PromptScope(p)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(prompts)), "ns/prompt")
	b.ReportMetric(float64(n)/float64(len(prompts)), "bytes/prompt")
}
