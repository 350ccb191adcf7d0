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
		if content, ok := answer(ev); ok {
			final = content
		}
	}
	return final, err
}

// answer returns the content of the message ev carries when it has some
// and no tool calls.
func answer(ev *adk.AgentEvent) (string, bool) {
	if ev.Output == nil || ev.Output.MessageOutput == nil {
		return "", false
	}
	msg, err := ev.Output.MessageOutput.GetMessage()
	if err != nil || msg == nil || len(msg.ToolCalls) > 0 {
		return "", false
	}
	return msg.Content, msg.Content != ""
}

// printTree prints the runs of records as a tree: each run's agent,
// outcome and stop reason, children under their parent in start order.
func printTree(w io.Writer, records []recorder.Record) {
	t := newRunTree(records)
	for _, root := range t.children[""] {
		t.print(w, root, 0)
	}
}

// runTree is what printTree needs of each run.
type runTree struct {
	children map[string][]string // parent run id → child run ids
	names    map[string]string
	ends     map[string]*recorder.RunEnded
}

// newRunTree gathers the runs of records.
func newRunTree(records []recorder.Record) *runTree {
	t := &runTree{children: map[string][]string{}, names: map[string]string{}, ends: map[string]*recorder.RunEnded{}}
	for _, r := range records {
		switch p := r.Payload.(type) {
		case *recorder.RunStarted:
			t.names[r.RunID] = p.AgentName
			t.children[r.ParentRunID] = append(t.children[r.ParentRunID], r.RunID)
		case *recorder.RunEnded:
			t.ends[r.RunID] = p
		}
	}
	return t
}

// print prints run id at depth, then the runs it started under it.
func (t *runTree) print(w io.Writer, id string, depth int) {
	label := "root " + t.names[id]
	if depth > 0 {
		label = strings.Repeat("  ", depth) + "└ " + t.names[id]
	}
	if e := t.ends[id]; e != nil {
		fmt.Fprintf(w, "%s: %s, %s\n", label, e.Outcome, e.StopReason)
	} else {
		fmt.Fprintf(w, "%s: not ended\n", label)
	}
	for _, c := range t.children[id] {
		t.print(w, c, depth+1)
	}
}
