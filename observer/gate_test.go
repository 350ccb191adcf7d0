package observer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/stall"
)

func TestAdmitRefusesOnlyTheRepeatAStallWasToldToRefuse(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, &stall.Detector{RefuseAfter: 3})
	read := readFile("go.mod", "module x")
	h.run(times(2, read)...)
	refusal, _ := h.p.Admit(ctx, read.ToolName, read.Arguments)
	assert.Empty(t, refusal, "two repeats are not yet three")

	h.run(read)
	refusal, by := h.p.Admit(ctx, read.ToolName, read.Arguments)
	assert.Contains(t, refusal, "Tool call refused: `read_file` was called 3 times in a row")
	assert.Equal(t, "Stall", by)
	refusal, _ = h.p.Admit(ctx, read.ToolName, `{"path":"go.sum"}`)
	assert.Empty(t, refusal, "another call runs")

	plain := newHarness(t, stall.New())
	plain.run(times(5, read)...)
	refusal, _ = plain.p.Admit(ctx, read.ToolName, read.Arguments)
	assert.Empty(t, refusal, "without RefuseAfter Stall only advises")
}

// panickyGate panics when asked to refuse.
type panickyGate struct{ noteAt }

func (panickyGate) Refuse(context.Context, *observer.Context, string, string) string { panic("boom") }

func TestAdmitLetsTheCallRunWhenAGatekeeperPanics(t *testing.T) {
	h := newHarness(t, panickyGate{})
	h.errors = nil
	refusal, _ := h.p.Admit(context.Background(), "read_file", "{}")
	assert.Empty(t, refusal)
	if assert.Len(t, h.errors, 1) {
		assert.True(t, errors.Is(h.errors[0], observer.ErrPanicked))
	}
	h.errors = nil
}

func TestRefuseAfterIsValidated(t *testing.T) {
	for _, n := range []int{-1, 1, stall.MaxWindow + 1} {
		err := observer.Validate([]observer.Spec{{Observer: &stall.Detector{RefuseAfter: n}, Trigger: observer.Trigger{OnEveryCall: true}}})
		assert.ErrorIs(t, err, observer.ErrInvalidConfig, "RefuseAfter %d", n)
	}
}
