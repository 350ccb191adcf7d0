package adaptertest

import (
	"context"
	"encoding/base64"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
)

// StreamTool is a streaming tool that sends its chunks, or fails after
// them when Err is set.
type StreamTool struct {
	Name   string
	Chunks []string
	Err    error
}

func (t StreamTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: t.Name, Desc: "streaming tool " + t.Name}, nil
}

func (t StreamTool) StreamableRun(context.Context, string, ...tool.Option) (*schema.StreamReader[string], error) {
	sr, sw := schema.Pipe[string](len(t.Chunks) + 1)
	for _, c := range t.Chunks {
		sw.Send(c, nil)
	}
	if t.Err != nil {
		sw.Send("", t.Err)
	}
	sw.Close()
	return sr, nil
}

// RichTool is an enhanced (multimodal) invokable tool. Its result is
// Text, followed by a PNG image of the bytes Image when it has some.
type RichTool struct {
	Name  string
	Text  string
	Image []byte
	Err   error
}

func (t RichTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: t.Name, Desc: "multimodal tool " + t.Name}, nil
}

func (t RichTool) InvokableRun(context.Context, *schema.ToolArgument, ...tool.Option) (*schema.ToolResult, error) {
	if t.Err != nil {
		return nil, t.Err
	}
	res := &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: t.Text}}}
	if t.Image != nil {
		res.Parts = append(res.Parts, imagePart(t.Image))
	}
	return res, nil
}

// imagePart is a tool output part holding a PNG image of data, inline.
func imagePart(data []byte) schema.ToolOutputPart {
	encoded := base64.StdEncoding.EncodeToString(data)
	return schema.ToolOutputPart{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{
		MessagePartCommon: schema.MessagePartCommon{Base64Data: &encoded, MIMEType: "image/png"}}}
}

// RichStreamTool is an enhanced (multimodal) streaming tool. Its stream
// is Chunks, followed by a chunk holding a PNG image of the bytes Image
// when it has some.
type RichStreamTool struct {
	Name   string
	Chunks []string
	Image  []byte
}

func (t RichStreamTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: t.Name, Desc: "multimodal streaming tool " + t.Name}, nil
}

func (t RichStreamTool) StreamableRun(context.Context, *schema.ToolArgument, ...tool.Option) (*schema.StreamReader[*schema.ToolResult], error) {
	parts := make([]*schema.ToolResult, len(t.Chunks))
	for i, c := range t.Chunks {
		parts[i] = &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: c}}}
	}
	if t.Image != nil {
		parts = append(parts, &schema.ToolResult{Parts: []schema.ToolOutputPart{imagePart(t.Image)}})
	}
	return schema.StreamReaderFromArray(parts), nil
}
