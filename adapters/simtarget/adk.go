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
	var turn adkTurn
	err := t.run(ctx, &turn, history, cp, opts)
	return turn.messages(), err
}

// run runs the agent on history, collecting the messages into turn, and
// resumes it from checkpoint cp after each interrupt the scenario answers.
func (t *runnerTarget) run(ctx context.Context, turn *adkTurn, history []*schema.Message, cp string, opts []adk.AgentRunOption) error {
	iter := t.r.Run(ctx, history, opts...)
	for resumes := 0; ; resumes++ {
		interrupt, err := turn.drain(iter)
		if err != nil || interrupt == nil {
			return err
		}
		iter, err = t.resume(ctx, turn, interrupt, resumes, cp, opts)
		if err != nil {
			return err
		}
	}
}

// resume asks the scenario to answer interrupt and resumes the run from
// checkpoint cp with the answers, unless the turn has already resumed
// MaxResumes times.
func (t *runnerTarget) resume(ctx context.Context, turn *adkTurn, interrupt *adk.InterruptInfo, resumes int, cp string, opts []adk.AgentRunOption) (*adk.AsyncIterator[*adk.AgentEvent], error) {
	targets, err := turn.answers(ctx, interrupt)
	if err != nil {
		return nil, err
	}
	if resumes >= MaxResumes {
		return nil, fmt.Errorf("%w: still interrupted after %d resumes", ErrInterrupted, MaxResumes)
	}
	iter, err := t.r.ResumeWithParams(ctx, cp, &adk.ResumeParams{Targets: targets}, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: resuming: %w", ErrInterrupted, err)
	}
	return iter, nil
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
		in, err := t.read(ev)
		runErr = err
		if in != nil {
			interrupt = in
		}
	}
	if runErr != nil {
		return nil, runErr
	}
	return interrupt, nil
}

// read collects the message of one event and returns the interrupt the
// event ends in, if any, or its error. The action of an event from inside
// a tool call, or of one whose message cannot be read, is ignored.
func (t *adkTurn) read(ev *adk.AgentEvent) (*adk.InterruptInfo, error) {
	if ev.Err != nil {
		return nil, ev.Err
	}
	if out := ev.Output; out != nil && out.MessageOutput != nil {
		if own, err := t.collect(ev.RunPath, out.MessageOutput); !own {
			return nil, err
		}
	}
	return interruptOf(ev.Action), nil
}

// interruptOf returns the interrupt an action carries, if any.
func interruptOf(a *adk.AgentAction) *adk.InterruptInfo {
	if a == nil {
		return nil
	}
	return a.Interrupted
}

// collect adds the assistant or tool message of an event on path to the
// turn. It reports false, with no error, for an event from inside a tool
// call, whose stream it closes unread, and false with the error when the
// message cannot be read.
func (t *adkTurn) collect(path []adk.RunStep, mv *adk.MessageVariant) (bool, error) {
	if t.internal(path) {
		if mv.MessageStream != nil {
			mv.MessageStream.Close()
		}
		return false, nil
	}
	msg, err := mv.GetMessage()
	if err != nil {
		return false, fmt.Errorf("simtarget: reading %s message stream: %w", mv.Role, err)
	}
	if kept(msg) {
		t.add(path, msg)
	}
	return true, nil
}

// kept reports whether msg belongs in the turn: it is an assistant or a
// tool message.
func kept(msg *schema.Message) bool {
	return msg != nil && (msg.Role == schema.Assistant || msg.Role == schema.Tool)
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

// add appends msg, an event's message on path, and keeps track of the tool
// calls of path's agent that are not answered yet.
func (t *adkTurn) add(path []adk.RunStep, msg *schema.Message) {
	t.out = append(t.out, msg)
	switch msg.Role {
	case schema.Assistant:
		t.expect(path, msg.ToolCalls)
	case schema.Tool:
		t.answer(path, msg.ToolCallID)
	}
}

// pendingAt returns the index in t.pending of path's calls, or -1.
func (t *adkTurn) pendingAt(path []adk.RunStep) int {
	return slices.IndexFunc(t.pending, func(p pendingCalls) bool { return slices.Equal(p.path, path) })
}

// expect records calls, made by the agent on path, as pending, in place of
// that agent's earlier calls. A message with no calls changes nothing.
func (t *adkTurn) expect(path []adk.RunStep, calls []schema.ToolCall) {
	if len(calls) == 0 {
		return
	}
	p := pendingCalls{path: path}
	for _, c := range calls {
		p.ids = append(p.ids, c.ID)
	}
	if i := t.pendingAt(path); i >= 0 {
		t.pending[i] = p
		return
	}
	t.pending = append(t.pending, p)
}

// answer marks the call id of the agent on path as answered, and notes
// when an earlier call of the batch is still pending.
func (t *adkTurn) answer(path []adk.RunStep, id string) {
	i := t.pendingAt(path)
	if i < 0 {
		return
	}
	p := &t.pending[i]
	j := slices.Index(p.ids, id)
	if j < 0 {
		return
	}
	if j > 0 {
		t.reorder = true
	}
	p.ids = slices.Delete(p.ids, j, j+1)
}

// messages returns the messages, with the results of each batch of tool
// calls in the order of the calls.
func (t *adkTurn) messages() []*schema.Message {
	if !t.reorder {
		return t.out
	}
	for i := 0; i < len(t.out); i++ {
		if calls := t.out[i]; calls.Role == schema.Assistant && len(calls.ToolCalls) > 0 {
			i = orderResults(t.out, i) - 1
		}
	}
	return t.out
}

// orderResults sorts the tool messages that follow the tool-call message
// out[i] into the order of its calls, and returns the index after them.
func orderResults(out []*schema.Message, i int) int {
	calls := out[i].ToolCalls
	end := i + 1
	for end < len(out) && out[end].Role == schema.Tool {
		end++
	}
	position := func(m *schema.Message) int {
		if j := slices.IndexFunc(calls, func(c schema.ToolCall) bool { return c.ID == m.ToolCallID }); j >= 0 {
			return j
		}
		return len(calls)
	}
	slices.SortStableFunc(out[i+1:end], func(a, b *schema.Message) int { return cmp.Compare(position(a), position(b)) })
	return end
}
