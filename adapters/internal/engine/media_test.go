package engine

import (
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

func TestResultPartsKeepsImagesAndAudioInOrder(t *testing.T) {
	if ResultParts(TextResult("only text")) != nil {
		t.Error("a result with no media has parts")
	}
	data, bad, url := "AQID", "not base64!", "https://example.com/a.wav"
	res := &schema.ToolResult{Parts: []schema.ToolOutputPart{
		{Type: schema.ToolPartTypeText, Text: "look"},
		{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: "image/png"}}},
		{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &bad, MIMEType: "image/png"}}},
		{Type: schema.ToolPartTypeAudio, Audio: &schema.ToolOutputAudio{MessagePartCommon: schema.MessagePartCommon{URL: &url, MIMEType: "audio/wav"}}},
		{Type: schema.ToolPartTypeVideo},
	}}
	parts := ResultParts(res)
	if len(parts) != 3 {
		t.Fatalf("parts = %+v, want the text, the image and the audio", parts)
	}
	if parts[0].Type != recorder.PartText || parts[0].Text != "look" {
		t.Errorf("part 0 = %+v", parts[0])
	}
	if m := parts[1].Media; parts[1].Type != recorder.PartImage || string(m.Data) != "\x01\x02\x03" || m.MIMEType != "image/png" {
		t.Errorf("part 1 = %+v %+v", parts[1], m)
	}
	if m := parts[2].Media; parts[2].Type != recorder.PartAudio || m.URL != url || m.Data != nil {
		t.Errorf("part 2 = %+v %+v", parts[2], m)
	}
}
