package simtarget

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/google/uuid"

	"github.com/lookout-go/lookout/simulate"
)

// Runner adapts an ADK runner. Each Respond runs the agent afresh on the
// whole history (adk.Runner keeps nothing between runs), drains the event
// iterator, and returns the assistant and tool messages of the events in
// order; streamed messages are concatenated, and the results of parallel
// tool calls, which the runner emits as they finish, are listed in the
// order of the calls, as the agent's own history holds them. The options
// are passed to every run.
//
// The events of an agent used as a tool, which the runner forwards with
// adk.ToolsConfig.EmitInternalEvents, are not part of the agent's history
// and are left out: an event is the inner agent's when its run path
// extends that of an agent whose tool calls are not all answered yet. The
// messages of a sub-agent the agent transferred to are kept.
//
// An event error ends the turn with that error, after the messages seen
// before it. The target is safe for concurrent use when the agent is.
//
// An interrupt (a tool calling tool.Interrupt, for human-in-the-loop
// approval) is answered by the scenario being played, through
// simulate.AnswerInterrupt with the name of the interrupted tool: the run
// resumes with adk.Runner.ResumeWithParams, the answer's ResumeData going
// to the tool, and the turn goes on. Resuming needs the runner to have a
// CheckPointStore; each turn uses a checkpoint id of its own. An interrupt
// the scenario does not answer, or more than MaxResumes in one turn, ends
// the turn with ErrInterrupted.
func Runner(r *adk.Runner, opts ...adk.AgentRunOption) simulate.Target {
	return &runnerTarget{r: r, opts: opts}
}

// MaxResumes bounds how often one turn of an ADK target resumes after
// interrupts.
const MaxResumes = 16

// Agent adapts an ADK agent through a non-streaming adk.Runner with an
// in-memory checkpoint store, which keeps each turn's checkpoint only until
// the turn ends. Use Runner to configure the runner yourself.
func Agent(ctx context.Context, a adk.Agent, opts ...adk.AgentRunOption) simulate.Target {
	if a == nil {
		return &runnerTarget{}
	}
	store := &memStore{m: map[string][]byte{}}
	t := Runner(adk.NewRunner(ctx, adk.RunnerConfig{Agent: a, CheckPointStore: store}), opts...).(*runnerTarget)
	t.store = store
	return t
}

type runnerTarget struct {
	r     *adk.Runner
	opts  []adk.AgentRunOption
	store *memStore // the store of a runner Agent built, or nil
}

// memStore is an in-memory adk.CheckPointStore, safe for concurrent use.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *memStore) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = b
	return nil
}

func (s *memStore) delete(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

func (t *runnerTarget) Respond(ctx context.Context, history []*schema.Message) ([]*schema.Message, error) {
	if t.r == nil {
		return nil, ErrNilAgent
	}
	cp := uuid.NewString()
	if t.store != nil {
		defer t.store.delete(cp)
	}
	opts := append(slices.Clip(t.opts), adk.WithCheckPointID(cp))
	iter := t.r.Run(ctx, history, opts...)
	var turn adkTurn
	for resumes := 0; ; resumes++ {
		interrupt, err := turn.drain(iter)
		if err != nil || interrupt == nil {
			return turn.messages(), err
		}
		targets, err := turn.answers(ctx, interrupt)
		if err != nil {
			return turn.messages(), err
		}
		if resumes >= MaxResumes {
			return turn.messages(), fmt.Errorf("%w: still interrupted after %d resumes", ErrInterrupted, MaxResumes)
		}
		iter, err = t.r.ResumeWithParams(ctx, cp, &adk.ResumeParams{Targets: targets}, opts...)
		if err != nil {
			return turn.messages(), fmt.Errorf("%w: resuming: %w", ErrInterrupted, err)
		}
	}
}

// answers asks the scenario for an answer to each root cause of the
// interrupt, by the name of the tool that raised it, and returns them as
// resume targets.
func (t *adkTurn) answers(ctx context.Context, in *adk.InterruptInfo) (map[string]any, error) {
	targets := map[string]any{}
	for _, ic := range in.InterruptContexts {
		if ic == nil || !ic.IsRootCause {
			continue
		}
		callID, tool := t.interruptedTool(ic.Address)
		a, ok := simulate.AnswerInterrupt(ctx, tool, callID, ic.Info)
		if !ok {
			return nil, fmt.Errorf("%w: the scenario has no answer for tool %q", ErrInterrupted, tool)
		}
		targets[ic.ID] = a.ResumeData()
	}
	if len(targets) == 0 {
		return nil, ErrInterrupted
	}
	return targets, nil
}

// interruptedTool reads the call id and the tool name of an interrupt from
// its address: the last tool segment names the call, whose tool the turn's
// messages name. A segment that names no known call is taken as the tool's
// name.
func (t *adkTurn) interruptedTool(addr adk.Address) (callID, tool string) {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i].Type != adk.AddressSegmentTool {
			continue
		}
		id := addr[i].ID
		for _, m := range t.out {
			for _, c := range m.ToolCalls {
				if c.ID == id {
					return id, c.Function.Name
				}
			}
		}
		return id, id
	}
	return "", ""
}

// drain reads the events of one run or resume to their end, collecting
// the messages, and returns the interrupt it ended in, if any, or its
// first error.
func (t *adkTurn) drain(iter *adk.AsyncIterator[*adk.AgentEvent]) (*adk.InterruptInfo, error) {
	var runErr error
	var interrupt *adk.InterruptInfo
	// Drain every event, even after an error, so the run's goroutines end.
	for ev, ok := iter.Next(); ok; ev, ok = iter.Next() {
		if runErr != nil {
			continue
		}
		if ev.Err != nil {
			runErr = ev.Err
			continue
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			mv := ev.Output.MessageOutput
			if t.internal(ev.RunPath) {
				if mv.MessageStream != nil {
					mv.MessageStream.Close()
				}
				continue
			}
			msg, err := mv.GetMessage()
			if err != nil {
				runErr = fmt.Errorf("simtarget: reading %s message stream: %w", mv.Role, err)
				continue
			}
			if msg != nil && (msg.Role == schema.Assistant || msg.Role == schema.Tool) {
				t.add(ev.RunPath, msg)
			}
		}
		if ev.Action != nil && ev.Action.Interrupted != nil {
			interrupt = ev.Action.Interrupted
		}
	}
	if runErr != nil {
		return nil, runErr
	}
	return interrupt, nil
}

// adkTurn collects the messages of one run's events.
type adkTurn struct {
	out []*schema.Message
	// pending holds, for each run path whose agent made tool calls, the
	// ids of the calls not answered yet.
	pending []pendingCalls
	// reorder is set once a tool message arrived out of the order of
	// the calls.
	reorder bool
}

type pendingCalls struct {
	path []adk.RunStep
	ids  []string
}

// internal reports whether an event on path comes from inside a tool
// call: its path extends the path of an agent with calls pending.
func (t *adkTurn) internal(path []adk.RunStep) bool {
	for _, p := range t.pending {
		if len(p.ids) > 0 && len(path) > len(p.path) && slices.Equal(path[:len(p.path)], p.path) {
			return true
		}
	}
	return false
}

func (t *adkTurn) add(path []adk.RunStep, msg *schema.Message) {
	t.out = append(t.out, msg)
	i := slices.IndexFunc(t.pending, func(p pendingCalls) bool { return slices.Equal(p.path, path) })
	switch {
	case msg.Role == schema.Assistant && len(msg.ToolCalls) > 0:
		p := pendingCalls{path: path}
		for _, c := range msg.ToolCalls {
			p.ids = append(p.ids, c.ID)
		}
		if i < 0 {
			t.pending = append(t.pending, p)
		} else {
			t.pending[i] = p
		}
	case msg.Role == schema.Tool && i >= 0:
		p := &t.pending[i]
		if j := slices.Index(p.ids, msg.ToolCallID); j >= 0 {
			if j > 0 {
				t.reorder = true
			}
			p.ids = slices.Delete(p.ids, j, j+1)
		}
	}
}

// messages returns the messages, with the results of each batch of tool
// calls in the order of the calls.
func (t *adkTurn) messages() []*schema.Message {
	if !t.reorder {
		return t.out
	}
	for i := 0; i < len(t.out); i++ {
		calls := t.out[i]
		if calls.Role != schema.Assistant || len(calls.ToolCalls) == 0 {
			continue
		}
		end := i + 1
		for end < len(t.out) && t.out[end].Role == schema.Tool {
			end++
		}
		position := func(m *schema.Message) int {
			if j := slices.IndexFunc(calls.ToolCalls, func(c schema.ToolCall) bool { return c.ID == m.ToolCallID }); j >= 0 {
				return j
			}
			return len(calls.ToolCalls)
		}
		slices.SortStableFunc(t.out[i+1:end], func(a, b *schema.Message) int { return cmp.Compare(position(a), position(b)) })
		i = end - 1
	}
	return t.out
}
