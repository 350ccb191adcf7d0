package report_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/report"
)

func Example() {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	rec := func(seq uint64, p recorder.Payload) recorder.Record {
		return recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: seq, RunID: "run-1",
			RecordedAt: at.Add(time.Duration(seq) * time.Second), Payload: p}
	}
	records := []recorder.Record{ // as recorder.ReadFile returns them
		rec(0, &recorder.RunStarted{AgentName: "migrator", Limits: recorder.RunLimits{MaxToolCalls: 2}}),
		rec(1, &recorder.ToolStarted{CallID: "c1", Name: "read_file", Arguments: `{"path":"index.html"}`}),
		rec(2, &recorder.ToolEnded{CallID: "c1", Name: "read_file", Result: "<h1>Hello</h1>", Duration: 2 * time.Millisecond}),
		rec(3, &recorder.RunEnded{Outcome: recorder.OutcomeCompleted, Usage: recorder.RunUsage{ToolCalls: 1}}),
	}

	var page strings.Builder // or an *os.File
	if err := report.Write(&page, records, &report.Options{Title: "Migration"}); err != nil {
		fmt.Println(err)
		return
	}
	html := page.String()
	fmt.Println(regexp.MustCompile(`<title>.*</title>`).FindString(html))
	fmt.Println(regexp.MustCompile(`<li class="res-tool_calls"[^>]*>(.*?)</li>`).FindStringSubmatch(html)[1])
	// The tool call, its result escaped: the page shows it as text.
	fmt.Println(regexp.MustCompile(`<details class="tool".*</details>`).FindString(html))
	// Output:
	// <title>Migration</title>
	// tool calls: 50% left <small>(1 of 2)</small>
	// <details class="tool" id="seq-1"><summary>read_file · 2ms</summary><pre class="args">{"path":"index.html"}</pre><pre id="seq-2">&lt;h1&gt;Hello&lt;/h1&gt;</pre></details>
}

// A trajectory file need not be read into memory: WriteJSONL reads its
// records where they are, whatever its size.
func ExampleWriteJSONL() {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var file bytes.Buffer // a trajectory.jsonl, as recorder.NewJSONLSink writes it
	for seq, p := range []recorder.Payload{
		&recorder.RunStarted{AgentName: "migrator"},
		&recorder.ToolStarted{CallID: "c1", Name: "read_file", Arguments: `{"path":"index.html"}`},
		&recorder.ToolEnded{CallID: "c1", Name: "read_file", IsError: true, Error: "no such file"},
		&recorder.RunEnded{Outcome: recorder.OutcomeCompleted},
	} {
		rec := recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: uint64(seq), RunID: "run-1",
			RecordedAt: at.Add(time.Duration(seq) * time.Second), Payload: p}
		line, _ := rec.AppendJSON(nil)
		file.Write(append(line, '\n'))
	}

	var page strings.Builder
	// An *os.File is an io.ReaderAt as well.
	if err := report.WriteJSONL(&page, bytes.NewReader(file.Bytes()), nil); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(regexp.MustCompile(`<li data-k="tool-error".*?</li>`).FindString(page.String()))
	// Output:
	// <li data-k="tool-error" data-tools="read_file"><a href="#seq-1">tool error: read_file</a> <span class="k">no such file</span></li>
}
