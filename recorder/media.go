package recorder

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"maps"
	"slices"

	"github.com/cloudwego/eino/schema"
)

// PartType is the kind of a Part. It is a string value and safe for
// concurrent use.
type PartType string

// The kinds of content part a tool result can hold.
const (
	PartText  PartType = "text"
	PartImage PartType = "image"
	PartAudio PartType = "audio"
)

// DefaultMediaInlineBytes is the largest image or audio file kept inline
// in a record, as its bytes. A larger one is kept by reference: where it
// is (Media.URL), its SHA-256 and its size.
const DefaultMediaInlineBytes = 1 << 20

// Part is one piece of a multimodal tool result: a text, or an image or
// audio file. A text part carries Text; a media part carries Media.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Part struct {
	Type  PartType `json:"type"`
	Text  string   `json:"text,omitempty"`
	Media *Media   `json:"media,omitempty"`
}

// Media is an image or audio file, inline or by reference. Data holds
// the file's bytes (base64 in JSON) when it was small enough to keep
// inline; otherwise URL says where it is (a URL, or an absolute path on
// the machine that recorded it) and SHA256 (lower-case hex) and Size
// identify its content. Exports write inline media as files of their
// own. It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Media struct {
	MIMEType    string  `json:"mime_type"`
	Data        []byte  `json:"data,omitempty"`
	URL         string  `json:"url,omitempty"`
	SHA256      string  `json:"sha256,omitempty"`
	Size        int64   `json:"size,omitempty"`
	DurationSec float64 `json:"duration_sec,omitempty"`
}

// Extras holds what a record read from another format said that records
// have no field for, under the format's name (ExtraATIF for ATIF). An
// exporter to that format puts it back, so a document survives import and
// export whole. The recorder itself never sets it.
type Extras map[string]any

// ExtraATIF is the Extras key of what an imported ATIF document said
// beyond the record's own fields.
const ExtraATIF = "atif"

// capMedia returns p with every image or audio file larger than limit
// bytes kept by reference (SHA-256 and size) instead of inline, copying
// what it changes; p itself when nothing is over. A negative limit keeps
// everything.
func capMedia(p Payload, limit int) Payload {
	if limit < 0 {
		return p
	}
	switch t := p.(type) {
	case *ToolEnded:
		if parts := capParts(t.Parts, limit); parts != nil {
			c := *t
			c.Parts = parts
			return &c
		}
	case *Message:
		if m := capInput(t.Message, limit); m != nil {
			c := *t
			c.Message = m
			return &c
		}
	}
	return p
}

// capParts returns a copy of parts whose media larger than limit bytes
// are kept by reference, or nil when none is over.
func capParts(parts []Part, limit int) []Part {
	var out []Part
	for i, part := range parts {
		if part.Media == nil || len(part.Media.Data) <= limit {
			continue
		}
		if out == nil {
			out = slices.Clone(parts)
		}
		m := *part.Media
		m.SHA256, m.Size = contentHash(m.Data), int64(len(m.Data))
		m.Data = nil
		out[i].Media = &m
	}
	return out
}

// capInput returns a copy of m whose inline images and audio larger than
// limit bytes are kept by reference, their SHA-256 and size in the part's
// Extra, or nil when none is over.
func capInput(m *schema.Message, limit int) *schema.Message {
	if m == nil {
		return nil
	}
	var parts []schema.MessageInputPart
	for i, part := range m.UserInputMultiContent {
		data := inlineOver(part, limit)
		if data == nil {
			continue
		}
		if parts == nil {
			parts = slices.Clone(m.UserInputMultiContent)
		}
		parts[i] = inputByRef(part, data)
	}
	if parts == nil {
		return nil
	}
	c := *m
	c.UserInputMultiContent = parts
	return &c
}

// inlineOver returns the decoded inline image or audio of part when it is
// larger than limit bytes, or nil.
func inlineOver(part schema.MessageInputPart, limit int) []byte {
	common := partCommon(part)
	if common == nil || common.Base64Data == nil || base64.StdEncoding.DecodedLen(len(*common.Base64Data)) <= limit {
		return nil
	}
	data, err := base64.StdEncoding.DecodeString(*common.Base64Data)
	if err != nil || len(data) <= limit {
		return nil
	}
	return data
}

// inputByRef returns a copy of part that keeps its media, data, by
// reference: no inline data, and the data's SHA-256 and size in its Extra.
func inputByRef(part schema.MessageInputPart, data []byte) schema.MessageInputPart {
	ref := *partCommon(part)
	ref.Base64Data = nil
	extra := maps.Clone(part.Extra)
	if extra == nil {
		extra = map[string]any{}
	}
	extra["sha256"], extra["size"] = contentHash(data), len(data)
	part.Extra = extra
	switch {
	case part.Image != nil:
		img := *part.Image
		img.MessagePartCommon = ref
		part.Image = &img
	case part.Audio != nil:
		audio := *part.Audio
		audio.MessagePartCommon = ref
		part.Audio = &audio
	}
	return part
}

// partCommon is the media of an input part, if it is an image or audio.
func partCommon(p schema.MessageInputPart) *schema.MessagePartCommon {
	switch {
	case p.Image != nil:
		return &p.Image.MessagePartCommon
	case p.Audio != nil:
		return &p.Audio.MessagePartCommon
	}
	return nil
}

func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// partsOver reports whether a text part is longer than limit bytes.
func partsOver(parts []Part, limit int) bool {
	for _, p := range parts {
		if p.Type == PartText && len(p.Text) > limit {
			return true
		}
	}
	return false
}

// cutParts returns a copy of parts with every text part redacted and cut
// to limit bytes, as the result's text is; nil parts stay nil.
func (r *Recorder) cutParts(parts []Part, limit int) []Part {
	if parts == nil {
		return nil
	}
	out := slices.Clone(parts)
	for i, p := range out {
		if p.Type == PartText {
			out[i].Text = r.cut(p.Text, limit)
		}
	}
	return out
}
