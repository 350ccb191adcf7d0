package lookoutadk

import (
	"context"
	"testing"

	"github.com/lookout-go/lookout/adapters/drive"
)

// unhashableCtx is a ctx type whose values == cannot compare.
type unhashableCtx struct {
	context.Context
	tags []string
}

// TestGatedRunTakesTheRunOfItsCtxOnce checks that WrapModel's shortcut
// gives the run put with the very ctx it is given, once, and nothing for
// any other ctx, one of a type == cannot compare included.
func TestGatedRunTakesTheRunOfItsCtxOnce(t *testing.T) {
	var g gatedRun
	r := new(drive.Run)
	ctx := context.WithValue(context.Background(), claimKey{}, 1)
	if got := g.take(ctx); got != nil {
		t.Fatalf("take before put = %p, want nil", got)
	}
	g.put(ctx, r)
	if got := g.take(ctx); got != r {
		t.Fatalf("take(same ctx) = %p, want %p", got, r)
	}
	if got := g.take(ctx); got != nil {
		t.Fatalf("second take = %p, want nil", got)
	}
	g.put(ctx, r)
	if got := g.take(context.WithValue(ctx, claimKey{}, 2)); got != nil {
		t.Fatalf("take(another ctx) = %p, want nil", got)
	}
	if got := g.take(ctx); got != nil {
		t.Fatalf("take after a miss = %p, want nil: a miss clears", got)
	}
	// Each conversion to an interface boxes the struct anew: a ctx is the
	// same one only as the same interface value.
	var a, b context.Context = unhashableCtx{Context: ctx, tags: []string{"a"}}, unhashableCtx{Context: ctx, tags: []string{"a"}}
	g.put(a, r)
	if got := g.take(b); got != nil {
		t.Fatalf("take(an equal copy of another ctx) = %p, want nil", got)
	}
	g.put(a, r)
	if got := g.take(a); got != r {
		t.Fatalf("take(same unhashable ctx) = %p, want %p", got, r)
	}
}
