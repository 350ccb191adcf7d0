package report

import (
	"cmp"
	"slices"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// level is what a query had used of its budget after one record, as the
// budget charges: its tokens, model calls and tool calls, and the
// record's time.
type level struct {
	seq                           uint64
	tokens, modelCalls, toolCalls int64
	at                            time.Time
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

func (s *spend) follow(p recorder.Payload) {
	switch p := p.(type) {
	case *recorder.ModelRequest:
		s.modelCalls++
	case *recorder.ModelResponse:
		if p.UsageReported {
			s.summed += p.Usage.TotalTokens
		}
	case *recorder.BudgetRecord:
		if p.Event == recorder.BudgetCharged && p.Resource == "tokens" {
			s.tokens, s.charged = p.Used, true
		}
	case *recorder.ToolStarted:
		if p.Control {
			s.controlCalls++
		} else {
			s.toolCalls++
		}
	}
	if !s.charged {
		s.tokens = s.summed
	}
}

// queries links each run to the root of its query and walks the records
// in their order with each query's budget, giving each run the level of
// its query's budget after each of its records, in seq order as its
// records are.
func queries(records []recorder.Record, runs []*run, byID map[string]*run) {
	for _, r := range runs {
		q := r
		for q.Parent != nil {
			q = q.Parent
		}
		r.Query = q
	}
	spends := map[*run]*spend{}
	for _, rec := range records {
		r := byID[rec.RunID]
		q := r.Query
		s := spends[q]
		if s == nil {
			s = &spend{}
			spends[q] = s
		}
		if !recorder.IsNilPayload(rec.Payload) {
			s.follow(rec.Payload)
		}
		if at := rec.RecordedAt; !at.IsZero() && (q.queryFirst.IsZero() || at.Before(q.queryFirst)) {
			q.queryFirst = at
		}
		r.levels = append(r.levels, level{seq: rec.Seq, tokens: s.tokens, modelCalls: s.modelCalls, toolCalls: s.toolCalls, at: rec.RecordedAt})
	}
	for _, r := range runs {
		slices.SortStableFunc(r.levels, func(a, b level) int { return cmp.Compare(a.seq, b.seq) })
		if s := spends[r]; s != nil && len(r.Children) > 0 {
			r.spent = s
		}
	}
}
