package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// Tool returns t answering from the recording: each call is matched to a
// recorded call of the same run and tool, by its call id or else by its
// arguments once redacted and normalized, and returns the recorded
// result, or the recorded error. A call the recording does not have is a
// divergence. In record mode Tool returns t.
//
// The returned tool is safe for concurrent use.
func (c *Cassette) Tool(t tool.InvokableTool) tool.InvokableTool {
	if c.recording != nil {
		return t
	}
	return &recordedTool{c: c, inner: t}
}

// Live returns t running live, with the cassette's clock moved to the
// recorded end of the matching recorded call, if any, when it returns.
// In record mode Live returns t.
func (c *Cassette) Live(t tool.InvokableTool) tool.InvokableTool {
	if c.recording != nil {
		return t
	}
	return &liveTool{c: c, inner: t}
}

// Tools wraps the invokable tools of ts with [Cassette.Tool], except
// those named in live, which run live (see [Cassette.Live]). The same
// live list may serve every agent of a program: names that none of ts
// has are ignored. Tools of other kinds, such as streaming tools, are
// returned as they are. In record mode Tools returns ts.
func (c *Cassette) Tools(ctx context.Context, ts []tool.BaseTool, live ...string) ([]tool.BaseTool, error) {
	if c.recording != nil {
		return ts, nil
	}
	out := make([]tool.BaseTool, len(ts))
	for i, t := range ts {
		out[i] = t
		it, ok := t.(tool.InvokableTool)
		if !ok {
			continue
		}
		info, err := t.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("replay: tool info: %w", err)
		}
		if slices.Contains(live, info.Name) {
			out[i] = c.Live(it)
		} else {
			out[i] = c.Tool(it)
		}
	}
	return out, nil
}

type recordedTool struct {
	c     *Cassette
	inner tool.InvokableTool
}

func (t *recordedTool) Info(ctx context.Context) (*schema.ToolInfo, error) { return t.inner.Info(ctx) }

func (t *recordedTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	info, err := t.inner.Info(ctx)
	if err != nil {
		return "", err
	}
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return "", c.err
	}
	r := c.runFor(ctx)
	rt := c.matchTool(r, info.Name, compose.GetToolCallID(ctx), args)
	if rt == nil {
		return "", c.diverge(c.unknownCall(r, info.Name, args))
	}
	c.use(rt)
	if rt.ended == nil {
		return "", c.diverge(neverEnded(r, rt, info.Name))
	}
	return recordedResult(rt.ended)
}

// neverEnded reports a call of tool name that the recording of run r,
// which may be nil, started and never ended.
func neverEnded(r *recRun, rt *recTool, name string) *DivergenceError {
	d := &DivergenceError{
		ModelCall: 0, Seq: rt.seq, Message: -1, ToolCallIndex: rt.started.CallIndex,
		Reason: fmt.Sprintf("tool call #%d, %s, never ended in the recording: run it live", rt.started.CallIndex, name),
	}
	if r != nil {
		d.RunID, d.Agent = r.id, r.agent
	}
	return d
}

// recordedResult is what the tool returned in the recording: its result,
// or its error for a failed call that the budget did not refuse.
func recordedResult(te *recorder.ToolEnded) (string, error) {
	if te.IsError && !strings.HasPrefix(te.Result, refusalPrefix) {
		return "", errors.New(te.Error)
	}
	return te.Result, nil
}

type liveTool struct {
	c     *Cassette
	inner tool.InvokableTool
}

func (t *liveTool) Info(ctx context.Context) (*schema.ToolInfo, error) { return t.inner.Info(ctx) }

func (t *liveTool) InvokableRun(ctx context.Context, args string, opts ...tool.Option) (string, error) {
	out, err := t.inner.InvokableRun(ctx, args, opts...)
	if info, ierr := t.inner.Info(ctx); ierr == nil {
		c := t.c
		c.mu.Lock()
		r := c.runFor(ctx)
		if rt := c.matchTool(r, info.Name, compose.GetToolCallID(ctx), args); rt != nil {
			c.use(rt)
			c.keepLive(r, rt, info.Name, out, err)
		}
		c.mu.Unlock()
	}
	return out, err
}

// liveResult is what a live tool call returned, kept until a model call
// of its run is given it (see checkLive).
type liveResult struct {
	r   *recRun // nil when the call's run is not known
	rt  *recTool
	got *schema.Message // the result as the model would be given it
}

// keepLive keeps the result of live call rt of run r, unless its
// recording never ended or messages are not compared. The caller holds
// c.mu.
func (c *Cassette) keepLive(r *recRun, rt *recTool, name, out string, err error) {
	if rt.ended == nil || c.opts.IgnoreMessages {
		return
	}
	got := &schema.Message{Role: schema.Tool, Content: out, ToolCallID: rt.ended.CallID, ToolName: name}
	if err != nil {
		got.Content = errorContent(err.Error())
	}
	c.unchecked = append(c.unchecked, liveResult{r: r, rt: rt, got: got})
}

// givenLive forgets the live results of run r: a model call of r was
// given them, and its input check compared them. The caller holds c.mu.
func (c *Cassette) givenLive(r *recRun) {
	c.unchecked = slices.DeleteFunc(c.unchecked, func(l liveResult) bool { return l.r == r })
}

// checkLive compares with the recording the live results that no model
// call was given, because the run ended with them (a tool that returns
// directly, an interrupt, an error), and keeps the first that differs as
// the divergence. The caller holds c.mu.
func (c *Cassette) checkLive() {
	for _, l := range c.unchecked {
		if c.err != nil {
			break
		}
		te := l.rt.ended
		w := want{msg: toolMessage(te), truncated: te.Truncated, toolCall: te.CallIndex}
		got := c.redact(l.got)
		if c.same(w, got) {
			continue
		}
		d := &DivergenceError{
			ModelCall: 0, Seq: l.rt.seq, Message: -1, ToolCallIndex: te.CallIndex,
			Reason: fmt.Sprintf("the result of tool call #%d, %s, differs, and no model call was given it", te.CallIndex, te.Name),
			Diff:   lineDiff(render(w.msg), render(got)),
		}
		if l.r != nil {
			d.RunID, d.Agent = l.r.id, l.r.agent
		}
		c.diverge(d)
	}
	c.unchecked = nil
}

// matchTool finds the unused recorded call of tool name in run r (in any
// run when r is nil) that the live call replays: the one with the same
// call id and arguments, or else the first with the same arguments. The
// caller holds c.mu.
func (c *Cassette) matchTool(r *recRun, name, callID, args string) *recTool {
	runs := c.runs
	if r != nil {
		runs = []*recRun{r}
	}
	sameArgs := c.sameArgs(args)
	var first *recTool
	for _, rr := range runs {
		exact, f := rr.matchTool(name, callID, sameArgs)
		if exact != nil {
			return exact
		}
		if first == nil {
			first = f
		}
	}
	return first
}

// matchTool finds the unused recorded calls of tool name in r with the
// same arguments: the one with call id callID, if any, and the first.
func (r *recRun) matchTool(name, callID string, sameArgs func(recorded string, truncated bool) bool) (exact, first *recTool) {
	for _, rt := range r.tools {
		if !rt.replays(name, sameArgs) {
			continue
		}
		if callID != "" && rt.started.CallID == callID {
			return rt, first
		}
		if first == nil {
			first = rt
		}
	}
	return nil, first
}

// replays reports whether live call of tool name, whose arguments
// sameArgs compares, may replay t: t is unused and of the same tool with
// the same arguments.
func (t *recTool) replays(name string, sameArgs func(recorded string, truncated bool) bool) bool {
	s := t.started
	return !t.used && s.Name == name && sameArgs(s.Arguments, s.ArgumentsTruncated)
}

// sameArgs returns what compares recorded arguments with the live
// arguments args, redacted: normalized, or as a prefix when the
// recording cut them.
func (c *Cassette) sameArgs(args string) func(recorded string, truncated bool) bool {
	live := c.redactText(args)
	norm := c.norm.Normalize(live)
	return func(s string, truncated bool) bool {
		if truncated {
			return strings.HasPrefix(live, s)
		}
		return c.norm.Normalize(s) == norm
	}
}

// unknownCall reports a tool call the recording does not have, with the
// arguments of the run's next unused call of that tool as the diff.
func (c *Cassette) unknownCall(r *recRun, name, args string) *DivergenceError {
	d := &DivergenceError{
		Message: -1, ToolCallIndex: -1,
		Reason: fmt.Sprintf("tool call %s(%s) is not in the recording", name, c.redactText(args)),
	}
	if r == nil {
		return d
	}
	d.RunID, d.Agent, d.Seq = r.id, r.agent, r.lastSeq()
	for _, rt := range r.tools {
		if !rt.used && rt.started.Name == name {
			d.Seq, d.ToolCallIndex = rt.seq, rt.started.CallIndex
			d.Reason = fmt.Sprintf("the arguments of tool call #%d, %s, differ", rt.started.CallIndex, name)
			d.Diff = lineDiff(rt.started.Arguments+"\n", c.redactText(args)+"\n")
			break
		}
	}
	return d
}
