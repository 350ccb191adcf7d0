package atif

import (
	"slices"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// injections is what a run's model requests say Lookout injected into
// their inputs: whether they say it at all (records from before the
// field say nothing), and the call indices of the assessments shown.
type injections struct {
	known bool
	after map[int]bool
}

// injectionsOf reads the injections of a run's records.
func injectionsOf(records []placed) injections {
	var in injections
	for _, rec := range records {
		if p, ok := rec.Payload.(*recorder.ModelRequest); ok && p.Injected != nil {
			in.add(p.Injected)
		}
	}
	return in
}

// add notes the messages injected into one model call.
func (in *injections) add(injected []recorder.InjectedMessage) {
	in.known = true
	for _, m := range injected {
		if m.Kind == recorder.InjectedAssessment {
			if in.after == nil {
				in.after = map[int]bool{}
			}
			in.after[m.AfterCallIndex] = true
		}
	}
}

// shown reports whether the assessment made after call index was shown
// to the model, which renders it where the model saw it: false when the
// records do not say.
func (in injections) shown(index int) bool { return in.known && in.after[index] }

// injectedSteps are the steps of the messages Lookout injected into a
// model call's input, as the model received them: a user or system step
// each, marked in extra.lookout.injected with what it is. A call injected
// with the same messages as the call before adds none: the model is
// shown the one current assessment, at the end of its input, call after
// call.
func (x *exporter) injectedSteps(rt *runTrace, p *recorder.ModelRequest, now moment) []*pending {
	if len(p.Injected) == 0 || slices.Equal(p.Injected, rt.injected) {
		rt.injected = p.Injected
		return nil
	}
	rt.injected = p.Injected
	steps := make([]*pending, 0, len(p.Injected))
	for _, m := range p.Injected {
		info := map[string]any{"injected": m.Kind}
		if m.Kind == recorder.InjectedAssessment {
			info["after_call_index"] = m.AfterCallIndex
		}
		source := SourceUser
		if m.Role == string(schema.System) {
			source = SourceSystem
		}
		steps = append(steps, &pending{
			step: Step{Source: source, Message: Text(x.redact(m.Content)), Extra: map[string]any{ExtraKey: info}},
			at:   now,
		})
	}
	return steps
}

// unshownAssessment marks an assessment step as never shown to the model,
// when the run's records say what the model was shown.
func (x *exporter) unshownAssessment(rt *runTrace, step *pending) *pending {
	if !rt.seen.known {
		return step
	}
	info := step.step.Extra[ExtraKey].(map[string]any)
	info["assessment"].(map[string]any)["shown"] = false
	return step
}
