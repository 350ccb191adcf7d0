package observer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/stall"
)

// The detectors keep each call's label in a buffer that its slot in the
// window passes on to the call replacing it: the labels cited must still
// be those of the calls cited once the window has slid many times over.
func TestLabelsStayRightAsTheWindowSlides(t *testing.T) {
	h := newHarness(t, &cascade.Detector{Window: 4}, &drift.Detector{Window: 4, InitialCalls: -1})
	h.task(observer.Task{Prompt: "Fix the rounding in services/billing."})
	for i := range 30 {
		h.run(failed("write_file", fmt.Sprintf(`{"path":"web/page%d.tsx"}`, i+1), "permission denied"))
	}
	for _, name := range []string{"Errors", "Drift"} {
		a := h.mustAt(30, name)
		assert.Contains(t, a.Observations[0].Evidence, "#30 write_file path=web/page30.tsx", name)
		assert.Contains(t, a.Observations[0].Evidence, "#29 write_file path=web/page29.tsx", name)
		assert.NotContains(t, a.Observations[0].Evidence, "page2.tsx", name)
	}
}

// A call identical to the oldest one in the window takes its label from
// the slot it is about to replace.
func TestStallLabelsACallCopiedFromTheSlotItReplaces(t *testing.T) {
	h := newHarness(t, &stall.Detector{Window: 4})
	h.run(readFile("a.go", "package a"))
	h.run(readFile("x.go", "package x"), readFile("y.go", "package y"), readFile("z.go", "package z"))
	h.run(times(4, readFile("a.go", "package a"))...)
	a := h.mustAt(8, "Stall")
	assert.Equal(t, []string{
		"#5 read_file path=a.go",
		"#6 read_file path=a.go",
		"#7 read_file path=a.go",
		"#8 read_file path=a.go",
	}, evidenceLines(a))
	assert.False(t, strings.Contains(a.Observations[0].Evidence, "z.go"))
}
