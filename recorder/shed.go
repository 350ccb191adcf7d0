package recorder

import (
	"fmt"
	"math"
)

// admission is how a record fares in a queue under pressure: which
// records a queue filling up refuses first, and which it never refuses.
//
// A run's start and end frame everything else: a reader pairs runs with
// their ends, exports and summaries read a run's outcome and usage from
// run_ended, and a run without one looks like a crash. They are always
// admitted, past QueueSize if need be, and never wait: a run has one of
// each, so they add at most two records per run to a full queue.
//
// The records shed first are those whose content other records carry
// too: a tool_started's arguments are in the model response's tool call,
// an assessment's text in the next model request's injected messages, a
// budget charge's tokens in the model response's usage and the run's
// totals in run_ended. The conversation itself (messages, model requests
// and responses, tool results) and the rest are refused only by a full
// queue.
type admission int8

const (
	shedFirst admission = iota // refused once the queue is 3/4 full
	ordinary                   // refused once the queue is full
	framing                    // never refused: run_started, run_ended
)

// shedAt is the share of the queue, in quarters, past which records shed
// first are refused.
const shedAt = 3

// errShed is the cause of a record shed first.
var errShed = fmt.Errorf("%w: past 3/4 of the queue, where budget charges, tool starts and assessments are shed first", ErrQueueFull)

// admissionOf returns how a record with payload p fares under pressure.
func admissionOf(p Payload) admission {
	switch t := p.(type) {
	case *RunStarted, *RunEnded:
		return framing
	case *ToolStarted, *AssessmentRecord:
		return shedFirst
	case *BudgetRecord:
		if t.Event == BudgetCharged {
			return shedFirst
		}
	}
	return ordinary
}

// limit returns how many records may be queued, the batch in hand not
// yet begun included, for one of a fares to be admitted.
func (p *processor) limit(a admission) int {
	switch a {
	case shedFirst:
		return p.shed
	case ordinary:
		return p.size
	}
	return math.MaxInt
}

// refusal returns why a record of fares a found no room.
func refusal(a admission) error {
	if a == shedFirst {
		return errShed
	}
	return ErrQueueFull
}
