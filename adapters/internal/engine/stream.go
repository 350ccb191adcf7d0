package engine

import (
	"errors"
	"io"
	"strings"
	"sync/atomic"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/drive"
)

// PassStream passes a tool's stream through and ends the call when the
// stream does, handing record the start of the output (up to
// MaxRecordBytes, as text) and the stream's error, if any. An error in
// mid-stream is passed on as record returns it: part of the output has
// already reached the model, so it cannot be turned into a message. The
// zero Call (a call admitted unobserved) gets sr back as it is.
func PassStream[T any](c *drive.Call, sr *schema.StreamReader[T], text func(T) string, record func(result string, err error) error) *schema.StreamReader[T] {
	limit := c.MaxRecordBytes()
	if limit == 0 {
		return sr
	}
	var head strings.Builder
	// The call ends once: at the stream's first error or at its end,
	// whichever comes first. A reader that goes on after an error may
	// reach the end too, and the call must not be recorded twice.
	var ended atomic.Bool
	end := func(err error) error {
		if !ended.CompareAndSwap(false, true) {
			return err
		}
		return record(head.String(), err)
	}
	return schema.StreamReaderWithConvert(sr,
		func(chunk T) (T, error) {
			if head.Len() < limit {
				head.WriteString(text(chunk))
			}
			return chunk, nil
		},
		schema.WithOnEOF(func() (any, error) {
			_ = end(nil)
			return nil, io.EOF
		}),
		schema.WithErrWrapper(end),
	)
}

// TextResult is a multimodal tool result holding only text s.
func TextResult(s string) *schema.ToolResult {
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: s}}}
}

// ResultText returns the text parts of a multimodal tool result, joined.
func ResultText(r *schema.ToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range r.Parts {
		if p.Type == schema.ToolPartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Relay returns a stream of what sr holds, read to its end by a goroutine
// of its own, which ends with sr; up to buffer values wait for the reader
// (none: a reader that closes early is seen at the next value). each sees every value; end is called
// once, at sr's end (err nil) or first error, before the reader can see
// either, and with abandoned set when the reader closed the returned
// stream first: sr is still read to its end, so that what it costs is
// known. end's error, if any, is what the reader gets in place of the
// end or the error.
func Relay[T any](sr *schema.StreamReader[T], buffer int, each func(T), end func(err error, abandoned bool) error) *schema.StreamReader[T] {
	out, in := schema.Pipe[T](buffer)
	go func() {
		defer sr.Close()
		defer in.Close()
		abandoned := false
		for {
			v, err := sr.Recv()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				if err = end(err, abandoned); err != nil && !abandoned {
					var zero T
					in.Send(zero, err)
				}
				return
			}
			each(v)
			if !abandoned {
				abandoned = in.Send(v, nil)
			}
		}
	}()
	return out
}
