package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// maxAnswerBytes bounds how much of a model's answer is searched for the
// summary object.
const maxAnswerBytes = 1 << 20

// maxObjectTries bounds how many opening braces are tried as the start of
// the summary object, so that an answer full of braces costs little.
const maxObjectTries = 64

// answer is what the model wrote for one prompt.
type answer struct {
	summary    string
	rationale  string
	findings   []string
	confidence Confidence
}

// parseAnswer finds the summary object in a model's answer. It tolerates
// code fences and text around the object, keys in any case with spaces or
// dashes for underscores, a few other names for each key, findings given
// as one string of lines, and confidence words around the level. It fails
// with an error wrapping ErrResponse when no object with a non-empty
// summary is found.
func parseAnswer(text string) (answer, error) {
	if len(text) > maxAnswerBytes {
		text = text[:maxAnswerBytes]
	}
	a, found, ok := searchAnswer(text)
	switch {
	case ok:
		return a, nil
	case found:
		return answer{}, fmt.Errorf("%w: no JSON object with a non-empty summary", ErrResponse)
	}
	return answer{}, fmt.Errorf("%w: no JSON object in %q", ErrResponse, cut(strings.TrimSpace(text), 80))
}

// searchAnswer tries up to maxObjectTries opening braces of text as the
// start of the summary object. found reports whether any of them starts a
// JSON object, and ok whether one of those has a summary.
func searchAnswer(text string) (a answer, found, ok bool) {
	tries := 0
	for i := 0; i < len(text) && tries < maxObjectTries; i++ {
		if text[i] != '{' {
			continue
		}
		tries++
		fields, decoded := objectAt(text[i:])
		if !decoded {
			continue
		}
		found = true
		if a, ok := fromFields(fields); ok {
			return a, true, true
		}
	}
	return answer{}, found, false
}

// objectAt decodes the JSON object text starts with, and reports false
// when it starts with none.
func objectAt(text string) (map[string]json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	err := json.NewDecoder(strings.NewReader(text)).Decode(&fields)
	return fields, err == nil
}

// fromFields reads the summary from a decoded object; ok is false without
// a non-empty summary.
func fromFields(fields map[string]json.RawMessage) (answer, bool) {
	byKey := make(map[string]json.RawMessage, len(fields))
	for k, v := range fields {
		byKey[normalizeKey(k)] = v
	}
	pick := func(names ...string) json.RawMessage {
		for _, n := range names {
			if v, ok := byKey[n]; ok {
				return v
			}
		}
		return nil
	}
	var a answer
	a.summary = strings.TrimSpace(textOf(pick("summary", "trajectory_summary", "reasoning_summary")))
	if a.summary == "" {
		return answer{}, false
	}
	a.rationale = strings.TrimSpace(textOf(pick("tools_rationale", "tool_rationale", "rationale", "tools_reasoning", "tool_choice_rationale")))
	a.findings = listOf(pick("key_findings", "findings", "keyfindings"))
	a.confidence = parseConfidence(textOf(pick("confidence", "confidence_level")))
	return a, true
}

func normalizeKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return '_'
		}
		return r
	}, k)
}

// textOf returns a JSON string's value, a list of strings joined with
// "; ", or any other value's JSON text. Null and absent give "".
func textOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if list := listOf(raw); list != nil {
		return strings.Join(list, "; ")
	}
	return string(raw)
}

// listOf returns a JSON list as strings (non-string items as their JSON
// text), or a string split into its non-empty lines with list markers
// removed.
func listOf(raw json.RawMessage) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) == nil {
		return itemTexts(items)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return []string{string(raw)}
	}
	return listLines(s)
}

// itemTexts returns the non-empty items of a JSON list as trimmed text:
// strings as they are, anything else as its JSON.
func itemTexts(items []json.RawMessage) []string {
	var out []string
	for _, it := range items {
		var s string
		if json.Unmarshal(it, &s) != nil {
			s = string(bytes.TrimSpace(it))
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// listLines returns the non-empty lines of s without the bullets or
// numbers a model may put before list items.
func listLines(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		line = strings.TrimLeft(line, "-*•")
		line = strings.TrimSpace(trimNumbering(line))
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// trimNumbering removes a leading "1." or "2)".
func trimNumbering(s string) string {
	i := len(s) - len(strings.TrimLeft(s, "0123456789"))
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') {
		return s[i+1:]
	}
	return s
}

// parseConfidence reads a level from words such as "High", "medium
// confidence" or "moderate"; anything else is "".
func parseConfidence(s string) Confidence {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
	for _, w := range words {
		switch w {
		case "high":
			return High
		case "medium", "moderate", "mid":
			return Medium
		case "low":
			return Low
		}
	}
	return ""
}
