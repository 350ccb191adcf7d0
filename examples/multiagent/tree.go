package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/cloudwego/eino/adk"

	"github.com/lookout-go/lookout/recorder"
)

// drain reads a query's events to the end and returns the last message
// without tool calls and the error the query ended with.
func drain(iter *adk.AsyncIterator[*adk.AgentEvent]) (final string, err error) {
	for ev, ok := iter.Next(); ok; ev, ok = iter.Next() {
		if ev.Err != nil {
			err = ev.Err
			continue
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		if msg, e := ev.Output.MessageOutput.GetMessage(); e == nil && msg != nil && len(msg.ToolCalls) == 0 && msg.Content != "" {
			final = msg.Content
		}
	}
	return final, err
}

// printTree prints the runs of records as a tree: each run's agent,
// outcome and stop reason, children under their parent in start order.
func printTree(w io.Writer, records []recorder.Record) {
	children := map[string][]string{} // parent run id → child run ids
	names := map[string]string{}
	ends := map[string]*recorder.RunEnded{}
	for _, r := range records {
		switch p := r.Payload.(type) {
		case *recorder.RunStarted:
			names[r.RunID] = p.AgentName
			children[r.ParentRunID] = append(children[r.ParentRunID], r.RunID)
		case *recorder.RunEnded:
			ends[r.RunID] = p
		}
	}
	var walk func(id string, depth int)
	walk = func(id string, depth int) {
		label := "root " + names[id]
		if depth > 0 {
			label = strings.Repeat("  ", depth) + "└ " + names[id]
		}
		if e := ends[id]; e != nil {
			fmt.Fprintf(w, "%s: %s, %s\n", label, e.Outcome, e.StopReason)
		} else {
			fmt.Fprintf(w, "%s: not ended\n", label)
		}
		for _, c := range children[id] {
			walk(c, depth+1)
		}
	}
	for _, root := range children[""] {
		walk(root, 0)
	}
}
