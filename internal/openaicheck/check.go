package openaicheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/messages"
)

// Schema is a JSON Schema document, read once and safe for concurrent
// use.
type Schema struct {
	root map[string]any
}

// Load reads the JSON Schema in the file at path.
func Load(path string) (*Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("openaicheck: %s: %w", path, err)
	}
	return &Schema{root: root}, nil
}

// Validate returns every way v, a JSON value as encoding/json decodes it
// with UseNumber, breaks the schema; nil when it does not.
func (s *Schema) Validate(v any) []string {
	c := &checker{root: s.root}
	c.check("$", s.root, v)
	return c.problems
}

type checker struct {
	root     map[string]any
	problems []string
	// misfits counts the problems that show a value is of another kind
	// than a schema describes (a wrong type where the check started, or a
	// value outside a one-value enum, such as a role), so that a failed
	// oneOf names the alternative meant rather than the nearest by count.
	misfits int
	start   string
}

func (c *checker) fail(path, format string, args ...any) {
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

// sub checks v against schema on a checker of its own, and returns what
// it found: oneOf and anyOf try branches without reporting them.
func (c *checker) sub(path string, schema map[string]any, v any) ([]string, int) {
	s := &checker{root: c.root, start: path}
	s.check(path, schema, v)
	return s.problems, s.misfits
}

func (c *checker) check(path string, schema map[string]any, v any) {
	if ref, ok := schema["$ref"].(string); ok {
		target, err := c.resolve(ref)
		if err != nil {
			c.fail(path, "%v", err)
			return
		}
		c.check(path, target, v)
	}
	if t, ok := schema["type"]; ok && !hasType(t, v) {
		c.fail(path, "want type %v, got %s", t, typeOf(v))
		if path == c.start {
			c.misfits++
		}
		return
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return equal(e, v) }) {
		c.fail(path, "%v is not one of %v", v, enum)
		if len(enum) == 1 {
			c.misfits++
		}
	}
	if m, ok := v.(map[string]any); ok {
		c.object(path, schema, m)
	}
	if list, ok := v.([]any); ok {
		c.array(path, schema, list)
	}
	if branches, ok := schema["oneOf"].([]any); ok {
		c.alternatives(path, branches, v, true)
	}
	if branches, ok := schema["anyOf"].([]any); ok {
		c.alternatives(path, branches, v, false)
	}
}

func (c *checker) object(path string, schema map[string]any, m map[string]any) {
	if required, ok := schema["required"].([]any); ok {
		for _, r := range required {
			if k, _ := r.(string); k != "" {
				if _, has := m[k]; !has {
					c.fail(path, "missing required %q", k)
				}
			}
		}
	}
	props, _ := schema["properties"].(map[string]any)
	for k, pv := range m {
		if ps, ok := props[k].(map[string]any); ok {
			c.check(path+"."+k, ps, pv)
		}
	}
}

func (c *checker) array(path string, schema map[string]any, list []any) {
	if n, ok := schema["minItems"].(json.Number); ok {
		if min, err := n.Int64(); err == nil && int64(len(list)) < min {
			c.fail(path, "%d items, want at least %d", len(list), min)
		}
	}
	if items, ok := schema["items"].(map[string]any); ok {
		for i, item := range list {
			c.check(fmt.Sprintf("%s[%d]", path, i), items, item)
		}
	}
}

// alternatives checks that v matches exactly one of branches (oneOf) or
// at least one (anyOf).
func (c *checker) alternatives(path string, branches []any, v any, exactlyOne bool) {
	matched := 0
	var closest []string
	closestMisfits := 0
	for _, b := range branches {
		bs, ok := b.(map[string]any)
		if !ok {
			continue
		}
		problems, misfits := c.sub(path, bs, v)
		switch {
		case len(problems) == 0:
			matched++
		case closest == nil || misfits < closestMisfits || (misfits == closestMisfits && len(problems) < len(closest)):
			closest, closestMisfits = problems, misfits
		}
	}
	switch {
	case matched == 0:
		c.fail(path, "matches none of %d alternatives; nearest: %s", len(branches), strings.Join(closest, "; "))
	case exactlyOne && matched > 1:
		c.fail(path, "matches %d alternatives, want exactly one", matched)
	}
}

// resolve follows a local reference such as "#/$defs/Name".
func (c *checker) resolve(ref string) (map[string]any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("reference %q is not local", ref)
	}
	var node any = c.root
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("reference %q does not resolve", ref)
		}
		node = m[part]
	}
	m, ok := node.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("reference %q does not resolve", ref)
	}
	return m, nil
}

func hasType(t any, v any) bool {
	if list, ok := t.([]any); ok {
		return slices.ContainsFunc(list, func(e any) bool { return hasType(e, v) })
	}
	name, _ := t.(string)
	got := typeOf(v)
	return name == got || (name == "number" && got == "integer")
}

func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func equal(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// Message is what Pairing reads of a chat message.
type Message struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID string `json:"id"`
	} `json:"tool_calls"`
}

// Pairing returns every break of the tool-call pairing rules in a
// conversation: each tool call of an assistant message must be answered
// by one of the tool messages that directly follow it, and each of those
// must name, by a non-empty tool_call_id, a call of that message that no
// earlier one answered.
func Pairing(msgs []Message) []string {
	var problems []string
	var open map[string]int // calls of the last assistant message not yet answered
	closeCalls := func(at int) {
		for id, n := range open {
			if n > 0 {
				problems = append(problems, fmt.Sprintf("message %d: tool call %q is never answered", at, id))
			}
		}
		open = nil
	}
	for i, m := range msgs {
		if m.Role == "tool" {
			switch {
			case m.ToolCallID == "":
				problems = append(problems, fmt.Sprintf("message %d: a tool message without tool_call_id", i))
			case open[m.ToolCallID] == 0:
				problems = append(problems, fmt.Sprintf("message %d: tool message answers %q, which is no open call of the assistant message before it", i, m.ToolCallID))
			default:
				open[m.ToolCallID]--
			}
			continue
		}
		closeCalls(i)
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			open = map[string]int{}
			for _, c := range m.ToolCalls {
				open[c.ID]++
			}
		}
	}
	closeCalls(len(msgs))
	slices.Sort(problems)
	return problems
}

// Find returns the Chat Completions message schema that sits next to the
// module root, in ../shared/fixtures/openai, when it is there.
func Find() (*Schema, bool) {
	s, err := findOnce()
	return s, err == nil
}

var findOnce = sync.OnceValues(func() (*Schema, error) {
	fixtures, err := SharedFixtures()
	if err != nil {
		return nil, err
	}
	return Load(filepath.Join(fixtures, "openai", "chat_message.schema.json"))
})

// SharedFixtures returns the shared fixtures folder, ../shared/fixtures
// from the module root above the working directory, or an error wrapping
// os.ErrNotExist when it is not there.
func SharedFixtures() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("module root (go.mod) above the working directory: %w", os.ErrNotExist)
		}
		dir = parent
	}
	fixtures := filepath.Join(dir, "..", "shared", "fixtures")
	if _, err := os.Stat(fixtures); err != nil {
		return "", err
	}
	return fixtures, nil
}

// Conversations exports every run in records as OpenAI-style messages and
// returns every problem Check finds in them, each prefixed with its run.
func Conversations(records []recorder.Record) []string {
	var problems []string
	seen := map[string]bool{}
	for _, r := range records {
		if seen[r.RunID] {
			continue
		}
		seen[r.RunID] = true
		msgs, err := messages.FromRecords(records, &messages.Options{RunID: r.RunID})
		if err != nil {
			problems = append(problems, fmt.Sprintf("run %s: %v", r.RunID, err))
			continue
		}
		raw := make([]json.RawMessage, len(msgs))
		for i := range msgs {
			if raw[i], err = json.Marshal(msgs[i]); err != nil {
				problems = append(problems, fmt.Sprintf("run %s: message %d: %v", r.RunID, i, err))
			}
		}
		for _, p := range Check(raw) {
			problems = append(problems, "run "+r.RunID+": "+p)
		}
	}
	return problems
}

// Check returns every problem of a conversation given as JSON values,
// one per message: the pairing rules always, and the schema when Find
// finds it.
func Check(msgs []json.RawMessage) []string {
	var problems []string
	pairs := make([]Message, len(msgs))
	schema, haveSchema := Find()
	for i, raw := range msgs {
		if err := json.Unmarshal(raw, &pairs[i]); err != nil {
			problems = append(problems, fmt.Sprintf("message %d: %v", i, err))
			continue
		}
		if !haveSchema {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			problems = append(problems, fmt.Sprintf("message %d: %v", i, err))
			continue
		}
		for _, p := range schema.Validate(v) {
			problems = append(problems, fmt.Sprintf("message %d: %s", i, p))
		}
	}
	return append(problems, Pairing(pairs)...)
}
