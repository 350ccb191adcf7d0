package drive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
)

// writeRequest records a model call about to be made. The offered
// tools' full definitions go with it only when the set is new to the run;
// see toolDefinitions.
func (r *Run) writeRequest(ctx context.Context, input []*schema.Message, m ModelOptions) {
	if r.trace.hasPaused.Load() {
		// The paused calls ran again before the model is called again;
		// the calls of its reply are new ones, whatever their ids.
		r.setPausedCalls(nil)
	}
	from := injectedFrom(input)
	r.recordNew(ctx, input[:from], r.trace.input.Load() && r.trace.input.CompareAndSwap(true, false))
	req := recorder.ModelRequest{MessageCount: len(input), Model: m.Model, Injected: r.injectedIn(input[from:])}
	req.Tools, req.ToolDefinitions = r.offered(ctx, m.Tools)
	req.ToolsWithheld = r.WrappingUp() && (len(req.Tools) == 0 || m.ToolChoiceForbidden)
	req.Stream = m.Stream
	r.note(r.trace.rec.ModelRequest(ctx, req))
}

// injectedFrom returns where the messages Lookout injected into input
// start: Reinject puts them at its end.
func injectedFrom(input []*schema.Message) int {
	from := len(input)
	for from > 0 {
		if _, ok := lookout.Injected(input[from-1]); !ok {
			break
		}
		from--
	}
	return from
}

// injectedIn returns the messages Lookout injected into a model call,
// tail, the end of its input, as the model receives them: never nil, so
// that the record says that nothing was injected. The same messages as
// the run's last call give the same slice, which records share. A new
// block alone, the usual case, is recorded in the room made with it.
func (r *Run) injectedIn(tail []*schema.Message) []recorder.InjectedMessage {
	s := &r.trace.injected
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out != nil && slices.Equal(s.msgs, tail) {
		return s.out
	}
	r.mu.Lock()
	block, index := r.block, int(r.blockIndex)
	var out []recorder.InjectedMessage
	if len(tail) == 1 && tail[0] == block {
		// Taken once: a record may hold it.
		out, r.blockRecord = r.blockRecord, nil
	}
	r.mu.Unlock()
	if out == nil {
		out = make([]recorder.InjectedMessage, 0, len(tail))
	}
	for _, m := range tail {
		kind, _ := lookout.Injected(m)
		im := recorder.InjectedMessage{Kind: kind, Role: string(m.Role), Content: m.Content}
		if kind == lookout.TagAssessment {
			// The call index of the assessment whose block m is, the
			// run's current block; -1 for another.
			im.AfterCallIndex = -1
			if m == block {
				im.AfterCallIndex = index
			}
		}
		out = append(out, im)
	}
	s.msgs, s.out = append(s.msgs[:0], tail...), out
	return out
}

// lastInjected is what a run's last model call was injected, and how it
// was recorded.
type lastInjected struct {
	mu   sync.Mutex
	msgs []*schema.Message
	out  []recorder.InjectedMessage
}

// offeredTools is the tool set a run last offered.
type offeredTools struct {
	mu       sync.Mutex
	set      *toolSet                  // as last offered
	recorded []recorder.ToolDefinition // as last recorded; nil after a failed conversion
}

// toolSet is a set of offered tools converted for the recording. It is
// not changed once made, so the runs that offer the same tools share it.
type toolSet struct {
	infos []*schema.ToolInfo        // as offered, compared by pointer
	names []string                  // their names, shared by the requests that offer them
	defs  []recorder.ToolDefinition // nil when the conversion failed
	err   error                     // why it failed
}

// offered returns the names of the offered tools, and their definitions
// when the set differs from the one the run last recorded (nil when it is
// the same or empty). The same tools (see sameInfo) are taken as
// unchanged without converting anything, which is the common case: the
// agent offers one set call after call, and query after query. Anything
// else is converted and compared by content, so a set rebuilt with equal
// values is not written again. A conversion error goes
// to the run's error handler and the request keeps the names only.
func (r *Run) offered(ctx context.Context, tools []*schema.ToolInfo) (names []string, defs []recorder.ToolDefinition) {
	if len(tools) == 0 {
		return nil, nil
	}
	s := &r.trace.tools
	s.mu.Lock()
	if s.set != nil && slices.EqualFunc(s.set.infos, tools, sameInfo) {
		names = s.set.names
		s.mu.Unlock()
		return names, nil
	}
	set := r.l.toolSet(tools)
	same := set.err == nil && slices.EqualFunc(s.recorded, set.defs, sameDefinition)
	s.set, s.recorded = set, set.defs
	s.mu.Unlock()
	if set.err != nil {
		r.cfg.OnError(ctx, set.err)
		return set.names, nil
	}
	if same {
		return set.names, nil
	}
	return set.names, set.defs
}

// toolSet returns tools converted, reusing the last set converted when
// it holds the same tools (see sameInfo): the tools an agent offers are
// converted once, not once a query. A *schema.ToolInfo changed in place
// after it was first offered is recorded as it was then.
func (l *Lookout) toolSet(tools []*schema.ToolInfo) *toolSet {
	if last := l.tools.Load(); last != nil && slices.EqualFunc(last.infos, tools, sameInfo) {
		return last
	}
	defs, err := toolDefinitions(tools)
	set := &toolSet{infos: slices.Clone(tools), names: toolNames(tools), defs: defs, err: err}
	l.tools.Store(set)
	return set
}

// sameInfo reports whether a and b are the same tool for the recording:
// the same pointer, or, as Eino builds the infos of an agent's tools anew
// for each run, the same name and description and the same parameters
// (compared by pointer) with nothing in Extra, which may carry an MCP
// source.
func sameInfo(a, b *schema.ToolInfo) bool {
	return a == b || a != nil && b != nil && a.Name == b.Name && a.Desc == b.Desc &&
		a.ParamsOneOf == b.ParamsOneOf && len(a.Extra) == 0 && len(b.Extra) == 0
}

// toolNames returns the names of tools, skipping nil infos.
func toolNames(tools []*schema.ToolInfo) []string {
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		if t != nil {
			names = append(names, t.Name)
		}
	}
	return names
}

// toolDefinitions converts Eino tool infos to recorded definitions, with
// the parameters as the JSON Schema the model is sent. Nil infos are
// skipped, as in the request's names.
func toolDefinitions(tools []*schema.ToolInfo) (defs []recorder.ToolDefinition, err error) {
	name := ""
	defer func() {
		// A hand-built schema may panic while it is converted or
		// marshalled; that must not take the run down.
		if p := recover(); p != nil {
			defs, err = nil, fmt.Errorf("lookout: recording the definition of tool %q: panic: %v", name, p)
		}
	}()
	defs = make([]recorder.ToolDefinition, 0, len(tools))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, t := range tools {
		if t == nil {
			continue
		}
		name = t.Name
		d := recorder.ToolDefinition{Name: t.Name, Description: t.Desc}
		js, err := t.ToJSONSchema()
		if err != nil {
			return nil, fmt.Errorf("lookout: recording the definition of tool %q: %w", t.Name, err)
		}
		if js != nil {
			buf.Reset()
			if err := enc.Encode(js); err != nil {
				return nil, fmt.Errorf("lookout: recording the definition of tool %q: %w", t.Name, err)
			}
			d.Parameters = bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
		}
		defs = append(defs, d)
	}
	return defs, nil
}

func sameDefinition(a, b recorder.ToolDefinition) bool {
	return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.Parameters, b.Parameters)
}

// writeResponse records a model call's reply and the tokens charged.
func (r *Run) writeResponse(ctx context.Context, msg *schema.Message, u *budget.Usage, latency time.Duration, model, provider string) {
	resp := recorder.ModelResponse{Message: msg, Latency: latency, UsageReported: u != nil, Model: model, Provider: provider}
	if u != nil {
		resp.Usage = recorder.TokenUsage{
			PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.Total(),
			CachedTokens: u.CachedTokens, CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens,
		}
		resp.CostUSD = u.CostUSD
	}
	if msg != nil && msg.ResponseMeta != nil {
		resp.FinishReason = msg.ResponseMeta.FinishReason
	}
	r.note(r.trace.rec.ModelResponse(ctx, resp))
	calls := 0
	if msg != nil {
		calls = len(msg.ToolCalls)
	}
	r.trace.seen.replied(calls)
	r.trace.usage.modelCalls.Add(1)
	if u != nil {
		r.trace.usage.prompt.Add(u.PromptTokens)
		r.trace.usage.completion.Add(u.CompletionTokens)
		r.trace.usage.total.Add(u.Total())
		r.trace.usage.cached.Add(u.CachedTokens)
		r.trace.usage.cacheWrite.Add(u.CacheWriteTokens)
		r.trace.usage.reasoning.Add(u.ReasoningTokens)
		b := r.tracker.Budget()
		r.note(r.trace.rec.Budget(ctx, recorder.BudgetRecord{
			Event: recorder.BudgetCharged, Resource: string(budget.Tokens), Amount: u.Total(), Used: b.TokensUsed, Limit: b.MaxTokens,
		}))
		if u.CostUSD > 0 {
			r.trace.usage.addCost(u.CostUSD)
			r.note(r.trace.rec.Budget(ctx, recorder.BudgetRecord{
				Event: recorder.BudgetCharged, Resource: string(budget.CostUSD),
				Amount: budget.MicroUSD(u.CostUSD), Used: budget.MicroUSD(b.CostUSD), Limit: budget.MicroUSD(b.MaxCostUSD),
			}))
		}
	}
}

// writeFailed records a model call attempt that failed with err: a
// model_response with the error, no message and no usage.
func (r *Run) writeFailed(ctx context.Context, err error, latency time.Duration, model, provider string) {
	r.note(r.trace.rec.ModelResponse(ctx, recorder.ModelResponse{
		Latency: latency, Model: model, Provider: provider, Error: errorText(err),
	}))
	r.trace.usage.modelCalls.Add(1)
}

func (c *Call) recordStart(ctx context.Context) {
	if c.run.trace.rec != nil {
		c.writeStart(ctx)
	}
}

func (c *Call) writeStart(ctx context.Context) {
	c.run.trace.open.add(c.id, c.name)
	if c.run.trace.hasPaused.Load() && c.run.unpause(c.id) {
		return // started before the interrupt that paused it
	}
	c.run.trace.usage.toolCalls.Add(1)
	src := c.run.mcpSource(c.name)
	c.run.note(c.run.trace.rec.ToolStarted(ctx, recorder.ToolStarted{
		CallID: c.id, Name: c.name, Arguments: c.args, MCPServer: src.Server, MCPTool: src.Tool, Control: c.control,
	}))
}

// recordRefused records a tool call the budget refused: it did not run,
// and refusal is the tool message the model gets instead of its result.
// Without the record, a conversation export would hold a call that was
// never answered.
func (r *Run) recordRefused(ctx context.Context, name, callID, refusal string, err error) {
	if r.trace.rec != nil {
		r.note(r.trace.rec.ToolEnded(ctx, recorder.ToolEnded{CallID: callID, Name: name, Result: refusal, IsError: true, Error: err.Error()}))
	}
}

func (c *Call) writeEnd(ctx context.Context, rec *observer.ToolCallRecord, result string, err error) {
	if !c.run.trace.open.remove(c.id) {
		return // ended with the run, as abandoned
	}
	te := recorder.ToolEnded{CallID: c.id, Name: c.name, Result: result, IsError: err != nil, Duration: rec.Duration, CallIndex: int(rec.CallIndex), Parts: c.parts}
	if err != nil {
		te.Error = err.Error()
	}
	c.run.note(c.run.trace.rec.ToolEnded(ctx, te))
}

// efficacyExtension is the name of the extension records that say how the
// agent reacted to an assessment; recorder/summary reads them.
const efficacyExtension = "lookout.efficacy"
