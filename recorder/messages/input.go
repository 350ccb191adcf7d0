package messages

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// ErrNoModelCall reports a model call that the run did not make.
var ErrNoModelCall = errors.New("messages: no such model call in the run")

// InjectedName is the name on the messages Lookout injected into a model
// call (the current assessment, the wrap-up reminder) in the conversation
// FromRecords returns, which marks them as Lookout's.
const InjectedName = "lookout"

// ModelInput returns the input of one model call of a run as the model
// received it, message for message and role for role: the last messages
// of the run's conversation up to the call, as many as the call's request
// counts, replies and tool results included (a failed tool's result as
// the model read it, "Error: <text>"), followed by the messages Lookout
// injected into that call. A later turn of a conversation takes the
// history it was given from the conversation's earlier turns. call counts
// the run's model calls from 0; a negative call counts from the end, -1
// being the last. Options pick the run and tune the messages as for
// FromRecords, except that assessments are never added as messages of
// their own. It fails with ErrNoModelCall when the run made no such call.
//
// Records written before model requests recorded what was injected give
// the input without those messages, and the whole conversation up to the
// call.
func ModelInput(records []recorder.Record, opts *Options, call int) ([]Message, error) {
	o := optionsOf(opts)
	o.Assessments = false
	run, err := pickRun(records, o.RunID)
	if err != nil {
		return nil, err
	}
	mine := recordsOf(records, run)
	n := countRequests(mine)
	if call < 0 {
		call += n
	}
	if call < 0 || call >= n {
		return nil, fmt.Errorf("%w: call %d of %d", ErrNoModelCall, call, n)
	}
	c := conversation{x: exporter{opts: o}, calls: map[string][]slot{}}
	for _, r := range mine {
		p, ok := r.Payload.(*recorder.ModelRequest)
		if ok && call == 0 {
			in := c.history()
			if p.Injected != nil {
				in = tail(in, p.MessageCount-len(p.Injected), func() []Message { return earlierTurns(records, mine, o) })
			}
			return append(in, c.x.injected(p.Injected, false)...), nil
		}
		if ok {
			call--
		}
		c.add(r)
	}
	return nil, fmt.Errorf("%w: call %d of %d", ErrNoModelCall, call, n)
}

// countRequests returns how many model requests records holds.
func countRequests(records []recorder.Record) int {
	n := 0
	for _, r := range records {
		if _, ok := r.Payload.(*recorder.ModelRequest); ok {
			n++
		}
	}
	return n
}

// tail returns the last n messages of history, the earlier ones, which
// before gives, first when history holds fewer.
func tail(history []Message, n int, before func() []Message) []Message {
	if n > len(history) {
		history = append(before(), history...)
	}
	if n >= 0 && n < len(history) {
		history = history[len(history)-n:]
	}
	return history
}

// earlierTurns returns the history of the conversation's turns before
// the one whose records are mine, when mine is a later turn of one.
func earlierTurns(records, mine []recorder.Record, o Options) []Message {
	if len(mine) == 0 {
		return nil
	}
	start, ok := conversationStart(&mine[0])
	if !ok || start.Turn == 0 {
		return nil
	}
	turns, _ := conversationTurns(records, start.ConversationID)
	slices.SortStableFunc(turns, func(a, b turn) int { return cmp.Compare(a.n, b.n) })
	var out []Message
	for _, t := range turns {
		if t.n >= start.Turn {
			break
		}
		c := conversation{x: exporter{opts: o}, calls: map[string][]slot{}}
		for _, r := range recordsOf(records, t.run) {
			c.add(r)
		}
		out = append(out, c.history()...)
	}
	return out
}

// request adds the messages Lookout injected into a model call, marked
// with InjectedName, unless they are the same as the previous call's: the
// model is shown the one current assessment, at the end of its input,
// call after call.
func (c *conversation) request(p *recorder.ModelRequest) {
	if len(p.Injected) == 0 || slices.Equal(p.Injected, c.lastInjected) {
		c.lastInjected = p.Injected
		return
	}
	c.lastInjected = p.Injected
	for _, m := range c.x.injected(p.Injected, true) {
		c.entries = append(c.entries, entry{msg: m, injected: true})
	}
}

// history is the conversation without the messages injected into earlier
// model calls, which the model is not shown again.
func (c *conversation) history() []Message {
	kept := conversation{entries: slices.DeleteFunc(slices.Clone(c.entries), func(e entry) bool { return e.injected })}
	return kept.messages()
}

// injected converts injected messages, named InjectedName when marked.
func (x exporter) injected(in []recorder.InjectedMessage, marked bool) []Message {
	out := make([]Message, 0, len(in))
	for _, m := range in {
		msg := Message{Role: RoleUser, Content: Content{Text: x.redact(m.Content)}}
		if m.Role == string(schema.System) {
			msg.Role = RoleSystem
		}
		if marked {
			msg.Name = InjectedName
		}
		out = append(out, msg)
	}
	return out
}
