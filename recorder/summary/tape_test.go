package summary_test

import (
	"encoding/json"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// tape builds records the way a recorder writes them: dense seqs per run
// and a clock that moves one second per record.
type tape struct {
	now     time.Time
	parents map[string]string
	seqs    map[string]uint64
	records []recorder.Record
}

func newTape() *tape {
	return &tape{
		now:     time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC),
		parents: map[string]string{},
		seqs:    map[string]uint64{},
	}
}

func (tp *tape) add(run string, p recorder.Payload) *tape {
	depth := 0
	if tp.parents[run] != "" {
		depth = 1
	}
	tp.records = append(tp.records, recorder.Record{
		SchemaVersion: recorder.SchemaVersion,
		Seq:           tp.seqs[run],
		RunID:         run,
		ParentRunID:   tp.parents[run],
		Depth:         depth,
		RecordedAt:    tp.now,
		Payload:       p,
	})
	tp.seqs[run]++
	tp.now = tp.now.Add(time.Second)
	return tp
}

func (tp *tape) start(run, parent, agent string) *tape {
	tp.parents[run] = parent
	return tp.add(run, &recorder.RunStarted{AgentName: agent})
}

func (tp *tape) user(run, text string) *tape {
	return tp.add(run, &recorder.Message{Message: schema.UserMessage(text)})
}

// reply records a model response with usage; calls alternate id and name.
func (tp *tape) reply(run, text string, prompt, completion int64, calls ...string) *tape {
	m := schema.AssistantMessage(text, nil)
	for i := 0; i+1 < len(calls); i += 2 {
		m.ToolCalls = append(m.ToolCalls, schema.ToolCall{
			ID: calls[i], Type: "function",
			Function: schema.FunctionCall{Name: calls[i+1], Arguments: `{}`},
		})
	}
	return tp.add(run, &recorder.ModelResponse{
		Message:       m,
		Usage:         recorder.TokenUsage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion},
		UsageReported: true,
	})
}

func (tp *tape) replyWithoutUsage(run, text string) *tape {
	return tp.add(run, &recorder.ModelResponse{Message: schema.AssistantMessage(text, nil)})
}

func (tp *tape) toolStart(run, id, name string) *tape {
	return tp.add(run, &recorder.ToolStarted{CallID: id, Name: name, Arguments: `{}`})
}

func (tp *tape) toolEnd(run, id, name, result string) *tape {
	return tp.add(run, &recorder.ToolEnded{CallID: id, Name: name, Result: result, Duration: 500 * time.Millisecond})
}

func (tp *tape) toolFail(run, id, name, errText string) *tape {
	return tp.add(run, &recorder.ToolEnded{CallID: id, Name: name, IsError: true, Error: errText, Duration: 250 * time.Millisecond})
}

func (tp *tape) assess(run string, notes ...string) *tape {
	a := &recorder.AssessmentRecord{Markdown: "## Run status"}
	for i := 0; i+1 < len(notes); i += 2 {
		a.Observers = append(a.Observers, recorder.ObserverNote{Name: notes[i], Severity: notes[i+1]})
	}
	return tp.add(run, a)
}

func (tp *tape) exceeded(run, resource string, used, limit int64) *tape {
	return tp.add(run, &recorder.BudgetRecord{Event: recorder.BudgetExceeded, Resource: resource, Used: used, Limit: limit})
}

func (tp *tape) extension(run, name, body string) *tape {
	return tp.add(run, &recorder.Extension{Name: name, Body: json.RawMessage(body)})
}

func (tp *tape) end(run string, outcome recorder.Outcome, stop string) *tape {
	return tp.add(run, &recorder.RunEnded{Outcome: outcome, StopReason: stop})
}
