package simulate

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"
)

func safeCheck(ctx context.Context, fn CheckFunc, st Progress) (ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, fmt.Errorf("%w: %v", ErrPanicked, p)
		}
	}()
	return fn(ctx, st)
}

func safeGoal(ctx context.Context, g Goal, ev Evidence) (ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, fmt.Errorf("%w: %v", ErrPanicked, p)
		}
	}()
	return g.Met(ctx, ev)
}

func evaluate(ctx context.Context, p Policy, st Progress) (v Verdict, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = Verdict{}, fmt.Errorf("%w: policy: %v", ErrPanicked, r)
		}
	}()
	return p.Evaluate(ctx, st)
}

func rank(ctx context.Context, r Ranker, in RankInput) (cs []Candidate, err error) {
	defer func() {
		if p := recover(); p != nil {
			cs, err = nil, fmt.Errorf("%w: %w: ranker: %v", ErrBadRanking, ErrPanicked, p)
		}
	}()
	return r.Rank(ctx, in)
}

func respond(ctx context.Context, t Target, history []*schema.Message) (out []*schema.Message, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w: target: %v", ErrPanicked, p)
		}
	}()
	return t.Respond(ctx, history)
}
