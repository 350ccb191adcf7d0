package simulate

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
)

// userPrompt builds the messages that ask the user model for the next user
// message. The system prompt carries the persona, the goal and the
// guardrails; the user prompt carries the recent turns and the step to work
// on.
func userPrompt(sc *Scenario, step *Step, traces []StepTrace, contextTurns int) []*schema.Message {
	var sys strings.Builder
	sys.WriteString("You are role-playing a person who is talking to an AI assistant. You are the user, not the assistant.\n")
	p := sc.Persona
	if p.Name != "" || p.Description != "" {
		sys.WriteString("\nWho you are: ")
		if p.Name != "" {
			sys.WriteString(p.Name)
			if p.Description != "" {
				sys.WriteString(". ")
			}
		}
		sys.WriteString(p.Description)
		sys.WriteByte('\n')
	}
	sys.WriteString("\nYour goal in this conversation: ")
	sys.WriteString(sc.Goal)
	sys.WriteByte('\n')
	if len(p.Guardrails) > 0 {
		sys.WriteString("\nRules you must follow in every message, whatever the assistant says:\n")
		for _, g := range p.Guardrails {
			sys.WriteString("- ")
			sys.WriteString(g)
			sys.WriteByte('\n')
		}
	}
	sys.WriteString("\nWrite only the next message the user sends: plain text in the user's voice, with no role label, quotes or explanation.")

	var u strings.Builder
	if len(traces) == 0 {
		u.WriteString("The conversation has not started yet. Write your opening message.\n")
	} else {
		u.WriteString("The conversation so far (most recent turns):\n")
		formatTraces(&u, traces, contextTurns)
	}
	if step != nil {
		u.WriteString("\nWhat to do in this message: ")
		u.WriteString(step.Instruction)
		u.WriteByte('\n')
		if len(step.Hints) > 0 {
			u.WriteString("Hints:\n")
			for _, h := range step.Hints {
				u.WriteString("- ")
				u.WriteString(h)
				u.WriteByte('\n')
			}
		}
	} else {
		u.WriteString("\nNo particular step applies now: continue naturally toward your goal.\n")
	}
	return []*schema.Message{schema.SystemMessage(sys.String()), schema.UserMessage(u.String())}
}

// nextUserMessage asks the user model for the next message.
func (r *Runner) nextUserMessage(ctx context.Context, sc *Scenario, step *Step, traces []StepTrace) (_ *schema.Message, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: user model: %v", ErrPanicked, p)
		}
	}()
	out, err := r.UserModel.Generate(ctx, userPrompt(sc, step, traces, r.userContextTurns()))
	if err != nil {
		return nil, err
	}
	text := strings.TrimSpace(msgtext.Of(out))
	if text == "" {
		return nil, ErrEmptyUserMessage
	}
	return schema.UserMessage(text), nil
}
