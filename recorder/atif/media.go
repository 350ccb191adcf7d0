package atif

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// mediaDirName is the folder, next to a written document, that holds the
// media files it refers to, each named by the SHA-256 of its content.
const mediaDirName = "media"

// MediaFile is an image or audio file that a trajectory refers to by a
// path relative to the document's folder and that must be written there
// with it: media the records held inline. WriteFile writes them.
type MediaFile struct {
	Path string // relative to the document's folder, with '/' separators
	Data []byte
}

// MediaFiles returns the media files t needs written next to it, in
// path order, or nil when it needs none. Only a trajectory made by
// FromRecords has any.
func (t *Trajectory) MediaFiles() []MediaFile {
	if t == nil || len(t.media) == 0 {
		return nil
	}
	out := make([]MediaFile, 0, len(t.media))
	for path, data := range t.media {
		out = append(out, MediaFile{Path: path, Data: data})
	}
	slices.SortFunc(out, func(a, b MediaFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// loadedMedia is a media file an import read: its bytes when small enough
// to keep inline, else where it is and what it holds.
type loadedMedia struct {
	data   []byte
	url    string
	sha256 string
	size   int64
}

// load reads the media file at path, relative to the import's folder,
// when the import has one and path is local. A URL, or a file that
// cannot be read, stays a reference to the path as given.
func (im *importer) load(path string) loadedMedia {
	full, ok := im.localPath(path)
	if !ok {
		return loadedMedia{url: path}
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return loadedMedia{url: path}
	}
	if len(data) <= recorder.DefaultMediaInlineBytes {
		return loadedMedia{data: data}
	}
	if abs, err := filepath.Abs(full); err == nil {
		full = abs
	}
	sum := sha256.Sum256(data)
	return loadedMedia{url: full, sha256: hex.EncodeToString(sum[:]), size: int64(len(data))}
}

// localPath is the file that media path names, relative to the import's
// folder, or false when the import has no folder or path is empty or a
// URL.
func (im *importer) localPath(path string) (string, bool) {
	if im.mediaDir == "" || path == "" || strings.Contains(path, "://") {
		return "", false
	}
	if filepath.IsAbs(path) {
		return path, true
	}
	return filepath.Join(im.mediaDir, path), true
}

// inputParts turns ATIF content parts into a message's multimodal input.
func (im *importer) inputParts(parts []ContentPart) []schema.MessageInputPart {
	out := make([]schema.MessageInputPart, 0, len(parts))
	for _, p := range parts {
		if (p.Type != PartImage && p.Type != PartAudio) || p.Source == nil {
			out = append(out, schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: p.Text})
			continue
		}
		common, extra := im.partCommon(p.Source)
		if p.Type == PartImage {
			out = append(out, schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: common}, Extra: extra})
		} else {
			out = append(out, schema.MessageInputPart{Type: schema.ChatMessagePartTypeAudioURL, Audio: &schema.MessageInputAudio{MessagePartCommon: common}, Extra: extra})
		}
	}
	return out
}

// partCommon is a media source as Eino's message parts hold it: inline
// base64 data, or a URL, with the part's extra holding the content's hash
// and size, and an audio file's duration.
func (im *importer) partCommon(src *MediaSource) (schema.MessagePartCommon, map[string]any) {
	m := im.load(src.Path)
	c := schema.MessagePartCommon{MIMEType: src.MediaType}
	extra := map[string]any{}
	if m.data != nil {
		data := base64.StdEncoding.EncodeToString(m.data)
		c.Base64Data = &data
	} else {
		url := m.url
		c.URL = &url
		if m.sha256 != "" {
			extra["sha256"], extra["size"] = m.sha256, m.size
		}
	}
	if src.DurationSec != nil {
		extra["duration_sec"] = *src.DurationSec
	}
	if len(extra) == 0 {
		extra = nil
	}
	return c, extra
}

// resultParts turns ATIF content parts into a tool result's parts.
func (im *importer) resultParts(parts []ContentPart) []recorder.Part {
	out := make([]recorder.Part, 0, len(parts))
	for _, p := range parts {
		if (p.Type != PartImage && p.Type != PartAudio) || p.Source == nil {
			out = append(out, recorder.Part{Type: recorder.PartText, Text: p.Text})
			continue
		}
		m := im.load(p.Source.Path)
		media := &recorder.Media{MIMEType: p.Source.MediaType, Data: m.data, URL: m.url, SHA256: m.sha256, Size: m.size}
		if p.Source.DurationSec != nil {
			media.DurationSec = *p.Source.DurationSec
		}
		out = append(out, recorder.Part{Type: recorder.PartType(p.Type), Media: media})
	}
	return out
}

// mediaPath returns the path, relative to the document, under which
// data is written with the document, and remembers it for WriteFile.
func (x *exporter) mediaPath(data []byte, mediaType string) string {
	path := mediaDirName + "/" + hashName(data, mediaType)
	if x.media == nil {
		x.media = map[string][]byte{}
	}
	x.media[path] = data
	return path
}

// mediaSource is where an exported document finds a media file: inline
// data becomes a file of its own next to the document, a reference keeps
// its URL or path.
func (x *exporter) mediaSource(m *recorder.Media, mediaType string) *MediaSource {
	src := &MediaSource{MediaType: mediaType, Path: m.URL}
	if m.Data != nil {
		src.Path = x.mediaPath(m.Data, mediaType)
	}
	if m.DurationSec != 0 {
		d := m.DurationSec
		src.DurationSec = &d
	}
	return src
}

// resultContent is a tool result's parts as ATIF content. Media whose type
// ATIF does not accept becomes a text part saying what was left out.
func (x *exporter) resultContent(parts []recorder.Part) Content {
	out := make([]ContentPart, 0, len(parts))
	for _, p := range parts {
		out = append(out, x.resultPart(p))
	}
	return Parts(out...)
}

// resultPart is one part of a tool result as ATIF content.
func (x *exporter) resultPart(p recorder.Part) ContentPart {
	if p.Type == recorder.PartText {
		return ContentPart{Type: PartText, Text: x.redact(p.Text)}
	}
	if mediaType := resultMediaType(p); mediaType != "" {
		return ContentPart{Type: PartType(p.Type), Source: x.mediaSource(p.Media, mediaType)}
	}
	return ContentPart{Type: PartText, Text: "[" + string(p.Type) + " omitted]"}
}

// resultMediaType is the media type ATIF gives the image or audio of
// part p, or "" when the part has no media to point at or media of a
// type ATIF does not accept.
func resultMediaType(p recorder.Part) string {
	if p.Media == nil || !mediaPresent(p.Media) {
		return ""
	}
	switch p.Type {
	case recorder.PartImage:
		return acceptedImageType(p.Media.MIMEType)
	case recorder.PartAudio:
		return acceptedAudioType(p.Media.MIMEType)
	}
	return ""
}

// acceptedImageType is mime when ATIF accepts images of that type, or "".
func acceptedImageType(mime string) string {
	if slices.Contains(imageMediaTypes, mime) {
		return mime
	}
	return ""
}

// acceptedAudioType is mime as ATIF names it when ATIF accepts audio of
// that type, or "".
func acceptedAudioType(mime string) string {
	if t := normalizeAudioType(mime); slices.Contains(audioMediaTypes, t) {
		return t
	}
	return ""
}

// mediaPresent reports whether m has its bytes or a place to find them.
func mediaPresent(m *recorder.Media) bool {
	return m.Data != nil || m.URL != ""
}

// inputMedia is an Eino message part's media as an ATIF source, or nil
// when it has neither data nor a URL, or data that is not base64.
func (x *exporter) inputMedia(c schema.MessagePartCommon, extra map[string]any, mediaType string) *MediaSource {
	path, ok := x.inputMediaPath(c, mediaType)
	if !ok {
		return nil
	}
	src := &MediaSource{MediaType: mediaType, Path: path}
	if d, ok := number(extra["duration_sec"]); ok {
		src.DurationSec = &d
	}
	return src
}

// inputMediaPath is where the document finds an Eino message part's
// media: a file written with it for inline data, or else the part's URL.
// It reports false when the part has neither, or data that does not
// decode.
func (x *exporter) inputMediaPath(c schema.MessagePartCommon, mediaType string) (string, bool) {
	data, inline, ok := inlineData(c)
	switch {
	case inline && ok:
		return x.mediaPath(data, mediaType), true
	case inline:
		return "", false
	case c.URL != nil && *c.URL != "":
		return *c.URL, true
	}
	return "", false
}

// inlineData decodes the bytes an Eino message part holds inline, as
// base64 data or a data: URL. inline is false when it holds none, ok
// false when they do not decode.
func inlineData(c schema.MessagePartCommon) (data []byte, inline, ok bool) {
	if c.Base64Data != nil && *c.Base64Data != "" {
		data, err := base64.StdEncoding.DecodeString(*c.Base64Data)
		return data, true, err == nil
	}
	if c.URL != nil && strings.HasPrefix(*c.URL, "data:") {
		data, ok := dataURL(*c.URL)
		return data, true, ok
	}
	return nil, false, false
}

// dataURL decodes the bytes of a base64 data: URL.
func dataURL(url string) ([]byte, bool) {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return nil, false
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	return data, err == nil
}

// LocalMedia deals with the image and audio files t, and its subagents,
// name by a local path (not a URL, nor a file t already holds to write
// with it), which the folder the document is written to may not hold:
// each path is looked up relative to dir (an absolute path as it is).
// With take, a file found there is taken into t's media files
// (MediaFiles), written with the document under media/, and the part
// points there. A file not found, or every one without take, is left out:
// the part becomes a text part saying which file it was. It returns the
// paths left out. Export a recording whose messages name local files with
// it, so that the document holds or drops them rather than naming files
// that are not next to it.
func (t *Trajectory) LocalMedia(dir string, take bool) (left []string) {
	if t == nil {
		return nil
	}
	lm := localMedia{t: t, dir: dir, take: take}
	lm.trajectory(t)
	return lm.left
}

// localMedia is the work of Trajectory.LocalMedia on one document.
type localMedia struct {
	t    *Trajectory
	dir  string
	take bool
	left []string
}

func (lm *localMedia) trajectory(t *Trajectory) {
	for i := range t.Steps {
		s := &t.Steps[i]
		lm.content(&s.Message)
		if s.Observation == nil {
			continue
		}
		for j := range s.Observation.Results {
			if c := s.Observation.Results[j].Content; c != nil {
				lm.content(c)
			}
		}
	}
	for i := range t.SubagentTrajectories {
		lm.trajectory(&t.SubagentTrajectories[i])
	}
}

func (lm *localMedia) content(c *Content) {
	for i, p := range c.Parts {
		if p.Source == nil || !lm.local(p.Source.Path) {
			continue
		}
		if data, err := os.ReadFile(lm.full(p.Source.Path)); err == nil && lm.take {
			if lm.t.media == nil {
				lm.t.media = map[string][]byte{}
			}
			src := *p.Source
			src.Path = mediaDirName + "/" + hashName(data, src.MediaType)
			lm.t.media[src.Path] = data
			c.Parts[i].Source = &src
			continue
		}
		lm.left = append(lm.left, p.Source.Path)
		c.Parts[i] = ContentPart{Type: PartText, Text: "[" + string(p.Type) + " omitted: " + p.Source.Path + "]"}
	}
}

// local reports whether path names a local file that t does not hold.
func (lm *localMedia) local(path string) bool {
	_, held := lm.t.media[path]
	return path != "" && !held && !strings.Contains(path, "://") && !strings.HasPrefix(path, "data:")
}

// full is where path is looked up.
func (lm *localMedia) full(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(lm.dir, path)
}

// hashName is the name of a media file of data: its SHA-256 and the
// extension of its type.
func hashName(data []byte, mediaType string) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) + mediaExtension(mediaType)
}
