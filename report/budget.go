package report

import (
	"cmp"
	"slices"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// slot is what the page keeps of a record between its passes: where it
// is, its seq and time, what it charged its query's budget, and the
// budget's level after it.
type slot struct {
	where place
	fact  fact
	seq   uint64
	// level is, until queries gives it, the record's time and, in tokens,
	// the tokens a response reported or a token charge's total.
	level
}

// level is what a query had used of its budget after one record, as the
// budget charges: its tokens, model calls and tool calls, and the
// record's time in Unix nanoseconds (0 when it has none).
type level struct {
	tokens                int64
	modelCalls, toolCalls int32
	at                    int64
}

// time is the level's record's time, or the zero time.
func (v *level) time() time.Time {
	if v.at == 0 {
		return time.Time{}
	}
	return time.Unix(0, v.at).UTC()
}

// fact is what a record does to its query's budget.
type fact uint8

const (
	factNone      fact = iota
	factModelCall      // a model request: a model call charged
	factTokens         // a response's tokens, when no charge is recorded
	factCharge         // a token charge, with what the budget has used
	factToolCall       // a tool call started: charged
	factControl        // a control tool's call started: not charged
)

// factOf is what p does to its query's budget, with its figure.
func factOf(p recorder.Payload) (fact, int64) {
	switch p := p.(type) {
	case *recorder.ModelRequest:
		return factModelCall, 0
	case *recorder.ModelResponse:
		if p.UsageReported {
			return factTokens, p.Usage.TotalTokens
		}
	case *recorder.BudgetRecord:
		if p.Event == recorder.BudgetCharged && p.Resource == "tokens" {
			return factCharge, p.Used
		}
	case *recorder.ToolStarted:
		if p.Control {
			return factControl, 0
		}
		return factToolCall, 0
	}
	return factNone, 0
}

// spend follows the budget a query's runs share through their records.
// A model call is charged when it is requested, and a tool call when it
// starts, but for a control tool's (a transfer, an exit), which steers
// the run and is not charged. The tokens are what the last token charge
// recorded says the budget has used; before any, the responses' tokens
// added up.
type spend struct {
	tokens, summed        int64
	charged               bool
	modelCalls, toolCalls int64
	controlCalls          int64
}

func (s *spend) follow(f fact, value int64) {
	switch f {
	case factModelCall:
		s.modelCalls++
	case factTokens:
		s.summed += value
	case factCharge:
		s.tokens, s.charged = value, true
	case factToolCall:
		s.toolCalls++
	case factControl:
		s.controlCalls++
	}
	if !s.charged {
		s.tokens = s.summed
	}
}

// queries links each run to the root of its query and walks the records
// in their order, order being the run of each record, with each query's
// budget, giving each record its query's level after it. It then sorts
// each run's slots by seq.
func queries(order []int32, runs []*run) {
	for _, r := range runs {
		q := r
		for q.Parent != nil {
			q = q.Parent
		}
		r.Query = q
	}
	spends := map[*run]*spend{}
	next := make([]int, len(runs))
	for _, i := range order {
		r := runs[i]
		sl := &r.slots[next[i]]
		next[i]++
		q := r.Query
		s := spends[q]
		if s == nil {
			s = &spend{}
			spends[q] = s
		}
		s.follow(sl.fact, sl.tokens)
		if at := sl.at; at != 0 && (q.queryFirst == 0 || at < q.queryFirst) {
			q.queryFirst = at
		}
		sl.level = level{tokens: s.tokens, modelCalls: int32(s.modelCalls), toolCalls: int32(s.toolCalls), at: sl.at}
	}
	for _, r := range runs {
		slices.SortStableFunc(r.slots, func(a, b slot) int { return cmp.Compare(a.seq, b.seq) })
		if s := spends[r]; s != nil && len(r.Children) > 0 {
			r.spent = s
		}
	}
}
