package drift

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadResults(b *testing.B) []string {
	files, _ := filepath.Glob("../../internal/detectorbench/testdata/real/*_*.json")
	var out []string
	for _, f := range files {
		data, _ := os.ReadFile(f)
		var r struct{ Calls []struct{ Result string } }
		json.Unmarshal(data, &r)
		for _, c := range r.Calls {
			out = append(out, c.Result)
		}
	}
	return out
}

func BenchmarkTmpPrefilter(b *testing.B) {
	rs := loadResults(b)
	n := 0
	for _, r := range rs {
		if mayAddress(r[:min(len(r), maxPlantedText)]) {
			n++
		}
	}
	b.Logf("%d of %d pass", n, len(rs))
	for b.Loop() {
		for _, r := range rs {
			mayAddress(r[:min(len(r), maxPlantedText)])
		}
	}
}

func BenchmarkTmpRead(b *testing.B) {
	rs := loadResults(b)
	for b.Loop() {
		for _, r := range rs {
			var p planted
			p.readResult(1, r)
		}
	}
}

func BenchmarkTmpNeedles(b *testing.B) {
	rs := loadResults(b)
	for _, w := range []string{"uction", "UCTION", "istant", "ISTANT", "Assistant", "assistant", "ai", "Ai"} {
		b.Run(w, func(b *testing.B) {
			for b.Loop() {
				for _, r := range rs {
					strings.Contains(r, w)
				}
			}
		})
	}
}
