package atif

import (
	"os"
	"path/filepath"
	"strings"
)

// content checks a string-or-parts value. A null is allowed where the
// content is optional.
func (v *validator) content(path string, val any, required bool) {
	switch c := val.(type) {
	case string:
	case nil:
		if required {
			v.add(path, RuleType, "expected a string or a list of content parts, got null")
		}
	case []any:
		for i, p := range c {
			v.part(index(path, i), p)
		}
	default:
		v.add(path, RuleType, "expected a string or a list of content parts, got %s", jsonType(val))
	}
}

func (v *validator) part(path string, val any) {
	m, ok := v.object(path, val, partFields)
	if !ok {
		return
	}
	kind, kindOK := v.partType(path, m)
	v.str(path, m, "text", false)
	_, hasText := present(m, "text")
	source, hasSource := present(m, "source")
	switch {
	case !kindOK:
	case kind == string(PartText):
		v.textPart(path, hasText, hasSource)
	default:
		v.mediaPart(path, kind, hasText, source, hasSource)
	}
}

// partType checks and returns a content part's type. It reports false
// when the type is missing or not one ATIF defines, so that the rules for
// each type are not checked against a guess.
func (v *validator) partType(path string, m map[string]any) (string, bool) {
	kind, ok := v.str(path, m, "type", true)
	if !ok {
		return "", false
	}
	switch PartType(kind) {
	case PartText, PartImage, PartAudio:
		return kind, true
	}
	v.add(join(path, "type"), RuleEnum, "type must be \"text\", \"image\" or \"audio\", got %q", kind)
	return "", false
}

// textPart checks that a text part has text and no source.
func (v *validator) textPart(path string, hasText, hasSource bool) {
	if !hasText {
		v.add(path, RuleContentPart, "a text part needs text")
	}
	if hasSource {
		v.add(join(path, "source"), RuleContentPart, "a text part must not have a source")
	}
}

// mediaPart checks that an image or audio part has a source of its kind
// and no text.
func (v *validator) mediaPart(path, kind string, hasText bool, source any, hasSource bool) {
	if hasText {
		v.add(join(path, "text"), RuleContentPart, "an %s part must not have text", kind)
	}
	if !hasSource {
		v.add(path, RuleContentPart, "an %s part needs a source", kind)
		return
	}
	v.source(join(path, "source"), source, PartType(kind))
}

// source checks a media source against the kind its part declares.
func (v *validator) source(path string, val any, kind PartType) {
	spec := imageSourceFields
	if kind == PartAudio {
		spec = audioSourceFields
	}
	m, ok := v.object(path, val, spec)
	if !ok {
		return
	}
	if mt, ok := v.str(path, m, "media_type", true); ok {
		v.mediaType(join(path, "media_type"), mt, kind)
	}
	v.duration(path, m)
	if p, ok := v.str(path, m, "path", true); ok && v.checkMedia {
		v.mediaExists(join(path, "path"), p, kind)
	}
}

// duration checks that source m at path gives no duration_sec below 0.
func (v *validator) duration(path string, m map[string]any) {
	if d, ok := v.number(path, m, "duration_sec", false); ok && d < 0 {
		v.add(join(path, "duration_sec"), RuleMinimum, "duration_sec must be at least 0, got %v", d)
	}
}

// mediaType checks that a source's media type, at path, is one ATIF
// allows for the kind of its part.
func (v *validator) mediaType(path, mt string, kind PartType) {
	allowed, known := mediaTypesOf[kind]
	switch got := mediaKind(mt); {
	case !known || got == kind:
	case got != "":
		v.add(path, RuleContentPart, "an %s part needs an %s source, got media_type %q", kind, kind, mt)
	default:
		v.add(path, RuleEnum, "%s media_type must be one of %s, got %q", kind, strings.Join(allowed, ", "), mt)
	}
}

// mediaTypesOf are the media types ATIF allows for each kind of media
// part.
var mediaTypesOf = map[PartType][]string{PartImage: imageMediaTypes, PartAudio: audioMediaTypes}

// mediaKind is the kind of media part ATIF allows media type mt for, or
// "" when it allows it for none.
func mediaKind(mt string) PartType {
	switch {
	case acceptedImageType(mt) != "":
		return PartImage
	case acceptedAudioType(mt) != "":
		return PartAudio
	}
	return ""
}

func (v *validator) mediaExists(path, file string, kind PartType) {
	if file == "" || strings.Contains(file, "://") || v.pending[file] {
		return
	}
	full := file
	if !filepath.IsAbs(full) {
		full = filepath.Join(v.mediaDir, file)
	}
	if _, err := os.Stat(full); err != nil {
		v.add(path, RuleMediaMissing, "referenced %s file does not exist: %s", kind, file)
	}
}
