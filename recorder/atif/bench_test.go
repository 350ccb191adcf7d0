package atif

import (
	"fmt"
	"testing"
)

// benchTape is a run of n model turns, each with two parallel tool calls.
func benchTape(n int) *tape {
	tp := newTape().start("root", "", "bench", "").user("root", "go")
	for i := range n {
		a, b := fmt.Sprintf("c%d-a", i), fmt.Sprintf("c%d-b", i)
		tp.model("root", "gpt-4o").
			reply("root", "working on it", 1000, 50, a, "read_file", `{"path":"src/main.go"}`, b, "grep", `{"pattern":"TODO","dir":"."}`).
			toolStart("root", a, "read_file", "").toolStart("root", b, "grep", "").
			toolEnd("root", b, "grep", "3 matches").toolEnd("root", a, "read_file", "package main\n\nfunc main() {}\n")
	}
	return tp.end("root")
}

func BenchmarkFromRecords(b *testing.B) {
	records := benchTape(500).records // 1,000 tool calls
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromRecords(records, testOptions); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	t, err := FromRecords(benchTape(500).records, testOptions)
	if err != nil {
		b.Fatal(err)
	}
	data, err := Encode(t)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if p := Validate(data); p != nil {
			b.Fatal(p)
		}
	}
}

func BenchmarkToRecords(b *testing.B) {
	t, err := FromRecords(benchTape(500).records, testOptions)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ToRecords(t); err != nil {
			b.Fatal(err)
		}
	}
}
