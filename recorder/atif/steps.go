package atif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
	"github.com/lookout-go/lookout/recorder"
)

func (x *exporter) messageStep(m *schema.Message, origin recorder.Origin, at moment) *pending {
	step := Step{Source: SourceUser, Message: x.messageContent(m)}
	switch m.Role {
	case schema.System:
		step.Source = SourceSystem
	case schema.Assistant:
		step.Source = SourceAgent
		step.ReasoningContent = x.redact(m.ReasoningContent)
		for _, c := range m.ToolCalls {
			step.ToolCalls = append(step.ToolCalls, x.toolCall(c))
		}
		step.Extra = map[string]any{ExtraKey: map[string]any{"role": string(schema.Assistant)}}
	case schema.Tool:
		step.Source = SourceSystem
		step.Extra = map[string]any{ExtraKey: map[string]any{"role": string(schema.Tool), "tool_call_id": m.ToolCallID}}
	}
	if origin != "" {
		// Where the message came from: the caller's history, the query,
		// what the runtime passed on from earlier agents.
		info, _ := step.Extra[ExtraKey].(map[string]any)
		if info == nil {
			info = map[string]any{}
			step.Extra = map[string]any{ExtraKey: info}
		}
		info["origin"] = string(origin)
	}
	return &pending{step: step, at: at}
}

// messageContent is a message's parts when it has multimodal user input,
// or else its text: the content, or the text of its output parts when the
// content is empty. Media ATIF cannot point at (inline data, video,
// files) is replaced by a short text part saying what was left out.
func (x *exporter) messageContent(m *schema.Message) Content {
	input := msgtext.InputParts(m)
	if len(input) == 0 {
		return Text(x.redact(msgtext.Of(m)))
	}
	parts := make([]ContentPart, 0, len(input))
	for _, in := range input {
		parts = append(parts, x.part(in))
	}
	return Parts(parts...)
}

// part turns one input part of a message into ATIF content: text, images
// and audio that ATIF can point at, and for anything else a text that
// says what was left out.
func (x *exporter) part(in schema.MessageInputPart) ContentPart {
	switch in.Type {
	case schema.ChatMessagePartTypeText:
		return ContentPart{Type: PartText, Text: x.redact(in.Text)}
	case schema.ChatMessagePartTypeImageURL:
		if src := x.imageSource(in); src != nil {
			return ContentPart{Type: PartImage, Source: src}
		}
	case schema.ChatMessagePartTypeAudioURL:
		if src := x.audioSource(in); src != nil {
			return ContentPart{Type: PartAudio, Source: src}
		}
	}
	return ContentPart{Type: PartText, Text: fmt.Sprintf("[%s omitted]", in.Type)}
}

// imageSource is where ATIF can point at the image of an image part, or
// nil when the part has no image of a type ATIF allows or it cannot be
// kept.
func (x *exporter) imageSource(in schema.MessageInputPart) *MediaSource {
	if in.Image == nil {
		return nil
	}
	return x.acceptedMedia(in.Image.MessagePartCommon, in.Extra, acceptedImageType)
}

// audioSource is where ATIF can point at the audio of an audio part, or
// nil when the part has no audio of a type ATIF allows or it cannot be
// kept.
func (x *exporter) audioSource(in schema.MessageInputPart) *MediaSource {
	if in.Audio == nil {
		return nil
	}
	return x.acceptedMedia(in.Audio.MessagePartCommon, in.Extra, acceptedAudioType)
}

// acceptedMedia is a part's media c as an ATIF source, under the media
// type accept gives for its MIME type, or nil when accept gives none or
// the media cannot be kept.
func (x *exporter) acceptedMedia(c schema.MessagePartCommon, extra map[string]any, accept func(mime string) string) *MediaSource {
	mime := accept(partMIME(c))
	if mime == "" {
		return nil
	}
	return x.inputMedia(c, extra, mime)
}

// partMIME is a media part's MIME type: the one it names, or else the one
// its data: URL names.
func partMIME(c schema.MessagePartCommon) string {
	if c.MIMEType != "" || c.URL == nil || !strings.HasPrefix(*c.URL, "data:") {
		return c.MIMEType
	}
	meta, _, _ := strings.Cut(strings.TrimPrefix(*c.URL, "data:"), ",")
	mime, _, _ := strings.Cut(meta, ";")
	return mime
}

func (x *exporter) agentStep(p *recorder.ModelResponse, model string, at moment) *pending {
	one := 1
	step := Step{Source: SourceAgent, ModelName: model, LLMCallCount: &one}
	if m := p.Message; m != nil {
		step.Message = Text(x.redact(msgtext.Of(m)))
		step.ReasoningContent = x.redact(m.ReasoningContent)
		for _, c := range m.ToolCalls {
			step.ToolCalls = append(step.ToolCalls, x.toolCall(c))
		}
	}
	if p.UsageReported {
		step.Metrics = responseMetrics(p)
	}
	step.Extra = responseExtra(p)
	return &pending{step: step, at: at, results: make([]*ObservationResult, len(step.ToolCalls))}
}

// responseExtra is the extra of a model response's step: its finish
// reason and latency under Lookout's key, or nil when it has neither.
func responseExtra(p *recorder.ModelResponse) map[string]any {
	extra := map[string]any{}
	if p.FinishReason != "" {
		extra["finish_reason"] = p.FinishReason
	}
	if p.Latency != 0 {
		extra["latency_ms"] = millis(p.Latency)
	}
	if len(extra) == 0 {
		return nil
	}
	return map[string]any{ExtraKey: extra}
}

// toolCall converts a model's tool call. Arguments that are not a JSON
// object are kept as text in extra.lookout.raw_arguments, with {} as the
// arguments.
func (x *exporter) toolCall(c schema.ToolCall) ToolCall {
	args := x.redact(c.Function.Arguments)
	call := ToolCall{ID: c.ID, FunctionName: c.Function.Name}
	if obj, ok := jsonObject(args); ok {
		call.Arguments = obj
	} else {
		call.Arguments = json.RawMessage("{}")
		call.Extra = map[string]any{ExtraKey: map[string]any{"raw_arguments": args}}
	}
	return call
}

// jsonObject returns s compacted when it is one JSON object.
func jsonObject(s string) (json.RawMessage, bool) {
	trimmed := strings.TrimSpace(s)
	if !strings.HasPrefix(trimmed, "{") {
		return nil, false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(trimmed)); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// toolResult is a tool_ended record as an observation result. Content is
// always set, even when empty: it is how ToRecords tells an ended call from
// one that only delegated.
func (x *exporter) toolResult(p *recorder.ToolEnded) *ObservationResult {
	text := p.Result
	if text == "" && p.IsError {
		text = p.Error
	}
	content := Text(x.redact(text))
	if p.Parts != nil {
		content = x.resultContent(p.Parts)
	}
	result := &ObservationResult{Content: &content}
	if info := x.toolInfo(p); len(info) > 0 {
		result.Extra = map[string]any{ExtraKey: info}
	}
	return result
}

// toolInfo is what a tool result says beyond its text, for the Lookout
// extra: whether and how it failed, whether its output was cut, and how
// long the call took. It is empty for a success of unknown duration.
func (x *exporter) toolInfo(p *recorder.ToolEnded) map[string]any {
	info := map[string]any{}
	if p.IsError {
		info["is_error"] = true
	}
	if p.Error != "" {
		info["error"] = x.redact(p.Error)
	}
	if p.Truncated {
		info["truncated"] = true
		info["result_bytes"] = p.ResultBytes
	}
	if p.Duration != 0 {
		info["duration_ms"] = millis(p.Duration)
	}
	return info
}

func (x *exporter) assessmentStep(p *recorder.AssessmentRecord, at moment) *pending {
	info := map[string]any{"after_call_index": p.AfterCallIndex}
	if len(p.Observers) > 0 {
		observers := make([]any, len(p.Observers))
		for i, o := range p.Observers {
			note := map[string]any{"name": o.Name}
			if o.Severity != "" {
				note["severity"] = o.Severity
			}
			observers[i] = note
		}
		info["observers"] = observers
	}
	return &pending{
		step: Step{Source: SourceSystem, Message: Text(x.redact(p.Markdown)), Extra: map[string]any{ExtraKey: map[string]any{"assessment": info}}},
		at:   at,
	}
}

// carrierStep is a system step that exists only to carry an observation
// result: a tool result or a subagent whose call could not be found. A
// run with no steps at all gets one with no result, since ATIF needs a
// step.
func carrierStep(at moment, results ...ObservationResult) *pending {
	return &pending{
		step: Step{Source: SourceSystem, Extra: map[string]any{ExtraKey: map[string]any{"carrier": true}}},
		at:   at, others: results,
	}
}

// millis is a duration in milliseconds, to the microsecond.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/1e3) / 1e3
}
