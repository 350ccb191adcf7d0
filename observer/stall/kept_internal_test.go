package stall

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lookout-go/lookout/observer"
)

// TestKeptChainsCarriedOnAreWhatAWalkFinds: the chains of the latest call
// that add carries on from the call before, while the chains continue,
// are what keptOf finds in a fresh walk over the window, as calls repeat,
// fail, poll and leave the window; and they are carried on, rather than
// walked for, when the latest call continues the chains of the one before.
func TestKeptChainsCarriedOnAreWhatAWalkFinds(t *testing.T) {
	tools := []string{"read", "read", "read", "poll", "write"}
	args := []string{`{"a":1}`, `{"a":1}`, `{"a":2}`}
	results := []string{"ok", "ok", "ok", "other"}
	for seed := range uint64(40) {
		d := &Detector{Window: 2 + int(seed%7), Repeats: 2, SameCalls: 2, PollingTools: []string{"poll"}}
		st := d.newState()
		rng := rand.New(rand.NewPCG(seed, 7))
		carried := 0
		for i := int64(1); i <= 300; i++ {
			rec := observer.ToolCallRecord{CallIndex: i, ToolName: tools[rng.IntN(len(tools))], Arguments: args[rng.IntN(len(args))],
				Result: results[rng.IntN(len(results))], Success: rng.IntN(6) > 0}
			if rng.IntN(3) > 0 && st.calls.Len() > 0 {
				// Calls after a stuck one are mostly the same call.
				prev := st.calls.Back(0)
				rec.ToolName, rec.Arguments, rec.Result, rec.Success = prev.tool, prev.args, prev.result, prev.success
			}
			before := st.kept.of
			st.add(&rec)
			e := st.calls.Back(0)
			if st.kept.of == e.index {
				carried++
				if before != i-1 {
					t.Fatalf("seed %d call %d: chains carried on from call %d", seed, i, before)
				}
			}
			got, gotPicked := st.kept, slices.Clone(st.picked)
			st.kept.of = -1
			want := st.keptOf(e)
			if got.of == e.index && (got != want || !slices.Equal(gotPicked, st.picked)) {
				t.Fatalf("seed %d call %d: carried %+v (%d picked), a walk finds %+v (%d picked)", seed, i, got, len(gotPicked), want, len(st.picked))
			}
			if rng.IntN(5) == 0 {
				// A check now and then that is not made leaves the
				// chains of an older call.
				st.kept.of = 0
			}
		}
		if carried < 50 {
			t.Errorf("seed %d: the chains were carried on after %d calls of 300", seed, carried)
		}
	}
}

// TestSameCallTellsCallsApartByTheirTexts: calls whose arguments and the
// lengths of whose tool and summary are the same are still told apart by
// their texts; the very same call is found.
func TestSameCallTellsCallsApartByTheirTexts(t *testing.T) {
	st := New().newState()
	for i, tool := range []string{"read", "list", "read"} {
		rec := observer.ToolCallRecord{CallIndex: int64(i + 1), ToolName: tool, Arguments: "{}", ParamsSummary: "x", Result: "ok", Success: true}
		e := stallCall{index: rec.CallIndex, tool: tool, summary: rec.ParamsSummary, args: rec.Arguments}
		e.raw = st.rawOf(e.tool, e.summary, e.args)
		same := st.sameCall(&e)
		switch {
		case i < 2 && same != nil:
			t.Fatalf("call %d (%s) is taken for call %d (%s)", i+1, tool, same.index, same.tool)
		case i == 2 && (same == nil || same.index != 1):
			t.Fatalf("call 3 is not taken for call 1, the same call, but for %v", same)
		}
		st.add(&rec)
	}
	var other stallCall
	other.tool, other.summary, other.args = "read", "y", "{}"
	other.raw = st.rawOf(other.tool, other.summary, other.args)
	if same := st.sameCall(&other); same != nil {
		t.Fatalf("a call with another summary is taken for call %d", same.index)
	}
}

// The counts by signature and by target that let a new call skip the walk
// back over the window are those of the calls the window keeps, as calls
// come, leave the window and are forgotten.
func TestSignatureCountsAreThoseOfTheKeptCalls(t *testing.T) {
	tools := []string{"read_file", "write_file", "bash", "poll"}
	args := []string{`{"path":"a.txt"}`, `{"path":"b.txt"}`, `{"path":"a.txt","n":1}`, `{"cmd":"ls"}`}
	for seed := range uint64(20) {
		d := &Detector{Window: 2 + int(seed%6), PollingTools: []string{"poll"}}
		st := d.newState()
		rng := rand.New(rand.NewPCG(seed, 11))
		for i := int64(1); i <= 200; i++ {
			if rng.IntN(50) == 0 {
				st.Reset(nil)
			}
			st.add(&observer.ToolCallRecord{CallIndex: i, ToolName: tools[rng.IntN(len(tools))],
				Arguments: args[rng.IntN(len(args))], Result: "ok", Success: true})
			var sigs, targets [countParts]uint16
			for k := range st.calls.Len() {
				c := st.calls.Back(k)
				sigs[c.sig%countParts]++
				if c.wbRun > 0 {
					targets[c.targetHash%countParts]++
				}
			}
			if sigs != st.sigs || targets != st.targets {
				t.Fatalf("seed %d, call %d: counts %v %v, kept calls %v %v", seed, i, st.sigs, st.targets, sigs, targets)
			}
		}
	}
}
