package messages

import (
	"fmt"
	"io"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// benchRecords is a run of n model turns with two parallel tool calls each.
func benchRecords(n int) *runTape {
	tp := newRunTape().msg("r", schema.UserMessage("go"))
	for i := range n {
		a, b := fmt.Sprintf("c%d-a", i), fmt.Sprintf("c%d-b", i)
		tp.reply("r", "working", call(a, "read_file", `{"path":"main.go"}`), call(b, "grep", `{"pattern":"TODO"}`)).
			result("r", b, "3 matches").result("r", a, "package main")
	}
	return tp
}

func BenchmarkFromRecords(b *testing.B) {
	records := benchRecords(500).records // 1,000 tool calls
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromRecords(records, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	msgs, err := FromRecords(benchRecords(500).records, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, msgs); err != nil {
			b.Fatal(err)
		}
	}
}
