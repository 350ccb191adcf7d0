package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// progress reports how far long work has come, on standard error: one
// line per step, or on a terminal one line rewritten in place and cleared
// at the end. The zero progress is quiet. It is not safe for concurrent
// use.
type progress struct {
	w        io.Writer // nil when quiet
	terminal bool
	shown    bool // a line is on the terminal, to clear before other output
}

// newProgress reports on stderr when it is a terminal or when forced
// (--progress), and is quiet otherwise.
func newProgress(stderr io.Writer, forced bool) *progress {
	terminal := isTerminal(stderr)
	if !terminal && !forced {
		return &progress{}
	}
	return &progress{w: stderr, terminal: terminal}
}

// isTerminal reports whether w is a character device, as a terminal is.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// step reports that done of total units of the work named by what are
// done. Work of one unit is not worth reporting.
func (p *progress) step(what string, done, total int) {
	if p == nil || p.w == nil || total < 2 {
		return
	}
	if !p.terminal {
		fmt.Fprintf(p.w, "lookout: %s %d/%d\n", what, done, total)
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[Klookout: %s %d/%d", what, done, total)
	p.shown = true
	if done >= total {
		p.clear()
	}
}

// clear removes the line shown on a terminal, so that what is written
// next starts on a clean line.
func (p *progress) clear() {
	if p == nil || !p.shown {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K")
	p.shown = false
}

// countingModel reports a step each time the summarizer's model answers,
// which it does once per prompt.
type countingModel struct {
	model.BaseChatModel
	mu    sync.Mutex
	done  int
	total int
	p     *progress
}

func (m *countingModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	msg, err := m.BaseChatModel.Generate(ctx, in, opts...)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done = min(m.done+1, m.total)
	m.p.step("summarizing prompts", m.done, m.total)
	return msg, err
}
