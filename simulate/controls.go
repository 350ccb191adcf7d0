package simulate

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/cloudwego/eino/schema"
)

// StopUser is the stop reason of a run that the simulated user ended by
// sending the scenario's StopSignal. It counts as completed only when the
// scenario's own criteria agree (Progress.GoalReached); otherwise End lists
// the goals left unmet.
const StopUser StopReason = "user-stop"

// scripted returns the scenario's fixed user message for the turn: the
// Opening on the first turn, else the Script entry, if any.
func (sc *Scenario) scripted(turn int) (string, bool) {
	if turn == 0 && sc.Opening != "" {
		return sc.Opening, true
	}
	text, ok := sc.Script[turn]
	return text, ok
}

// userTurn returns the user message of the turn: the scenario's fixed one,
// or the user model's.
func (ru *run) userTurn(ctx context.Context, turn int, step *Step) (*schema.Message, error) {
	if text, ok := ru.sc.scripted(turn); ok {
		return schema.UserMessage(text), nil
	}
	return ru.userMessage(ctx, step)
}

// stopsConversation reports whether the user message carries the
// scenario's stop signal.
func (sc *Scenario) stopsConversation(msg *schema.Message) bool {
	return sc.StopSignal != "" && strings.Contains(msg.Content, sc.StopSignal)
}

// unmetGoals names the goals not met, or says the goal was not reached
// when the scenario has no named goals.
func unmetGoals(st Progress) []string {
	if st.GoalReached() {
		return nil
	}
	var out []string
	for _, g := range st.Goals {
		if !g.Met {
			out = append(out, g.Name)
		}
	}
	if len(out) == 0 {
		out = []string{"goal not reached"}
	}
	return out
}

// InterruptAction is how a scenario answers an interrupt.
//
// An InterruptAction is an immutable string, safe for concurrent use.
type InterruptAction string

// Interrupt actions.
const (
	InterruptApprove InterruptAction = "approve" // let the tool go ahead
	InterruptReject  InterruptAction = "reject"  // refuse, with Text as the reason
	InterruptReply   InterruptAction = "answer"  // answer the tool's question with Text
)

// InterruptAnswer is a scenario's answer to an interrupt (human-in-the-loop
// approval, a question from a tool). Data, when set, is the resume data
// handed to the interrupted tool instead of the InterruptAnswer itself, for
// tools that expect a type of their own.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type InterruptAnswer struct {
	Action InterruptAction `json:"action"`
	Text   string          `json:"text,omitempty"`
	Data   any             `json:"-"`
}

// ResumeData is what the interrupted tool receives: Data when set, else
// the answer itself.
func (a InterruptAnswer) ResumeData() any {
	if a.Data != nil {
		return a.Data
	}
	return a
}

// InterruptPolicy answers interrupts by the name of the tool that raised
// them; the key "*" answers for any tool without an entry of its own. A
// tool with no answer leaves the interrupt unanswered, which fails the
// turn.
//
// It is safe for concurrent reads.
type InterruptPolicy map[string]InterruptAnswer

// Interruption is an interrupt a target met in a turn, and how the
// scenario answered it. Answered is false when the policy had no answer.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type Interruption struct {
	Tool     string          `json:"tool"`
	CallID   string          `json:"callId,omitempty"`
	Info     string          `json:"info,omitempty"`
	Answer   InterruptAnswer `json:"answer"`
	Answered bool            `json:"answered"`
}

// interrupts carries a turn's policy to its target, and gathers the
// interruptions the target met.
type interrupts struct {
	policy InterruptPolicy
	mu     sync.Mutex
	seen   []Interruption
}

type interruptsKey struct{}

// AnswerInterrupt looks up, for a Target that met an interrupt raised by
// tool, the answer of the scenario being played (Scenario.Interrupts), and
// records the interruption in the turn's StepTrace. info describes the
// interrupt, for the record. ok is false when the scenario has no answer
// for the tool, or ctx is not a turn's. Targets in adapters/simtarget call
// it; a Target of your own may too.
func AnswerInterrupt(ctx context.Context, tool, callID string, info any) (InterruptAnswer, bool) {
	in, _ := ctx.Value(interruptsKey{}).(*interrupts)
	if in == nil {
		return InterruptAnswer{}, false
	}
	a, ok := in.policy[tool]
	if !ok {
		a, ok = in.policy["*"]
	}
	rec := Interruption{Tool: tool, CallID: callID, Answer: a, Answered: ok}
	if info != nil {
		rec.Info = fmt.Sprint(info)
	}
	in.mu.Lock()
	in.seen = append(in.seen, rec)
	in.mu.Unlock()
	return a, ok
}
