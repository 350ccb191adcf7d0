package drive

import (
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

func TestSetResultMediaKeepsPartsOnlyWhenTheyHoldMedia(t *testing.T) {
	var zero Call
	zero.SetResultMedia([]recorder.Part{{Type: recorder.PartImage, Media: &recorder.Media{MIMEType: "image/png", Data: []byte{1}}}})
	if zero.parts != nil {
		t.Error("the zero Call kept parts")
	}
	c := Call{run: &Run{}}
	c.SetResultMedia([]recorder.Part{{Type: recorder.PartText, Text: "only text"}})
	if c.parts != nil {
		t.Error("text-only parts were kept: the result's text says it all")
	}
	image := []recorder.Part{{Type: recorder.PartText, Text: "see"}, {Type: recorder.PartImage, Media: &recorder.Media{MIMEType: "image/png", Data: []byte{1}}}}
	c.SetResultMedia(image)
	if len(c.parts) != 2 {
		t.Errorf("parts = %+v, want the text and the image", c.parts)
	}
}
