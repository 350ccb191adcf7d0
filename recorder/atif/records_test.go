package atif

import (
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// tape builds records the way a recorder would: dense seqs per run and a
// clock that moves one second per record.
type tape struct {
	now     time.Time
	parents map[string]string
	seqs    map[string]uint64
	records []recorder.Record
}

func newTape() *tape {
	return &tape{
		now:     time.Date(2025, 10, 11, 10, 30, 0, 0, time.UTC),
		parents: map[string]string{},
		seqs:    map[string]uint64{},
	}
}

func (tp *tape) depth(run string) int {
	d := 0
	for p := tp.parents[run]; p != "" && d <= len(tp.parents); p = tp.parents[p] {
		d++
	}
	return d
}

func (tp *tape) add(run string, p recorder.Payload) *tape {
	tp.records = append(tp.records, recorder.Record{
		SchemaVersion: recorder.SchemaVersion,
		Seq:           tp.seqs[run],
		RunID:         run,
		ParentRunID:   tp.parents[run],
		Depth:         tp.depth(run),
		RecordedAt:    tp.now,
		Payload:       p,
	})
	tp.seqs[run]++
	tp.now = tp.now.Add(time.Second)
	return tp
}

// start starts run under parent (none when empty), by the parent's tool
// call parentCall when that is not empty.
func (tp *tape) start(run, parent, agent, parentCall string) *tape {
	tp.parents[run] = parent
	return tp.add(run, &recorder.RunStarted{AgentName: agent, ParentToolCallID: parentCall})
}

func (tp *tape) user(run, text string) *tape {
	return tp.add(run, &recorder.Message{Message: schema.UserMessage(text)})
}

func (tp *tape) system(run, text string) *tape {
	return tp.add(run, &recorder.Message{Message: schema.SystemMessage(text)})
}

func (tp *tape) model(run, name string) *tape {
	return tp.add(run, &recorder.ModelRequest{Model: name})
}

// reply records a model response; calls alternate id, name, arguments.
func (tp *tape) reply(run, text string, prompt, completion int64, calls ...string) *tape {
	m := schema.AssistantMessage(text, nil)
	for i := 0; i+2 < len(calls); i += 3 {
		m.ToolCalls = append(m.ToolCalls, schema.ToolCall{
			ID: calls[i], Type: "function",
			Function: schema.FunctionCall{Name: calls[i+1], Arguments: calls[i+2]},
		})
	}
	return tp.add(run, &recorder.ModelResponse{
		Message:       m,
		Usage:         recorder.TokenUsage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion},
		UsageReported: true,
	})
}

func (tp *tape) toolStart(run, id, name, args string) *tape {
	return tp.add(run, &recorder.ToolStarted{CallID: id, Name: name, Arguments: args})
}

func (tp *tape) toolEnd(run, id, name, result string) *tape {
	return tp.add(run, &recorder.ToolEnded{CallID: id, Name: name, Result: result, ResultBytes: len(result), Duration: 250 * time.Millisecond})
}

func (tp *tape) end(run string) *tape {
	return tp.add(run, &recorder.RunEnded{Outcome: recorder.OutcomeCompleted})
}
