package recorder

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
