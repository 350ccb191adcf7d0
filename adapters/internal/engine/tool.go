package engine

import (
	"context"
	"encoding/base64"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/recorder"
)

// EndCall ends tool call c with the tool's result and error, as
// Call.End does, except that an interrupt is control flow, not an
// outcome: the call is paused (Eino runs it again when the run resumes)
// and result and err pass through.
func EndCall(ctx context.Context, c *drive.Call, result string, err error) (string, error) {
	if IsInterrupt(err) {
		c.Pause(ctx)
		return result, err
	}
	return c.End(ctx, result, err)
}

// EndStream ends a streamed tool call as Call.EndStream does, pausing
// it on an interrupt.
func EndStream(ctx context.Context, c *drive.Call, result string, err error) error {
	if IsInterrupt(err) {
		c.Pause(ctx)
		return err
	}
	return c.EndStream(ctx, result, err)
}

// IsInterrupt reports whether err is an Eino interrupt, which pauses a run
// rather than ends it.
func IsInterrupt(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := compose.IsInterruptRerunError(err); ok {
		return true
	}
	_, ok := compose.ExtractInterruptInfo(err)
	return ok
}

// Ended records the end of run r when a tool call ends it with err, and
// returns err. The end is recorded once the calls made beside it are.
// Interrupts pause the run rather than end it.
func Ended(ctx context.Context, r *drive.Run, err error) error {
	if err != nil && !IsInterrupt(err) {
		r.EndAfterCalls(ctx, err)
	}
	return err
}

// Guarded runs the tool with run and returns what it returns. Should run
// panic, the call is recorded as failed (see Call.EndPanicked) and the
// panic goes on.
func Guarded[O any](ctx context.Context, c *drive.Call, run func() (O, error)) (O, error) {
	done := false
	defer func() {
		if !done {
			c.EndPanicked(ctx)
		}
	}()
	out, err := run()
	done = true
	return out, err
}

type toolCallKey struct{}

// ToolCallMark stands for one tool call. Models number their calls within
// a turn, so two calls, at different depths of nested agents, may share an
// id; their marks differ.
type ToolCallMark struct{ id, name string }

// WithToolCall returns a copy of ctx that says it runs inside tool call id
// of tool name, so a sub-agent started by the call can name both.
func WithToolCall(ctx context.Context, id, name string) context.Context {
	return context.WithValue(ctx, toolCallKey{}, &ToolCallMark{id: id, name: name})
}

// ToolNameFrom returns the name of the tool whose call ctx runs inside,
// when WithToolCall marked it: an agent used as a tool has the agent's
// name.
func ToolNameFrom(ctx context.Context) string {
	if m := ToolCallMarkFrom(ctx); m != nil && m.id == ToolCallFrom(ctx) {
		return m.name
	}
	return ""
}

// ToolCallFrom returns the tool call ctx runs inside, if any: the one
// Eino's tool node marked, which is the innermost, or else the one
// WithToolCall marked.
func ToolCallFrom(ctx context.Context) string {
	if id := compose.GetToolCallID(ctx); id != "" {
		return id
	}
	if m := ToolCallMarkFrom(ctx); m != nil {
		return m.id
	}
	return ""
}

// ToolCallMarkFrom returns the mark of the tool call ctx runs inside, or
// nil.
func ToolCallMarkFrom(ctx context.Context) *ToolCallMark {
	m, _ := ctx.Value(toolCallKey{}).(*ToolCallMark)
	return m
}

// panicError describes a panic in Lookout's own work.
func panicError(what string, p any) error {
	return fmt.Errorf("lookout: %s panicked: %v", what, p)
}

// AgentNameFrom returns the name of the innermost ADK agent ctx runs in,
// from the address Eino's flow gives each agent it runs, or "".
func AgentNameFrom(ctx context.Context) string {
	addr := compose.GetCurrentAddress(ctx)
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i].Type == "agent" {
			return addr[i].ID
		}
	}
	return ""
}

// ResultParts converts a multimodal tool result to record parts: text,
// and images and audio with their inline data or URL. It is nil when the
// result holds no image or audio, whose text is then all there is.
// Video and files are left out.
func ResultParts(r *schema.ToolResult) []recorder.Part {
	parts, media := resultParts(r)
	if !media {
		return nil
	}
	return parts
}

// resultParts converts a tool result's parts and reports whether any is
// an image or audio.
func resultParts(r *schema.ToolResult) (parts []recorder.Part, media bool) {
	if r == nil {
		return nil, false
	}
	for _, p := range r.Parts {
		switch {
		case p.Type == schema.ToolPartTypeText:
			parts = append(parts, recorder.Part{Type: recorder.PartText, Text: p.Text})
		case p.Type == schema.ToolPartTypeImage && p.Image != nil:
			if m := partMedia(p.Image.MessagePartCommon); m != nil {
				parts, media = append(parts, recorder.Part{Type: recorder.PartImage, Media: m}), true
			}
		case p.Type == schema.ToolPartTypeAudio && p.Audio != nil:
			if m := partMedia(p.Audio.MessagePartCommon); m != nil {
				parts, media = append(parts, recorder.Part{Type: recorder.PartAudio, Media: m}), true
			}
		}
	}
	return parts, media
}

// partMedia is a tool output part's image or audio: its base64 data
// decoded, or its URL; nil when it has neither or the data is not base64.
func partMedia(c schema.MessagePartCommon) *recorder.Media {
	switch {
	case c.Base64Data != nil && *c.Base64Data != "":
		data, err := base64.StdEncoding.DecodeString(*c.Base64Data)
		if err != nil {
			return nil
		}
		return &recorder.Media{MIMEType: c.MIMEType, Data: data}
	case c.URL != nil && *c.URL != "":
		return &recorder.Media{MIMEType: c.MIMEType, URL: *c.URL}
	}
	return nil
}

// EndResult ends a call of a multimodal tool: its text is the result, and
// its images and audio go to the record with it.
func EndResult(ctx context.Context, c *drive.Call, r *schema.ToolResult, err error) (string, error) {
	c.SetResultMedia(ResultParts(r))
	return EndCall(ctx, c, ResultText(r), err)
}

// PassResultStream is PassStream for a multimodal tool's stream: the
// images and audio among its chunks go to the record with the text (see
// Call.SetResultMedia), text parts taken, like the text, up to
// MaxRecordBytes.
func PassResultStream(c *drive.Call, sr *schema.StreamReader[*schema.ToolResult], record func(result string, err error) error) *schema.StreamReader[*schema.ToolResult] {
	var (
		mu    sync.Mutex
		parts []recorder.Part
		media bool
		text  int
	)
	limit := c.MaxRecordBytes()
	collect := func(r *schema.ToolResult) (*schema.ToolResult, error) {
		got, hasMedia := resultParts(r)
		mu.Lock()
		defer mu.Unlock()
		media = media || hasMedia
		for _, p := range got {
			switch {
			case p.Type != recorder.PartText:
				parts = append(parts, p)
			case text < limit:
				p.Text = p.Text[:min(len(p.Text), limit-text)]
				text += len(p.Text)
				if n := len(parts); n > 0 && parts[n-1].Type == recorder.PartText {
					parts[n-1].Text += p.Text // one text part per run of text chunks
				} else {
					parts = append(parts, p)
				}
			}
		}
		return r, nil
	}
	if limit == 0 {
		return sr // the zero Call: nothing is recorded
	}
	// Every chunk is looked at, past the text's limit too, so that an
	// image at the end of a long stream is still recorded.
	return PassStream(c, schema.StreamReaderWithConvert(sr, collect), ResultText, func(result string, err error) error {
		mu.Lock()
		if media {
			c.SetResultMedia(parts)
		}
		mu.Unlock()
		return record(result, err)
	})
}
