package simulate

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
)

// userPrompt builds the messages that ask the user model for the next user
// message. The system prompt carries the persona, the goal and the
// guardrails; the user prompt carries the recent turns and the step to work
// on.
func userPrompt(sc *Scenario, step *Step, traces []StepTrace, contextTurns int) []*schema.Message {
	return []*schema.Message{
		schema.SystemMessage(systemPrompt(sc)),
		schema.UserMessage(turnPrompt(step, traces, contextTurns)),
	}
}

// systemPrompt sets the user model up as the scenario's persona, working
// toward its goal within its guardrails.
func systemPrompt(sc *Scenario) string {
	var sys strings.Builder
	sys.WriteString("You are role-playing a person who is talking to an AI assistant. You are the user, not the assistant.\n")
	p := sc.Persona
	if p.Name != "" || p.Description != "" {
		sys.WriteString("\nWho you are: ")
		sys.WriteString(who(p))
		sys.WriteByte('\n')
	}
	sys.WriteString("\nYour goal in this conversation: ")
	sys.WriteString(sc.Goal)
	sys.WriteByte('\n')
	writeList(&sys, "\nRules you must follow in every message, whatever the assistant says:\n", p.Guardrails)
	if sc.StopSignal != "" {
		sys.WriteString("\nWhen your goal is reached, or you want to end the conversation, send only this: ")
		sys.WriteString(sc.StopSignal)
		sys.WriteByte('\n')
	}
	sys.WriteString("\nWrite only the next message the user sends: plain text in the user's voice, with no role label, quotes or explanation.")
	return sys.String()
}

// who introduces the persona by its name and description, either of which
// may be missing.
func who(p Persona) string {
	if p.Name != "" && p.Description != "" {
		return p.Name + ". " + p.Description
	}
	return p.Name + p.Description
}

// turnPrompt shows the user model the latest turns and what to do in the
// next message: the step's instruction and hints, or, without a step, to
// carry on toward the goal.
func turnPrompt(step *Step, traces []StepTrace, contextTurns int) string {
	var u strings.Builder
	if len(traces) == 0 {
		u.WriteString("The conversation has not started yet. Write your opening message.\n")
	} else {
		u.WriteString("The conversation so far (most recent turns):\n")
		formatTraces(&u, traces, contextTurns)
	}
	if step == nil {
		u.WriteString("\nNo particular step applies now: continue naturally toward your goal.\n")
		return u.String()
	}
	u.WriteString("\nWhat to do in this message: ")
	u.WriteString(step.Instruction)
	u.WriteByte('\n')
	writeList(&u, "Hints:\n", step.Hints)
	return u.String()
}

// writeList writes items as a bulleted list under header, and nothing at
// all when there are no items.
func writeList(b *strings.Builder, header string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(header)
	for _, it := range items {
		b.WriteString("- ")
		b.WriteString(it)
		b.WriteByte('\n')
	}
}

// userMessage asks the user model for the next message, with retries.
func (ru *run) userMessage(ctx context.Context, step *Step) (msg *schema.Message, err error) {
	err = ru.call(ctx, RoleUser, func(ctx context.Context) (err error) {
		msg, err = ru.r.nextUserMessage(ctx, ru.user, ru.sc, step, ru.res.Traces)
		return err
	})
	return msg, err
}

// nextUserMessage asks the user model for the next message, once.
func (r *Runner) nextUserMessage(ctx context.Context, user model.BaseChatModel, sc *Scenario, step *Step, traces []StepTrace) (_ *schema.Message, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: user model: %v", ErrPanicked, p)
		}
	}()
	out, err := user.Generate(ctx, userPrompt(sc, step, traces, r.userContextTurns()))
	noteUsage(ctx, out)
	if err != nil {
		return nil, err
	}
	text := strings.TrimSpace(msgtext.Of(out))
	if text == "" {
		return nil, ErrEmptyUserMessage
	}
	return schema.UserMessage(text), nil
}
